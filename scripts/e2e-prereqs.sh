#!/usr/bin/env bash
# What the real-n8n suite needs besides node_modules: the pinned n8n (cached outside the clone)
# and Debian's Chromium for the signing-page test. Safe to run again: each step checks first.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x scripts/n8n-host.sh ]; then bash scripts/n8n-host.sh ensure >/dev/null; fi
if ! command -v chromium >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the end-to-end signing test…"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi
fi
