# Shell functions shared by the scripts that install Debian packages and start private servers
# (e2e-prereqs.sh, redis.sh, postgres.sh). Source it after setting SCRIPT_NAME (used in messages).

die() {
	echo "$SCRIPT_NAME: error: $*" >&2
	exit 1
}

# apt_install PACKAGE...: installs Debian packages non-interactively, as root directly or through
# `sudo -n` (no password prompt; without it, says what to run and fails). Updates the package
# lists first: a fresh machine's are empty or stale (once more on failure).
apt_install() {
	local as_root=()
	if [[ "$(id -u)" != 0 ]]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			as_root=(sudo -n)
		else
			die "this user cannot install packages; run as root: apt-get update && apt-get install -y --no-install-recommends $*"
		fi
	fi
	command -v apt-get >/dev/null 2>&1 || die "no apt-get: install the Debian/Ubuntu package(s) $* by other means"
	echo "$SCRIPT_NAME: installing Debian's $* ..." >&2
	local apt_opts=(-y -q -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
	local log
	log=$(mktemp)
	apt_run() {
		if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=a "$@" >"$log" 2>&1 </dev/null; then
			echo "$SCRIPT_NAME: failed: $*" >&2
			tail -n 30 "$log" | sed 's/^/  | /' >&2
			return 1
		fi
	}
	apt_run apt-get "${apt_opts[@]}" update || { sleep 5 && apt_run apt-get "${apt_opts[@]}" update; } || { rm -f "$log"; return 1; }
	apt_run apt-get "${apt_opts[@]}" install --no-install-recommends "$@" || { rm -f "$log"; return 1; }
	rm -f "$log"
}

# port_in_use PORT: a connection that succeeds means something listens there.
port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# pick_port: prints a free port of 20000-59999.
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

# server_main "$@": the command line of a private-server script: ensure | start DIR | stop DIR,
# calling the script's own ensure, start and stop functions.
server_main() {
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
}
