#!/usr/bin/env bash
# What the real-n8n suite needs besides node_modules: the pinned n8n (cached outside the clone)
# and Debian's Chromium (/usr/bin/chromium) for the signing-page test. Safe to run again: each
# step checks first, so a machine that has both does nothing here.
#
# Chromium comes from Debian's own packages (never a browser build that playwright downloads),
# installed non-interactively: as root directly, otherwise through `sudo -n` (no password prompt;
# without it the script says what to run). Without recommends, plus a font so pages render text.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -f scripts/n8n-host.sh ]; then bash scripts/n8n-host.sh ensure >/dev/null; fi

CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ] && "$CHROMIUM" --version >/dev/null 2>&1; then
	exit 0
fi

echo "Installing Debian's chromium for the end-to-end signing test…" >&2
if [ "$(id -u)" = 0 ]; then
	as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	as_root=(sudo -n)
else
	echo "e2e-prereqs: $CHROMIUM is missing and this user cannot install packages." >&2
	echo "e2e-prereqs: run as root: apt-get update && apt-get install -y --no-install-recommends chromium fonts-liberation" >&2
	exit 1
fi
command -v apt-get >/dev/null 2>&1 || {
	echo "e2e-prereqs: no apt-get: install Chromium so that $CHROMIUM exists (Debian/Ubuntu package 'chromium')" >&2
	exit 1
}

apt_opts=(-y -q -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run() {
	if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=a "$@" >"$log" 2>&1 </dev/null; then
		echo "e2e-prereqs: failed: $*" >&2
		tail -n 30 "$log" | sed 's/^/  | /' >&2
		return 1
	fi
}
# The package lists of a fresh machine are empty or stale: update first (once more on failure).
run apt-get "${apt_opts[@]}" update || { sleep 5 && run apt-get "${apt_opts[@]}" update; }
run apt-get "${apt_opts[@]}" install --no-install-recommends chromium fonts-liberation
"$CHROMIUM" --version >&2 || { echo "e2e-prereqs: $CHROMIUM does not run after the install" >&2; exit 1; }
