"""scripts/provision-vm.sh and the Vagrantfile, as far as a machine without a VM can test them.

The provisioner runs against fake apt-get, curl, gpg, fuser and dpkg-query that log their
calls; PATH holds only those fakes and links to the few real tools the script needs, so
nothing on this machine is installed, fetched or changed. PROVISION_ROOT moves its /etc and
/var paths into a temporary directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "provision-vm.sh"
VAGRANTFILE = ROOT / "Vagrantfile"

REPO_URL = "https://download.opensuse.org/repositories/home:/p4lang/xUbuntu_22.04"
KEY_URL = f"{REPO_URL}/Release.key"
KEYRING = "etc/apt/keyrings/home-p4lang.gpg"
SOURCE_LIST = "etc/apt/sources.list.d/home-p4lang.list"
PACKAGES = ["p4lang-p4c", "p4lang-bmv2", "p4lang-pi"]
TOOLS = ["p4c-bm2-ss", "simple_switch_grpc", "simple_switch_CLI"]

# Real tools the script and the fakes use; everything else is a fake or absent.
REAL_TOOLS = ["bash", "id", "dirname", "mkdir", "mktemp", "rm", "grep", "tail", "tr",
              "install", "sleep", "cat", "cp", "touch"]

UBUNTU_2204 = ('NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="22.04"\n'
               'PRETTY_NAME="Ubuntu 22.04.5 LTS"\n')

# Each fake logs "<name> <args> list=<present|absent>", the state of the p4lang source list
# when it ran, so the tests can see what happened before the source was written.
LOG_CALL = 'echo "$(basename "$0") $* list=$([ -e "$FAKE_SOURCE_LIST" ] && echo present || echo absent)" >>"$FAKE_CALLS"\n'

FAKES = {
    "curl": r"""
        out=""
        while [ $# -gt 0 ]; do
            case "$1" in -o) out="$2"; shift ;; esac
            shift
        done
        if [ -n "${FAKE_CURL_FAIL:-}" ]; then
            echo "curl: (22) The requested URL returned error: 404" >&2
            exit 22
        fi
        if [ -n "${FAKE_CURL_BODY:-}" ]; then
            printf '%s\n' "$FAKE_CURL_BODY" >"$out"
        else
            printf -- '-----BEGIN PGP PUBLIC KEY BLOCK-----\nfake\n-----END PGP PUBLIC KEY BLOCK-----\n' >"$out"
        fi
        """,
    "gpg": r"""
        mode="" out="" file=""
        while [ $# -gt 0 ]; do
            case "$1" in
                --show-keys) mode=show ;;
                --dearmor) mode=dearmor ;;
                -o) out="$2"; shift ;;
                --*) ;;
                *) file="$1" ;;
            esac
            shift
        done
        case "$mode" in
            show) grep -q -e 'BEGIN PGP PUBLIC KEY BLOCK' -e 'FAKE DEARMORED KEY' "$file" ;;
            dearmor) { echo "FAKE DEARMORED KEY"; cat "$file"; } >"$out" ;;
            *) exit 2 ;;
        esac
        """,
    "fuser": r"""
        busy="${FAKE_FUSER_BUSY:-0}"
        [ "$busy" = forever ] && exit 0
        count=0
        [ -f "$FAKE_FUSER_COUNT" ] && count="$(cat "$FAKE_FUSER_COUNT")"
        echo $((count + 1)) >"$FAKE_FUSER_COUNT"
        [ "$count" -lt "$busy" ]
        """,
    "apt-get": r"""
        case " $* " in
            *" update "*)
                if [ -n "${FAKE_APT_FAIL_UPDATE:-}" ]; then
                    echo "E: The following signatures were invalid: EXPKEYSIG 0123456789ABCDEF"
                    exit 100
                fi ;;
            *" install "*)
                if [ -n "${FAKE_APT_FAIL_INSTALL:-}" ]; then
                    echo "E: Unable to locate package p4lang-bmv2"
                    exit 100
                fi
                if [ -z "${FAKE_APT_NO_TOOLS:-}" ]; then
                    for tool in p4c-bm2-ss simple_switch_grpc simple_switch_CLI; do
                        printf '#!/bin/bash\n' >"$FAKE_TOOLS/$tool"
                        chmod +x "$FAKE_TOOLS/$tool"
                    done
                fi ;;
        esac
        """,
    "dpkg-query": r"""
        printf 'p4lang-p4c 1.2.5.4-1, p4lang-bmv2 1.15.0-7, p4lang-pi 0.1.0-15, '
        """,
}


# The public half of a throwaway key (its secret half was never kept), for the run with the
# real gpg.
ARMORED_TEST_KEY = """\
-----BEGIN PGP PUBLIC KEY BLOCK-----

