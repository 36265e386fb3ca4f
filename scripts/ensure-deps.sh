#!/usr/bin/env bash
# Installs the project's devDependencies from the lockfile when they are missing or stale, so the
# README's commands work on a fresh machine. Install scripts stay off (.npmrc): none is needed, and
# one of n8n's lint plugins has a preinstall that refuses npm.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.lockfile-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "Installing dependencies from package-lock.json…"
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi
