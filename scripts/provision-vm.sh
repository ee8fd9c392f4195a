#!/usr/bin/env bash
# Provisions the MRC Lab Vagrant VM with the real P4 toolchain: p4c (p4c-bm2-ss), BMv2
# (simple_switch_grpc, simple_switch_CLI) and PI, from p4lang's package repository on the
# openSUSE Build Service. That repository has them for Ubuntu 22.04 only (no p4lang-bmv2 for
# 24.04, whose Thrift is too new for the packages), so this script refuses anything else.
# The Vagrantfile runs it as root before scripts/setup.sh; running it again is safe.
#
# Order: the repository key is downloaded and checked before the apt source that needs it is
# written, so a failed download never leaves a source behind, and the next run downloads
# again (a run never skips the key because a source file exists).
#
# Every external command is looked up on PATH, and these variables move what the script
# reads and writes (tests/unit/foundation/test_provision_vm.py uses them for dry runs):
#   PROVISION_ROOT          prefix for the /etc and /var paths (default: none, the real ones)
#   PROVISION_OS_RELEASE    os-release file (default: $PROVISION_ROOT/etc/os-release)
#   PROVISION_LOCK_TIMEOUT  seconds to wait for the apt/dpkg lock (default: 600)
#   PROVISION_LOCK_POLL     seconds between two looks at the lock (default: 5)
#   PROVISION_OBS_URL       p4lang's repository root (default: the openSUSE Build Service)
#   PROVISION_LOG           apt's output (default: $PROVISION_ROOT/var/log/mrclab-provision.log)
set -euo pipefail

P="${PROVISION_ROOT:-}"
OS_RELEASE="${PROVISION_OS_RELEASE:-$P/etc/os-release}"
LOCK_TIMEOUT="${PROVISION_LOCK_TIMEOUT:-600}"
LOCK_POLL="${PROVISION_LOCK_POLL:-5}"
LOG="${PROVISION_LOG:-$P/var/log/mrclab-provision.log}"

SUPPORTED="Ubuntu 22.04 (box bento/ubuntu-22.04), the one release p4lang publishes p4c, BMv2 and PI packages for"
REPO_URL="${PROVISION_OBS_URL:-https://download.opensuse.org/repositories/home:/p4lang}/xUbuntu_22.04"
KEY_URL="$REPO_URL/Release.key"
KEYRING_PATH=/etc/apt/keyrings/home-p4lang.gpg    # as apt sees it, named in the source
KEYRING="$P$KEYRING_PATH"
SOURCE_LIST="$P/etc/apt/sources.list.d/home-p4lang.list"
PACKAGES=(p4lang-p4c p4lang-bmv2 p4lang-pi)
TOOLS=(p4c-bm2-ss simple_switch_grpc simple_switch_CLI)
LOCK_FILES=("$P/var/lib/dpkg/lock-frontend" "$P/var/lib/dpkg/lock"
            "$P/var/lib/apt/lists/lock" "$P/var/cache/apt/archives/lock")

die() { echo "provision-vm.sh: $*" >&2; exit 1; }
say() { echo "provision-vm.sh: $*"; }

if [ -z "$P" ] && [ "$(id -u)" -ne 0 ]; then
    die "must run as root (vagrant provision runs it so)"
fi

# --- the release --------------------------------------------------------------------------
[ -r "$OS_RELEASE" ] || die "cannot read $OS_RELEASE; supported: $SUPPORTED"
# shellcheck disable=SC1090
release="$(. "$OS_RELEASE"; echo "${ID:-}:${VERSION_ID:-}")"
# shellcheck disable=SC1090
pretty="$(. "$OS_RELEASE"; echo "${PRETTY_NAME:-${ID:-unknown} ${VERSION_ID:-}}")"
[ "$release" = "ubuntu:22.04" ] || die "unsupported release '$pretty'; supported: $SUPPORTED"

mkdir -p "$(dirname "$LOG")"
: >"$LOG"