mDMEaw7bfBYJKwYBBAHaRw8BAQdA6lp9L7UN6wkZwejzc14N6/92od8juWM8X5td
WH/Pyqe0Mk1SQyBMYWIgdGVzdCBrZXkgKHRocm93YXdheSkgPHRlc3RAbXJjbGFi
LmludmFsaWQ+iJAEExYIADgWIQTZa9EScnoH0koqRRkJNuPcE/yp8wUCaw7bfAIb
AwULCQgHAgYVCgkICwIEFgIDAQIeAQIXgAAKCRAJNuPcE/yp8z1dAQCKv/nhpNnc
NarhQYg05De2H0/jEQqaRtc12KHBMhe1VgEAjH1eaILFXPdCOcEIMNBZNLsf8nG/
L4z6BPndFUdBqgI=
=bQav
-----END PGP PUBLIC KEY BLOCK-----"""


class FakeSystem:
    """A PROVISION_ROOT tree, fake tools on PATH and the log of their calls."""

    def __init__(self, base: Path, os_release: str | None = UBUNTU_2204,
                 real_gpg: str | None = None):
        self.root = base / "root"
        self.bin = base / "bin"
        self.tools = base / "tools"    # where the fake apt-get "installs" p4c and BMv2
        self.real = base / "real"
        self.calls_file = base / "calls.log"
        for d in (self.root / "etc", self.root / "var/lib/dpkg", self.bin, self.tools,
                  self.real):
            d.mkdir(parents=True)
        if os_release is not None:
            (self.root / "etc/os-release").write_text(os_release)
        for name, body in FAKES.items():
            if name == "gpg" and real_gpg:
                (self.real / name).symlink_to(real_gpg)
                continue
            fake = self.bin / name
            fake.write_text("#!/bin/bash\n" + LOG_CALL + textwrap.dedent(body))
            fake.chmod(0o755)
        for tool in REAL_TOOLS:
            (self.real / tool).symlink_to(shutil.which(tool))
        (self.real / "basename").symlink_to(shutil.which("basename"))
        (self.real / "chmod").symlink_to(shutil.which("chmod"))
        self.env = {
            "PATH": f"{self.bin}:{self.tools}:{self.real}",
            "PROVISION_ROOT": str(self.root),
            "PROVISION_LOCK_TIMEOUT": "30",
            "PROVISION_LOCK_POLL": "0.05",
            "FAKE_CALLS": str(self.calls_file),
            "FAKE_SOURCE_LIST": str(self.root / SOURCE_LIST),
            "FAKE_TOOLS": str(self.tools),
            "FAKE_FUSER_COUNT": str(base / "fuser.count"),
        }

    def run(self, **fake_env: str) -> subprocess.CompletedProcess:
        self.calls_file.write_text("")
        return subprocess.run(["/bin/bash", str(SCRIPT)], env={**self.env, **fake_env},
                              capture_output=True, text=True, timeout=60)

    def calls(self, name: str | None = None) -> list[str]:
        lines = self.calls_file.read_text().splitlines()
        return [c for c in lines if name is None or c.split()[0] == name]

    @property
    def source_list(self) -> Path:
        return self.root / SOURCE_LIST

    @property
    def keyring(self) -> Path:
        return self.root / KEYRING


@pytest.fixture
def system(tmp_path: Path) -> FakeSystem:
    return FakeSystem(tmp_path)


def assert_one_line_error(result: subprocess.CompletedProcess, *needles: str) -> str:
    assert result.returncode != 0, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("provision-vm.sh: "), lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def index_of(calls: list[str], prefix: str) -> int:
    for i, call in enumerate(calls):
        if call.startswith(prefix):
            return i
    raise AssertionError(f"no call starting with {prefix!r} in {calls}")


# --- the script ---------------------------------------------------------------------------

def test_script_is_valid_bash():
    result = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_script_passes_shellcheck():
    if not shutil.which("shellcheck"):
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    result = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_dry_run_fetches_and_checks_the_key_before_writing_the_source(system: FakeSystem):
    result = system.run()
    assert result.returncode == 0, result.stderr
    calls = system.calls()

    fetch = index_of(calls, "curl ")
    check = index_of(calls, "gpg --batch --show-keys")
    dearmor = index_of(calls, "gpg --batch --yes --dearmor")
    update = index_of(calls, "apt-get ")
    assert fetch < check < dearmor < update
    assert KEY_URL in calls[fetch]
    # Nothing before apt-get ran with the source in place; apt-get always did.
    assert all(c.endswith("list=absent") for c in calls[:update] if not c.startswith("fuser"))
    assert all(c.endswith("list=present") for c in system.calls("apt-get"))

    assert system.source_list.read_text() == (
        f"deb [signed-by=/{KEYRING}] {REPO_URL}/ /\n")
    assert system.keyring.read_text().startswith("FAKE DEARMORED KEY")
    apt = system.calls("apt-get")
    assert [c.split()[3] for c in apt] == ["update", "install"]
    assert all("-o DPkg::Lock::Timeout=30" in c for c in apt)
    assert apt[1].split()[4:-1] == ["-y", "-qq", *PACKAGES]
    # The lock is looked at before each apt-get.
    assert calls[update - 1].startswith("fuser ")
    assert f"ready: {PACKAGES[0]} 1.2.5.4-1, {PACKAGES[1]} 1.15.0-7, {PACKAGES[2]} 0.1.0-15" \
        in result.stdout


def test_real_gpg_accepts_an_armored_key_and_refuses_anything_else(tmp_path: Path):
    gpg = shutil.which("gpg")
    if not gpg:
        pytest.skip("gpg is not installed (apt-get install gnupg)")
    system = FakeSystem(tmp_path / "key", real_gpg=gpg)
    result = system.run(FAKE_CURL_BODY=ARMORED_TEST_KEY)
    assert result.returncode == 0, result.stderr
    keyring = system.keyring.read_bytes()
    assert keyring[:1] != b"-" and len(keyring) > 100    # dearmored: binary, not ASCII armor
    shown = subprocess.run([gpg, "--batch", "--show-keys", str(system.keyring)],
                           env={"GNUPGHOME": str(tmp_path)}, capture_output=True, text=True)
    assert "test@mrclab.invalid" in shown.stdout, shown.stderr

    refused = FakeSystem(tmp_path / "html", real_gpg=gpg)
    result = refused.run(FAKE_CURL_BODY="<html><body>Service Unavailable</body></html>")
    assert_one_line_error(result, "is not an OpenPGP key")
    assert not refused.keyring.exists() and not refused.source_list.exists()


def test_second_run_keeps_the_key_and_skips_installed_packages(system: FakeSystem):
    assert system.run().returncode == 0
    keyring, source = system.keyring.read_text(), system.source_list.read_text()

    again = system.run()
    assert again.returncode == 0, again.stderr
    assert system.calls("curl") == [] and system.calls("apt-get") == []
    assert "already installed" in again.stdout and "ready:" in again.stdout
    assert system.keyring.read_text() == keyring
    assert system.source_list.read_text() == source


def test_empty_keyring_is_fetched_again_though_the_source_exists(system: FakeSystem):
    assert system.run().returncode == 0
    system.keyring.write_text("")

    again = system.run()
    assert again.returncode == 0, again.stderr
    curl = system.calls("curl")
    assert len(curl) == 1 and curl[0].endswith("list=absent")
    assert system.keyring.read_text().startswith("FAKE DEARMORED KEY")
    assert system.source_list.exists()


def test_waits_for_the_apt_lock_then_proceeds(system: FakeSystem):
    result = system.run(FAKE_FUSER_BUSY="3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("waiting up to 30s for the apt/dpkg lock") == 1
    calls = system.calls()
    first_apt = index_of(calls, "apt-get ")
    assert len([c for c in calls[:first_apt] if c.startswith("fuser ")]) == 4
    assert "/var/lib/dpkg/lock-frontend" in calls[first_apt - 1]


def test_lock_held_past_the_timeout_is_a_one_line_error(system: FakeSystem):
    # 2 s, not 1: bash counts whole seconds, so 1 s could run out before a second look.
    result = system.run(FAKE_FUSER_BUSY="forever", PROVISION_LOCK_TIMEOUT="2")
    assert_one_line_error(result, "still locked after 2s", "vagrant provision")
    assert system.calls("apt-get") == []
    assert len(system.calls("fuser")) > 1    # it looked again before giving up


@pytest.mark.parametrize("os_release, shown", [
    ('ID=ubuntu\nVERSION_ID="24.04"\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\n', "Ubuntu 24.04.1 LTS"),
    ('ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
     "Debian GNU/Linux 12 (bookworm)"),
    ('ID=ubuntu\nVERSION_ID="20.04"\n', "ubuntu 20.04"),
])
def test_unsupported_release_is_a_one_line_error(tmp_path: Path, os_release: str, shown: str):
    system = FakeSystem(tmp_path, os_release)
    result = system.run()
    assert_one_line_error(result, f"unsupported release '{shown}'", "supported: Ubuntu 22.04")
    assert system.calls() == []
    assert not system.source_list.exists()


def test_missing_os_release_is_a_one_line_error(tmp_path: Path):
    system = FakeSystem(tmp_path, os_release=None)
    assert_one_line_error(system.run(), "cannot read", "supported: Ubuntu 22.04")


def test_failed_key_download_names_repository_and_key_and_writes_nothing(system: FakeSystem):
    # Left behind by an earlier run that wrote the source first: it must go, not be trusted.
    system.source_list.parent.mkdir(parents=True)
    system.source_list.write_text(f"deb {REPO_URL}/ /\n")

    result = system.run(FAKE_CURL_FAIL="1")
    line = assert_one_line_error(result, f"could not download the key {KEY_URL}",
                                 f"repository {REPO_URL}", "404")
    assert "run again" in line
    assert not system.source_list.exists()
    assert not system.keyring.exists()
    assert system.calls("apt-get") == [] and system.calls("gpg") == []


def test_download_that_is_not_a_key_writes_nothing(system: FakeSystem):
    result = system.run(FAKE_CURL_BODY="<html>503 Service Unavailable</html>")
    assert_one_line_error(result, f"{KEY_URL} (key of the repository {REPO_URL}) is not an "
                                  "OpenPGP key")
    assert not system.source_list.exists()
    assert not system.keyring.exists()
    assert system.calls("apt-get") == []


def test_run_after_a_failed_key_download_fetches_again(system: FakeSystem):
    assert system.run(FAKE_CURL_FAIL="1").returncode != 0

    result = system.run()
    assert result.returncode == 0, result.stderr
    assert len(system.calls("curl")) == 1
    assert system.keyring.read_text().startswith("FAKE DEARMORED KEY")
    assert system.source_list.exists()
    assert [c.split()[3] for c in system.calls("apt-get")] == ["update", "install"]


def test_failed_update_names_repository_and_key_and_next_run_fetches_the_key(system: FakeSystem):
    result = system.run(FAKE_APT_FAIL_UPDATE="1")
    assert_one_line_error(result, f"apt-get update failed with the repository {REPO_URL}",
                          f"key {KEY_URL}", "EXPKEYSIG", "run again")
    assert not system.keyring.exists() and not system.source_list.exists()

    again = system.run()
    assert again.returncode == 0, again.stderr
    assert len(system.calls("curl")) == 1
    assert system.source_list.exists()


def test_failed_package_install_names_repository_and_key(system: FakeSystem):
    result = system.run(FAKE_APT_FAIL_INSTALL="1")
    assert_one_line_error(result, f"could not install {' '.join(PACKAGES)} from {REPO_URL}",
                          f"key {KEY_URL}", "E: Unable to locate package p4lang-bmv2",
                          "mrclab-provision.log")


def test_tools_missing_after_install_is_a_one_line_error(system: FakeSystem):
    result = system.run(FAKE_APT_NO_TOOLS="1")
    assert_one_line_error(result, " ".join(TOOLS) + " not on PATH")


def test_refuses_without_root_outside_a_dry_run():
    script = SCRIPT
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("setpriv missing: cannot drop root to test this")
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        # the unprivileged user may not read the checkout (a 0700 home or mktemp -d): it
        # runs a copy in a folder of its own (pytest's tmp_path is 0700 too)
        readable = Path(tempfile.mkdtemp(prefix="provision-vm-"))
        readable.chmod(0o755)
        script = readable / SCRIPT.name
        shutil.copy(SCRIPT, script)
        script.chmod(0o755)
    else:
        cmd = []
    try:
        result = subprocess.run([*cmd, "/bin/bash", str(script)],
                                env={"PATH": os.environ["PATH"]}, capture_output=True,
                                text=True, timeout=60, cwd="/")
    finally:
        if script != SCRIPT:
            shutil.rmtree(script.parent)
    assert_one_line_error(result, "must run as root")


# --- the Vagrantfile ----------------------------------------------------------------------

# Loads the Vagrantfile with a stand-in for Vagrant that records the configuration as JSON.
RUBY_RECORDER = r"""
require "json"

