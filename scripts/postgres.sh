#!/usr/bin/env bash
# A private PostgreSQL cluster for the queue-mode end-to-end suite (e2e/queue): n8n's queue mode
# needs one database shared by the main process, the workers and the webhook processors, and n8n
# 2.41 supports that only on PostgreSQL ("Scaling mode is not officially supported with sqlite").
#
# Debian's postgresql server, a throw-away cluster made with initdb in its own folder, listening
# on 127.0.0.1 only (port: free one of 20000-59999, or PGPORT_E2E), trust authentication for the
# superuser `n8n`, a database `n8n`, durability switched off (fsync, synchronous_commit,
# full_page_writes): it holds test data only and is removed by `stop`.
#
# Usage:
#   scripts/postgres.sh ensure       install Debian's postgresql if initdb/pg_ctl are missing
#   scripts/postgres.sh start DIR    ensure, then initdb in DIR/data, start, create the database;
#                                    prints the port, the only line on stdout, once it accepts
#                                    connections (connect as user n8n, database n8n, no password)
#   scripts/postgres.sh stop DIR     stop the cluster of DIR (pg_ctl -m fast, then immediate) and
#                                    remove DIR; does nothing when none runs there
#
# PostgreSQL refuses to run as root: run as root, the cluster belongs to the `postgres` user that
# Debian's package creates (commands through runuser), and DIR is handed to it.
set -euo pipefail
SCRIPT_NAME=postgres.sh
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

find_bindir() {
	local dir
	# Debian's layout: /usr/lib/postgresql/<major>/bin; the newest major wins.
	for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" && -x "$dir/postgres" ]]; then
			echo "$dir"
			return 0
		fi
	done
	return 1
}

ensure() {
	if find_bindir >/dev/null; then return 0; fi
	apt_install postgresql
	find_bindir >/dev/null || die "postgresql is installed but no /usr/lib/postgresql/<major>/bin/initdb was found"
}

# Runs a command as the cluster's owner: this user, or `postgres` when this is root.
as_owner() {
	if [[ "$(id -u)" == 0 ]]; then
		id postgres >/dev/null 2>&1 || die "running as root, but there is no 'postgres' user to own the cluster"
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

start() {
	local dir="$1" bindir
	ensure
	bindir=$(find_bindir)
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	[[ -e "$dir/data" ]] && die "$dir/data exists already (stop that cluster first)"
	mkdir -p "$dir/data" "$dir/socket"
	if [[ "$(id -u)" == 0 ]]; then
		chown postgres: "$dir" "$dir/data" "$dir/socket"
		chmod 0755 "$dir"
		# The owner must reach DIR through its parents (a mktemp folder is 0700 root: chmod it 0755).
		runuser -u postgres -- test -x "$dir/data" ||
			die "user postgres cannot reach $dir: every parent folder needs o+x (e.g. chmod 0755 the temporary folder)"
	fi
	local log="$dir/initdb.log"
	if ! as_owner "$bindir/initdb" -D "$dir/data" -U n8n --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
		--no-sync >"$log" 2>&1; then
		tail -n 20 "$log" | sed 's/^/  | /' >&2
		die "initdb failed in $dir/data"
	fi
	local attempt port
	for attempt in 1 2 3 4 5; do
		port="${PGPORT_E2E:-$(pick_port)}"
		if as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start -o \
			"-c listen_addresses=127.0.0.1 -p $port -k $dir/socket -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=64MB" \
			>>"$dir/pg_ctl.log" 2>&1; then
			echo "$port" >"$dir/port"
			if ! as_owner "$bindir/psql" -h 127.0.0.1 -p "$port" -U n8n -d postgres -v ON_ERROR_STOP=1 -q \
				-c 'CREATE DATABASE n8n' >>"$dir/pg_ctl.log" 2>&1; then
				tail -n 20 "$dir/pg_ctl.log" | sed 's/^/  | /' >&2
				stop_cluster "$dir"
				die "could not create the database n8n"
			fi
			echo "$port"
			return 0
		fi
		[[ -n "${PGPORT_E2E:-}" ]] && break
		echo "postgres.sh: start on port $port failed (attempt $attempt), trying another port" >&2
	done
	echo "postgres.sh: last lines of $dir/postgres.log:" >&2
	tail -n 20 "$dir/postgres.log" 2>/dev/null | sed 's/^/  | /' >&2 || true
	die "could not start PostgreSQL in $dir"
}

stop_cluster() {
	local dir="$1" bindir
	[[ -f "$dir/data/postmaster.pid" ]] || return 0
	bindir=$(find_bindir) || return 0
	as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 15 stop >/dev/null 2>&1 ||
		as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 10 stop >/dev/null 2>&1 || true
}

stop() {
	local dir="$1"
	[[ -d "$dir" ]] || return 0
	stop_cluster "$dir"
	rm -rf "$dir"
}

server_main "$@"
