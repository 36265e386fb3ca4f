#!/usr/bin/env bash
# What the real-n8n suite needs besides node_modules: the pinned n8n hosts (2.41.1 for every
# suite, 1.123.x and 1.110.1 for the compatibility suite; cached outside the clone), the local npm
# registry of the install suite (Verdaccio, scripts/registry-host.sh; cached there too)
# and Debian's Chromium (/usr/bin/chromium) for the signing-page test. Safe to run again: each
# step checks first, so a machine that has both does nothing here.
#
# Chromium comes from Debian's own packages (never a browser build that playwright downloads),
# installed non-interactively: as root directly, otherwise through `sudo -n` (no password prompt;
# without it the script says what to run). Without recommends, plus a font so pages render text.
set -euo pipefail
cd "$(dirname "$0")/.."

# The hosts install side by side (each under its own lock; npm's cache takes concurrent installs):
# on a new machine most of their time is downloading and unpacking, not compiling.
installs=()
if [ -f scripts/n8n-host.sh ]; then
	for generation in 2 1 1.110; do
		bash scripts/n8n-host.sh ensure "$generation" >/dev/null &
		installs+=($!)
	done
fi
if [ -f scripts/registry-host.sh ]; then
	bash scripts/registry-host.sh ensure >/dev/null &
	installs+=($!)
fi
failed=0
for install in "${installs[@]}"; do wait "$install" || failed=1; done
[ "$failed" = 0 ] || {
	echo "e2e-prereqs: an install failed (its log is named above)" >&2
	exit 1
}

CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ] && "$CHROMIUM" --version >/dev/null 2>&1; then
	exit 0
fi

SCRIPT_NAME=e2e-prereqs
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
apt_install chromium fonts-liberation
"$CHROMIUM" --version >&2 || die "$CHROMIUM does not run after the install"