module Vagrant
  CONFIG = { "vm" => {}, "providers" => {}, "synced_folders" => [], "provision" => [] }

  class Attrs
    def initialize(hash)
      @hash = hash
    end

    def method_missing(name, *args)
      return super unless name.to_s.end_with?("=")
      @hash[name.to_s.chomp("=")] = args.first
    end

    def respond_to_missing?(name, include_private = false)
      name.to_s.end_with?("=") || super
    end
  end

  class VM < Attrs
    def synced_folder(src, dst, **opts)
      CONFIG["synced_folders"] << { "src" => src, "dst" => dst, "opts" => opts }
    end

    def provider(name)
      yield Attrs.new(CONFIG["providers"][name] ||= {})
    end

    def provision(type, **opts)
      CONFIG["provision"] << opts.merge(type: type)
    end
  end

  class Config
    def vm
      @vm ||= VM.new(CONFIG["vm"])
    end
  end

  def self.configure(version)
    raise "config version #{version}" unless version == "2"
    yield Config.new
  end
end

load ARGV[0]
puts JSON.generate(Vagrant::CONFIG)
"""


def need_ruby() -> str:
    ruby = shutil.which("ruby")
    if not ruby:
        pytest.skip("ruby is not installed, so the Vagrantfile cannot be parsed here "
                    "(apt-get install ruby)")
    return ruby


def load_vagrantfile(vagrantfile: Path, tmp_path: Path) -> dict:
    recorder = tmp_path / "recorder.rb"
    recorder.write_text(RUBY_RECORDER)
    result = subprocess.run([need_ruby(), str(recorder), str(vagrantfile)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_vagrantfile_pins_the_box_and_provisions_with_files_that_exist():
    """Without ruby, at least what the Vagrantfile names: the box, its version, the scripts."""
    text = VAGRANTFILE.read_text()
    assert re.search(r'^BOX = "bento/ubuntu-22\.04"$', text, re.M)
    assert re.search(r'^BOX_VERSION = "\d{6}\.\d{2}\.\d+"$', text, re.M)
    scripts = re.findall(r'path: "([^"]+)"', text) + re.findall(r"/vagrant/(scripts/\S+?)\"",
                                                                text)
    assert scripts == ["scripts/provision-vm.sh", "scripts/setup.sh"]
    assert all((ROOT / script).is_file() for script in scripts)
    assert not re.search(r'\.name = "', text)    # no fixed VM name


def test_vagrantfile_parses():
    result = subprocess.run([need_ruby(), "-c", str(VAGRANTFILE)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Syntax OK" in result.stdout


def test_vagrantfile_config(tmp_path: Path):
    config = load_vagrantfile(VAGRANTFILE, tmp_path)
    assert config["vm"]["box"] == "bento/ubuntu-22.04"
    assert re.fullmatch(r"\d{6}\.\d{2}\.\d+", config["vm"]["box_version"])

    [folder] = config["synced_folders"]
    assert (folder["src"], folder["dst"], folder["opts"]["type"]) == (".", "/vagrant", "rsync")
    for kept_out in (".venv/", "build/", "*.egg-info/"):
        assert kept_out in folder["opts"]["rsync__exclude"]

    first, second = config["provision"]
    assert (first["type"], first["path"]) == ("shell", "scripts/provision-vm.sh")
    assert "inline" not in first
    assert (second["type"], second["inline"]) == ("shell", "bash /vagrant/scripts/setup.sh")
    assert (ROOT / first["path"]).is_file()


def test_two_checkouts_get_two_vm_names(tmp_path: Path):
    names = []
    for checkout in ("one/mrclab", "two/mrclab"):
        copy = tmp_path / checkout / "Vagrantfile"
        copy.parent.mkdir(parents=True)
        shutil.copy(VAGRANTFILE, copy)
        providers = load_vagrantfile(copy, tmp_path)["providers"]
        assert providers["libvirt"]["default_prefix"] == providers["virtualbox"]["name"] + "_"
        names.append(providers["virtualbox"]["name"])
    assert names[0] != names[1]
    assert all(name.startswith("mrclab-mrclab-") for name in names)
    # The same checkout keeps its name from one run to the next.
    assert load_vagrantfile(tmp_path / "one/mrclab/Vagrantfile", tmp_path)["providers"][
        "virtualbox"]["name"] == names[0]


def test_vagrant_validates_the_vagrantfile(tmp_path: Path):
    vagrant = shutil.which("vagrant")
    if not vagrant:
        pytest.skip("vagrant is not installed (apt-get install vagrant)")
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(VAGRANTFILE, checkout / "Vagrantfile")
    shutil.copy(SCRIPT, checkout / "scripts" / SCRIPT.name)
    env = {**os.environ, "VAGRANT_HOME": str(tmp_path / "vagrant.d"),
           "VAGRANT_CHECKPOINT_DISABLE": "1"}
    result = subprocess.run([vagrant, "validate", "--ignore-provider"], cwd=checkout, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "validated successfully" in result.stdout