# --- apt, once the lock is free -----------------------------------------------------------
# unattended-upgrades holds the lock for minutes after a first boot. fuser shows the holder
# of any lock; apt's own Lock::Timeout covers the race between that look and apt starting.
wait_for_apt_lock() {
    command -v fuser >/dev/null 2>&1 || return 0
    local start=$SECONDS announced=0
    while fuser "${LOCK_FILES[@]}" >/dev/null 2>&1; do
        if (( SECONDS - start >= LOCK_TIMEOUT )); then
            die "apt/dpkg still locked after ${LOCK_TIMEOUT}s (unattended-upgrades?); let it finish, then run 'vagrant provision' again"
        fi
        if [ "$announced" -eq 0 ]; then
            say "waiting up to ${LOCK_TIMEOUT}s for the apt/dpkg lock (unattended upgrades run after a first boot)"
            announced=1
        fi
        sleep "$LOCK_POLL"
    done
}

apt_get() {
    wait_for_apt_lock
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$LOCK_TIMEOUT" "$@" >>"$LOG" 2>&1
}

last_apt_error() {
    local line
    line="$(grep -E '^(E|Err|W):' "$LOG" | tail -n 1 || true)"
    echo "${line:-no message}"
}

# --- the repository key, then the source --------------------------------------------------
key_ok() {
    [ -s "$KEYRING" ] && gpg --batch --show-keys "$KEYRING" >/dev/null 2>&1
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GNUPGHOME="$work/gnupg"     # gpg's scratch state stays out of root's home
mkdir -m 700 "$GNUPGHOME"

if key_ok; then
    say "key for $REPO_URL already in $KEYRING_PATH"
else
    # A source without its key makes every apt-get update fail: take it away until the key
    # is back.
    rm -f "$SOURCE_LIST"
    if ! command -v curl >/dev/null 2>&1 || ! command -v gpg >/dev/null 2>&1; then
        say "installing curl, gnupg, ca-certificates"
        apt_get update -qq || die "apt-get update failed: $(last_apt_error); see $LOG"
        apt_get install -y -qq curl gnupg ca-certificates \
            || die "could not install curl, gnupg, ca-certificates: $(last_apt_error); see $LOG"
    fi
    say "fetching the key of $REPO_URL"
    curl -fsSL --retry 3 --retry-delay 2 --connect-timeout 20 -o "$work/Release.key" "$KEY_URL" \
            2>"$work/curl.err" \
        || die "could not download the key $KEY_URL for the repository $REPO_URL: $(tail -n 1 "$work/curl.err"); nothing written, run again"
    gpg --batch --show-keys "$work/Release.key" >/dev/null 2>&1 \
        || die "$KEY_URL (key of the repository $REPO_URL) is not an OpenPGP key; nothing written, run again"
    mkdir -p "$(dirname "$KEYRING")"
    gpg --batch --yes --dearmor -o "$work/keyring.gpg" "$work/Release.key" \
        || die "could not dearmor $KEY_URL (key of the repository $REPO_URL)"
    install -m 0644 "$work/keyring.gpg" "$KEYRING"
    key_ok || die "$KEYRING_PATH, dearmored from $KEY_URL, is not a readable keyring"
fi

mkdir -p "$(dirname "$SOURCE_LIST")"
echo "deb [signed-by=$KEYRING_PATH] $REPO_URL/ /" >"$work/source.list"
install -m 0644 "$work/source.list" "$SOURCE_LIST"

# --- the packages -------------------------------------------------------------------------
missing_tools() {
    local tool
    for tool in "${TOOLS[@]}"; do
        command -v "$tool" >/dev/null 2>&1 || echo "$tool"
    done
}

if [ -z "$(missing_tools)" ]; then
    say "${PACKAGES[*]} already installed"
else
    say "installing ${PACKAGES[*]} from $REPO_URL"
    if ! apt_get update -qq; then
        # An expired or replaced key fails here too: drop key and source, so that the next
        # run fetches the key again instead of trusting the one it has.
        rm -f "$KEYRING" "$SOURCE_LIST"
        die "apt-get update failed with the repository $REPO_URL (key $KEY_URL): $(last_apt_error); see $LOG, then run again"
    fi
    apt_get install -y -qq "${PACKAGES[@]}" \
        || die "could not install ${PACKAGES[*]} from $REPO_URL (key $KEY_URL): $(last_apt_error); see $LOG"
fi

still_missing="$(missing_tools | tr '\n' ' ')"
[ -z "$still_missing" ] \
    || die "${PACKAGES[*]} are installed but ${still_missing% } not on PATH (packages from $REPO_URL changed?)"

versions="$(dpkg-query -W -f='${Package} ${Version}, ' "${PACKAGES[@]}" 2>/dev/null || true)"
say "ready: ${versions%, }"
