#!/usr/bin/env bash
# A throwaway PostgreSQL server for the store tests, on 127.0.0.1 only.
#
#   pg_env="$(bash .ci/postgres.sh $$)" && eval "$pg_env"
#
# Installs PostgreSQL from Debian if its binaries are missing, creates a cluster in a temp
# folder owned by the `postgres` user (the server refuses to run as root), starts it on a free
# port, creates a database, and prints `export HOOKLINE_TEST_POSTGRES_URL=...` on stdout
# (everything else goes to stderr).
#
# Nothing outlives the caller: a watchdog, detached from the caller's pipes, polls the process
# whose pid is the first argument (the caller's `$$`; by default this script's parent). When it
# is gone - the CI run finished, failed or was killed - the watchdog stops the server
# (`pg_ctl stop -m immediate`) and deletes the folder. The pid is matched with its start time,
# so a recycled pid cannot keep the server alive, and the server is stopped after
# HOOKLINE_TEST_POSTGRES_MAX_SECONDS (default 3 hours) whatever happens.
set -euo pipefail

watch_pid="${1:-$PPID}"
max_seconds="${HOOKLINE_TEST_POSTGRES_MAX_SECONDS:-10800}"
say() { echo "postgres.sh: $*" >&2; }

find_bin() {
    local found
    found="$(command -v initdb 2>/dev/null || true)"
    if [ -n "$found" ]; then
        dirname "$(readlink -f "$found")"
        return
    fi
    # Debian keeps the server's programs off PATH, under /usr/lib/postgresql/<major>/bin.
    found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [ -n "$found" ] && [ -x "$found/initdb" ]; then echo "$found"; fi
}

install_postgres() {
    say "installing PostgreSQL from Debian"
    # Debian's scripts would start the packaged cluster on port 5432; policy-rc.d forbids it
    # for the length of this install (unless the machine already has such a policy).
    local policy=/usr/sbin/policy-rc.d added=""
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && added=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    if [ -n "$added" ]; then rm -f "$policy"; fi
}

# A process's start time (field 22 of /proc/PID/stat, counted after the ")" that ends its
# name), or nothing once it is gone: a pid and its start time name one process for good.
start_time() {
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
    set -- ${stat##*) }
    echo "${20}"
}

# Waits until the watched process is gone (or the time is up), then stops the server and
# deletes its folder.
watchdog() {
    local bin=$1 dir=$2 pid=$3 start=$4 max=$5 waited=0
    while [ "$(start_time "$pid")" = "$start" ] && [ "$waited" -lt "$max" ]; do
        sleep 1
        waited=$((waited + 1))
    done
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop
    rm -rf "$dir"
}

bin="$(find_bin)"
if [ -z "$bin" ]; then
    install_postgres
    bin="$(find_bin)"
fi
[ -n "$bin" ] || { say "no initdb after installing postgresql"; exit 1; }
watch_start="$(start_time "$watch_pid")"
[ -n "$watch_start" ] || { say "no process $watch_pid to watch"; exit 1; }

as_postgres() { runuser -u postgres -- "$@"; }
dir="$(mktemp -d /tmp/hookline-pg.XXXXXX)"
# Until the watchdog owns the server, a failure here cleans up after itself.
trap 'as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null 2>&1 || true; rm -rf "$dir"' EXIT
chown postgres: "$dir"
chmod 700 "$dir"

password="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$password" > "$dir/pwfile"
chown postgres: "$dir/pwfile"
as_postgres "$bin/initdb" -D "$dir/data" -U hookline --pwfile="$dir/pwfile" \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 \
    --no-sync > "$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
rm -f "$dir/pwfile"

# A crash of this server is not what the tests are about (they kill clients), so it may skip
# fsync; a port that another process takes between the check and the start is tried again.
started=""
for _ in 1 2 3 4 5; do
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')"
    options="-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir"
    options="$options -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    if as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "$options" start < /dev/null > /dev/null 2>&1; then
        started=1
        break
    fi
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null 2>&1 || true
done
[ -n "$started" ] || { say "the server did not start"; cat "$dir/server.log" >&2; exit 1; }

# setsid and /dev/null for its pipes, so the caller's `$(...)` does not wait for the watchdog.
setsid bash -c "$(declare -f start_time watchdog); watchdog \"\$@\"" hookline-pg-watchdog \
    "$bin" "$dir" "$watch_pid" "$watch_start" "$max_seconds" < /dev/null > /dev/null 2>&1 &
trap - EXIT

url="postgresql://hookline:$password@127.0.0.1:$port/hookline_test"
for _ in $(seq 1 50); do
    if PGPASSWORD="$password" "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U hookline; then
        break
    fi
    sleep 0.2
done
PGPASSWORD="$password" "$bin/createdb" -h 127.0.0.1 -p "$port" -U hookline hookline_test >&2
say "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($dir)," \
    "stopped when process $watch_pid ends"
echo "export HOOKLINE_TEST_POSTGRES_URL='$url'"
echo "export HOOKLINE_TEST_POSTGRES_DIR='$dir'"
