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

if [ -f scripts/n8n-host.sh ]; then
	bash scripts/n8n-host.sh ensure 2 >/dev/null
	bash scripts/n8n-host.sh ensure 1 >/dev/null
	bash scripts/n8n-host.sh ensure 1.110 >/dev/null
fi
if [ -f scripts/registry-host.sh ]; then
	bash scripts/registry-host.sh ensure >/dev/null
fi

CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ] && "$CHROMIUM" --version >/dev/null 2>&1; then
	exit 0
fi

SCRIPT_NAME=e2e-prereqs
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
apt_install chromium fonts-liberation
"$CHROMIUM" --version >&2 || die "$CHROMIUM does not run after the install"
