#!/usr/bin/env bash
# One-command setup of MRC Lab on Debian 12 or Ubuntu 22.04/24.04, run as root.
#
# Installs the system packages the lab and its tests use, makes .venv from Debian's
# Python (with --system-site-packages, because Mininet's module lives there) and installs
# the project into it in editable mode. Idempotent: a stamp records what was installed,
# so a second run only checks and returns.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
STAMP="$VENV/.mrclab-setup"

APT_PACKAGES=(
    mininet openvswitch-switch bridge-utils iproute2 iputils-ping ethtool tcpdump
    iperf3 net-tools procps psmisc kmod nftables make git
    # fping: all-pairs reachability, every host pinging its targets paced (k=8: 16k pairs)
    fping
    python3-venv python3-dev gcc
    # tshark runs the Wireshark dissector's tests (tools/wireshark/mrc.lua)
    tshark
    # the VM provisioning tests: shell lint, a real gpg, and Ruby/Vagrant to parse and
    # validate the Vagrantfile
    shellcheck gnupg ruby vagrant
)

P4RUNTIME_SHELL=0.0.6  # installed without its dependencies (see pyproject.toml)

die() { echo "setup.sh: $*" >&2; exit 1; }
say() { echo "setup.sh: $*"; }

[ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo make test)"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: only Debian 12 and Ubuntu 22.04/24.04 are supported"
OS_RELEASE="${MRCLAB_OS_RELEASE:-/etc/os-release}"  # overridable for the setup tests
[ -r "$OS_RELEASE" ] || die "cannot read $OS_RELEASE: unsupported OS"
# shellcheck disable=SC1090
. "$OS_RELEASE"
case "${ID:-}:${VERSION_ID:-}" in
    debian:12|ubuntu:24.04) PYTHON=/usr/bin/python3 ;;
    # 22.04's python3 is 3.10; MRC Lab needs 3.11, which 22.04 ships as python3.11.
    ubuntu:22.04) PYTHON=/usr/bin/python3.11; APT_PACKAGES+=(python3.11 python3.11-venv python3.11-dev) ;;
    *) die "unsupported OS '${PRETTY_NAME:-unknown}': need Debian 12 or Ubuntu 22.04/24.04" ;;
esac

# The stamp covers everything that decides what gets installed.
want_stamp="$(cat "$ROOT/pyproject.toml" "$ROOT/scripts/setup.sh" "$ROOT/scripts/p4runtime_protos.py" \
    | sha256sum | cut -d' ' -f1) ${APT_PACKAGES[*]}"

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ] && [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] \
        && [ "$(cat "$STAMP")" = "$want_stamp" ]; then
    say "up to date (${PRETTY_NAME}, $("$VENV/bin/python" --version))"
    exit 0
fi

if [ ${#missing[@]} -gt 0 ]; then
    say "installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/tmp/mrclab-apt.log 2>&1 \
        || die "apt-get update failed (no network or no reachable mirror?); see /tmp/mrclab-apt.log"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/mrclab-apt.log 2>&1 \
        || die "apt-get install failed for: ${missing[*]}; see /tmp/mrclab-apt.log"
fi

[ -x "$PYTHON" ] || die "$PYTHON not found after installing packages"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$PYTHON is $("$PYTHON" --version 2>&1); MRC Lab needs Python >= 3.11"
"$PYTHON" -c 'import mininet.net' 2>/dev/null \
    || die "Mininet's Python module is not importable by $PYTHON (is the mininet package installed?)"

if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV from $PYTHON (--system-site-packages, for Mininet)"
    "$PYTHON" -m venv --system-site-packages "$VENV" || die "could not create $VENV"
fi

say "installing MRC Lab into $VENV (editable, with dev tools)"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e "${ROOT}[dev]" \
    >/tmp/mrclab-pip.log 2>&1 \
    || die "pip install failed (no network or no reachable package index?); see /tmp/mrclab-pip.log"
# p4runtime-shell pins a protobuf older than the one above (pyproject.toml says why)
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "p4runtime-shell==$P4RUNTIME_SHELL" \
    >>/tmp/mrclab-pip.log 2>&1 \
    || die "pip install p4runtime-shell==$P4RUNTIME_SHELL failed; see /tmp/mrclab-pip.log"
"$VENV/bin/python" "$ROOT/scripts/p4runtime_protos.py" >>/tmp/mrclab-pip.log 2>&1 \
    || die "could not rewrite p4runtime's protobuf modules; see /tmp/mrclab-pip.log"
"$VENV/bin/python" -c 'import mininet.net, grpc, scapy, p4.v1.p4runtime_pb2, p4runtime_sh' \
    || die "the venv cannot import its dependencies; see /tmp/mrclab-pip.log"
# The endpoint's per-packet modules compiled by mypyc (a dev dependency) into a cache outside
# the tree, from the same sources (mrclab/endpoint/compiled.py). Without the build the
# pure-Python endpoint runs, so a failure only warns; `make endpoint` rebuilds after the
# sources change (a stale build is never used).
say "compiling the endpoint's per-packet modules (mypyc; python -m mrclab.endpoint.accelerate build)"
"$VENV/bin/python" -m mrclab.endpoint.accelerate build --quiet >/tmp/mrclab-endpoint-build.log 2>&1 \
    || say "warning: the compiled endpoint did not build, the pure-Python one runs; see /tmp/mrclab-endpoint-build.log"

echo "$want_stamp" >"$STAMP"
say "done (${PRETTY_NAME}, $("$VENV/bin/python" --version))"
