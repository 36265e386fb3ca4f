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

die() {
	echo "redis.sh: error: $*" >&2
	exit 1
}

REDIS_SERVER=/usr/bin/redis-server
REDIS_CLI=/usr/bin/redis-cli

ensure() {
	if [[ -x "$REDIS_SERVER" && -x "$REDIS_CLI" ]]; then return 0; fi
	local as_root=()
	if [[ "$(id -u)" != 0 ]]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			as_root=(sudo -n)
		else
			die "$REDIS_SERVER is missing and this user cannot install packages; run as root: apt-get update && apt-get install -y --no-install-recommends redis-server"
		fi
	fi
	command -v apt-get >/dev/null 2>&1 || die "no apt-get: install Redis (Debian/Ubuntu package redis-server) so that $REDIS_SERVER exists"
	echo "redis.sh: installing Debian's redis-server ..." >&2
	local apt_opts=(-y -q -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
	local log
	log=$(mktemp)
	run() {
		if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=a "$@" >"$log" 2>&1 </dev/null; then
			echo "redis.sh: failed: $*" >&2
			tail -n 30 "$log" | sed 's/^/  | /' >&2
			rm -f "$log"
			return 1
		fi
	}
	# A fresh machine's package lists are empty or stale: update first (once more on failure).
	run apt-get "${apt_opts[@]}" update || { sleep 5 && run apt-get "${apt_opts[@]}" update; }
	run apt-get "${apt_opts[@]}" install --no-install-recommends redis-server
	rm -f "$log"
	[[ -x "$REDIS_SERVER" && -x "$REDIS_CLI" ]] || die "redis-server is installed but $REDIS_SERVER or $REDIS_CLI is missing"
}

port_in_use() {
	# A connection that succeeds means something listens there.
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pick_port() {
	local port
	for _ in $(seq 1 50); do
		port=$((20000 + RANDOM % 40000))
		if ! port_in_use "$port"; then
			echo "$port"
			return 0
		fi
	done
	die "no free port found"
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

case "${1:-}" in
ensure) ensure ;;
start)
	[[ -n "${2:-}" ]] || die "usage: $0 start DIR"
	start "$2"
	;;
stop)
	[[ -n "${2:-}" ]] || die "usage: $0 stop DIR"
	stop "$2"
	;;
*) die "usage: $0 ensure | start DIR | stop DIR" ;;
esac
