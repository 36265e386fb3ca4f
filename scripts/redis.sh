#!/usr/bin/env bash
# A private Redis for the queue-mode end-to-end suite (e2e/queue): Debian's redis-server, bound to
# 127.0.0.1 on a free port, in its own folder, without persistence (no RDB snapshots, no AOF).
#
# Usage:
#   scripts/redis.sh ensure       install Debian's redis-server if it is missing (nothing else)
#   scripts/redis.sh start DIR    ensure, then start an instance whose files live in DIR (created;
#                                 must not hold a running instance); prints its port, the only
#                                 line on stdout, once it answers PING
#   scripts/redis.sh stop DIR     stop the instance of DIR (SHUTDOWN NOSAVE, then SIGKILL after
#                                 10 s) and remove DIR; does nothing when none runs there
#
# The package comes from Debian's archive, installed non-interactively: as root directly, otherwise
# through `sudo -n` (no password prompt; without it the script says what to run). The instance is
# a daemon (its pid in DIR/redis.pid), so whoever starts it stops it: the suite's harness does, also
# when its process exits early. Environment: REDIS_PORT (default: a free port of 20000-59999).
set -euo pipefail
SCRIPT_NAME=redis.sh
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

REDIS_SERVER=/usr/bin/redis-server
REDIS_CLI=/usr/bin/redis-cli

ensure() {
	if [[ -x "$REDIS_SERVER" && -x "$REDIS_CLI" ]]; then return 0; fi
	apt_install redis-server
	[[ -x "$REDIS_SERVER" && -x "$REDIS_CLI" ]] || die "redis-server is installed but $REDIS_SERVER or $REDIS_CLI is missing"
}

running_pid() {
	local dir="$1" pid
	[[ -f "$dir/redis.pid" ]] || return 1
	pid=$(cat "$dir/redis.pid" 2>/dev/null) || return 1
	[[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

start() {
	local dir="$1"
	ensure
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	if running_pid "$dir" >/dev/null; then die "an instance already runs in $dir"; fi
	local attempt port
	for attempt in 1 2 3 4 5; do
		port="${REDIS_PORT:-$(pick_port)}"
		rm -f "$dir/redis.pid" "$dir/port"
		# No config file: everything on the command line. No persistence at all, loopback only.
		if "$REDIS_SERVER" --bind 127.0.0.1 --port "$port" --protected-mode yes \
			--save '' --appendonly no --dir "$dir" --dbfilename dump.rdb \
			--daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
			--loglevel notice --databases 2 >/dev/null 2>&1; then
			local deadline=$((SECONDS + 15))
			while ((SECONDS < deadline)); do
				if [[ "$("$REDIS_CLI" -h 127.0.0.1 -p "$port" ping 2>/dev/null)" == PONG ]]; then
					echo "$port" >"$dir/port"
					echo "$port"
					return 0
				fi
				# Gone already (e.g. the port was taken meanwhile): try another port.
				if [[ -f "$dir/redis.pid" ]] && ! running_pid "$dir" >/dev/null; then break; fi
				sleep 0.1
			done
			stop_instance "$dir"
		fi
		[[ -n "${REDIS_PORT:-}" ]] && break
		echo "redis.sh: start on port $port failed (attempt $attempt), trying another port" >&2
	done
	echo "redis.sh: last lines of $dir/redis.log:" >&2
	tail -n 20 "$dir/redis.log" 2>/dev/null | sed 's/^/  | /' >&2 || true
	die "could not start redis-server in $dir"
}

stop_instance() {
	local dir="$1" pid port
	pid=$(running_pid "$dir") || return 0
	port=$(cat "$dir/port" 2>/dev/null || true)
	if [[ -n "$port" ]]; then
		"$REDIS_CLI" -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
	else
		kill -TERM "$pid" 2>/dev/null || true
	fi
	local deadline=$((SECONDS + 10))
	while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
}

stop() {
	local dir="$1"
	[[ -d "$dir" ]] || return 0
	stop_instance "$dir"
	rm -rf "$dir"
}

server_main "$@"
