#!/usr/bin/env bash
# `npm test`: every check, from a fresh clone. Installs what is missing, then lint (code and GitHub
# workflows), the Prettier format check, type check, build, n8n's community-package scan of the source and the packed package,
# the unit/contract/routing-engine suite and the real-n8n suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
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
if [ -f e2e/jest.config.js ]; then
  bash scripts/e2e-prereqs.sh
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
