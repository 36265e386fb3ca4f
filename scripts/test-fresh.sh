#!/usr/bin/env bash
# `npm run test:fresh [-- COMMAND...]`: a new contributor's first `npm test`, rehearsed in minutes.
#
# Clones this repository's HEAD (committed work only) into a temporary folder and runs CI's
# command there (`bash .ci/run`, i.e. `npm test`) as on a machine where nothing has run before:
# CI=true, an empty HOME (no ~/.npmrc, ~/.gitconfig, ~/.cache), a new npm cache (the installs come
# from the registry again), a new TMPDIR (no jest cache), and none of the npm_* settings of the npm
# that started this script or the XDG folders. The rest of the environment stays: it is the
# machine's network (proxies, NODE_EXTRA_CA_CERTS), which a new contributor's machine has too.
# Only the pinned n8n hosts and the local npm registry are reused, from the cache
# scripts/n8n-host.sh keeps (N8N_HOST_CACHE, default ~/.cache/n8n-nodes-document-signing), since
# installing them takes about 20 minutes and they come from committed lockfiles; Chromium is the
# machine's own package either way.
#
# With a COMMAND, runs it in the clone instead, after installing the dependencies
# (`npm run test:fresh -- npx jest test/release`). The clone is removed afterwards unless
# TEST_FRESH_KEEP=1. Exits with the command's status.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "test:fresh: $*" >&2; }

host_cache="${N8N_HOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-document-signing}"
host_cache="$(mkdir -p "$host_cache" && cd "$host_cache" && pwd)"
if ! compgen -G "$host_cache/n8n-host-*/.n8n-host-ready" >/dev/null; then
	say "no installed n8n host in $host_cache: the run installs them there (about 20 minutes, once)"
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	say "warning: uncommitted changes are not part of the rehearsal (it clones HEAD)"
fi

fresh="$(mktemp -d "${TMPDIR:-/tmp}/test-fresh-XXXXXX")"
cleanup() {
	if [ "${TEST_FRESH_KEEP:-}" = 1 ]; then
		say "kept $fresh"
	else
		rm -rf -- "$fresh"
	fi
}
trap cleanup EXIT
mkdir -p "$fresh/home" "$fresh/tmp"
# As a machine's /tmp: other users (PostgreSQL's, for the queue suite) may reach folders in it.
chmod 0755 "$fresh"
chmod 1777 "$fresh/tmp"
git clone --quiet --no-hardlinks "$PWD" "$fresh/clone"
say "$(git -C "$fresh/clone" log -1 --format='%h %s') in $fresh/clone"

if [ $# -eq 0 ]; then
	set -- bash .ci/run
else
	set -- bash -c 'bash scripts/ensure-deps.sh && exec "$@"' test-fresh "$@"
fi

# What earlier runs on this machine and the calling npm leave in the environment.
forget=()
for name in $(compgen -e); do
	case "$name" in
	npm_* | NPM_* | XDG_* | INIT_CWD | NODE_OPTIONS) forget+=(-u "$name") ;;
	esac
done

started=$SECONDS
status=0
(
	cd "$fresh/clone"
	exec env "${forget[@]}" \
		HOME="$fresh/home" \
		TMPDIR="$fresh/tmp" \
		CI=true \
		N8N_HOST_CACHE="$host_cache" \
		"$@"
) || status=$?
say "exit $status after $((SECONDS - started)) s"
exit "$status"
