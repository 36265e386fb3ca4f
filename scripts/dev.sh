#!/usr/bin/env bash
# `npm run dev`: the main job. Builds the package and starts the sandbox API.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
npm run --silent build
exec npx ts-node --transpile-only sandbox/cli.ts "$@"
