#!/usr/bin/env bash
# Installs and caches the local npm registry (Verdaccio 6) of the install suite
# (e2e/install.e2e.test.ts): e2e/registry-host's package.json + committed package-lock.json,
# installed into a cache outside the clone, one folder per lockfile, like scripts/n8n-host.sh:
#
#   ${N8N_HOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-document-signing}/registry-host-<sha256(lockfile):16>
#
# Verdaccio 6 needs Node >= 22: it runs on the n8n host's Node 24 (e2e/harness/registry.ts). Its
# dependencies have no install scripts, so the install is `npm ci --ignore-scripts` with whatever
# npm is on PATH. The lockfile carries the npm override `node-fetch@cjs: 2.7.0` (the registry
# here lacks that dist-tag, which one of Verdaccio's dependencies asks for).
#
# The install is done in a temporary folder next to the entry, renamed into place when complete,
# with a completion marker written last; concurrent callers are serialised with flock.
#
# Usage:
#   scripts/registry-host.sh ensure   install if needed; print the folder (the only line on stdout)
#   scripts/registry-host.sh dir      print where the folder is (or would be); install nothing
#
# `ensure` stamps its entry's .last-used and removes entries of other lockfiles unused for
# N8N_HOST_CACHE_MAX_AGE_DAYS days (default 30; 0 keeps them), unless another process holds their lock.
#
# Environment: N8N_HOST_CACHE (cache root), N8N_HOST_LOCK_TIMEOUT (seconds to wait for another
# caller's install, default 1800), N8N_HOST_CACHE_MAX_AGE_DAYS.
set -euo pipefail

readonly RECIPE=1
readonly MARKER=.registry-host-ready

die() {
	echo "registry-host: error: $*" >&2
	exit 1
}
say() { echo "registry-host: $*" >&2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="$ROOT/e2e/registry-host"
CACHE_ROOT="${N8N_HOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-document-signing}"
LOCK_TIMEOUT="${N8N_HOST_LOCK_TIMEOUT:-1800}"
MAX_AGE_DAYS="${N8N_HOST_CACHE_MAX_AGE_DAYS:-30}"

[[ -f "$SRC/package.json" && -f "$SRC/package-lock.json" ]] || die "missing $SRC/package.json or $SRC/package-lock.json"
HASH="$(sha256sum "$SRC/package-lock.json" | cut -c1-16)"
HOST="$CACHE_ROOT/registry-host-$HASH"

is_ready() {
	[[ -f "$1/$MARKER" ]] && grep -qx "recipe=$RECIPE" "$1/$MARKER" &&
		[[ -f "$1/node_modules/verdaccio/package.json" ]]
}

install_into() {
	local dir="$1"
	cp "$SRC/package.json" "$SRC/package-lock.json" "$SRC/.npmrc" "$dir/"
	cd "$dir"
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >"$dir/registry-host-install.log" 2>&1 || {
		tail -n 30 "$dir/registry-host-install.log" | sed 's/^/  | /' >&2
		return 1
	}
	local version
	version="$(node -p 'require("verdaccio/package.json").version')"
	printf 'recipe=%s\nlockfile=%s\nverdaccio=%s\ninstalled=%s\n' "$RECIPE" "$HASH" "$version" "$(date -u +%FT%TZ)" >"$dir/$MARKER.tmp"
	mv "$dir/$MARKER.tmp" "$dir/$MARKER"
}

prune() {
	[[ "$MAX_AGE_DAYS" =~ ^[0-9]+$ ]] || die "N8N_HOST_CACHE_MAX_AGE_DAYS must be a whole number, got '$MAX_AGE_DAYS'"
	((MAX_AGE_DAYS > 0)) || return 0
	local entry stamp
	for entry in "$CACHE_ROOT"/registry-host-*; do
		[[ -d "$entry" && "$entry" != "$HOST" ]] || continue
		stamp="$entry/.last-used"
		[[ -e "$stamp" ]] || stamp="$entry"
		[[ -n "$(find "$stamp" -maxdepth 0 -mtime +"$((MAX_AGE_DAYS - 1))" 2>/dev/null)" ]] || continue
		(
			flock -n 8 || exit 0
			say "removing cache entry unused for over $MAX_AGE_DAYS days: $entry"
			rm -rf -- "$entry"
		) 8>"$CACHE_ROOT/.$(basename "$entry").lock"
	done
}

ensure() {
	install_if_missing
	touch "$HOST/.last-used" 2>/dev/null || true
	prune || say "warning: pruning old cache entries failed (ignored)"
}

install_if_missing() {
	is_ready "$HOST" && return 0
	mkdir -p "$CACHE_ROOT" || die "cannot create cache folder $CACHE_ROOT"
	command -v flock >/dev/null || die "flock (util-linux) is required"
	exec 9>"$CACHE_ROOT/.registry-host-$HASH.lock"
	flock -w "$LOCK_TIMEOUT" 9 || die "timed out after ${LOCK_TIMEOUT} s waiting for $CACHE_ROOT/.registry-host-$HASH.lock"
	if ! is_ready "$HOST"; then
		command -v npm >/dev/null || die "npm is required to install the registry host"
		local tmp="$CACHE_ROOT/.tmp-registry-host-$HASH-$$" started=$SECONDS rc
		rm -rf -- "$CACHE_ROOT/.tmp-registry-host-$HASH-"* # earlier interrupted attempts (we hold the lock)
		mkdir -p "$tmp"
		say "installing Verdaccio into $HOST"
		set +e
		(
			set -e
			install_into "$tmp"
		)
		rc=$?
		set -e
		((rc == 0)) || die "install failed; partial install kept in $tmp"
		[[ -e "$HOST" ]] && { mv -T -- "$HOST" "$tmp.old" && rm -rf -- "$tmp.old"; }
		mv -T -- "$tmp" "$HOST" || die "could not move $tmp to $HOST"
		is_ready "$HOST" || die "install finished but $HOST is not ready"
		say "registry host ready in $((SECONDS - started)) s: $HOST"
	fi
	exec 9>&-
}

# All in one function, called on the last line, so an edit of this file while it runs changes nothing.
main() {
	case "${1:-}" in
	ensure)
		ensure
		echo "$HOST"
		;;
	dir) echo "$HOST" ;;
	*)
		echo "usage: $0 ensure|dir" >&2
		exit 2
		;;
	esac
}

main "$@"; exit $?
