#!/usr/bin/env bash
# `npm test`: every check, from a fresh clone. Installs what is missing, then lint (code and GitHub
# workflows), the Prettier format check, type check, build, n8n's community-package scan of the source and the packed package,
# the unit/contract/routing-engine suite and the real-n8n suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
# The real-n8n suites' prerequisites (the pinned n8n hosts, the local registry, Chromium: minutes
# on a new machine, nothing on one that has them) install meanwhile, while the checks and the
# unit suite run.
prereqs_log=$(mktemp)
prereqs=
if [ -f e2e/jest.config.js ]; then
  bash scripts/e2e-prereqs.sh >"$prereqs_log" 2>&1 &
  prereqs=$!
fi
npm run --silent lint
npm run --silent format:check
npm run --silent lint:workflows
npm run --silent typecheck
npm run --silent build
npm run --silent scan

reports=$(mktemp -d)
status=0
npx jest --ci --json --outputFile="$reports/unit.json" || status=$?
npx ts-node --transpile-only scripts/jest-summary.ts "$reports/unit.json" unit
if [ -n "$prereqs" ]; then
  if ! wait "$prereqs"; then
    cat "$prereqs_log" >&2
    echo "npm test: the real-n8n suites' prerequisites did not install (scripts/e2e-prereqs.sh)" >&2
    exit 1
  fi
  npx jest -c e2e/jest.config.js --ci --json --outputFile="$reports/e2e.json" || status=$?
  npx ts-node --transpile-only scripts/jest-summary.ts "$reports/e2e.json" e2e
  npx jest -c reliability/jest.config.js --ci --json --outputFile="$reports/reliability.json" || status=$?
  npx ts-node --transpile-only scripts/jest-summary.ts "$reports/reliability.json" reliability
fi
if [ -f e2e/queue/jest.config.js ]; then
  npx jest -c e2e/queue/jest.config.js --ci --json --outputFile="$reports/queue.json" || status=$?
  npx ts-node --transpile-only scripts/jest-summary.ts "$reports/queue.json" queue
fi
exit $status
