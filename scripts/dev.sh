#!/usr/bin/env bash
# `npm run dev`: the main job. Installs the dependencies (first run), builds the package, then runs
# scripts/dev.ts: the sandbox API and a real n8n with this package (installed on first use),
# its data kept in .n8n-dev/. Ctrl-C stops both.
#   N8N_PORT (default 5678), SANDBOX_PORT (default 4010), N8N_DEV_DIR (.n8n-dev), SANDBOX_DATA_FILE
#   (.n8n-dev/sandbox.json), N8N_LOG_LEVEL (info)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
echo "[dev] building the package…"
npm run --silent build
# exec, and ts-node runs in this process: signals reach dev.ts directly.
exec node node_modules/ts-node/dist/bin.js --transpile-only scripts/dev.ts "$@"
