#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: `start DIR` creates a cluster in DIR (a fresh
# directory) listening on a free port of 127.0.0.1 and on a Unix socket in DIR, and prints the
# two URLs as shell assignments (STOREDKIT_POSTGRES_URL=..., STOREDKIT_POSTGRES_SOCKET_URL=...);
# `restart DIR` crashes it (`-m immediate`, as a power cut would) and starts it again on the same
# port; `halt DIR` crashes it and leaves it down (an outage), `resume DIR` starts it again on the
# same port; `stop DIR` stops it and removes DIR. Settings stay durable (fsync on), as in production.
# `start DIR ssl` also accepts TLS (a self-signed certificate made with openssl): connect with
# sslmode=require.
#
#   eval "$(Scripts/postgres-test-server.sh start /tmp/pg)"; swift test; Scripts/postgres-test-server.sh stop /tmp/pg
set -euo pipefail

# The server outlives this script: it must not inherit the caller's descriptors beyond stdio
# (Foundation's Process, for one, learns that its child exited when such a descriptor closes).
for fd in $(ls /proc/$$/fd); do
    [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
done

command=${1:-}
dir=${2:-}
tls=${3:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|restart|halt|resume|stop DIR" >&2; exit 64; }

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || { echo "$0: no PostgreSQL server found under /usr/lib/postgresql (make deps installs it)" >&2; exit 69; }

# initdb refuses to run as root: run the server tools as the postgres user then.
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null \
        || echo $(( 20000 + RANDOM % 20000 ))
}

case "$command" in
start)
    mkdir -p "$dir"
    # Other users (the tests, when they do not run as postgres) must reach the socket.
    chmod 0755 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    # One role must give its password (SCRAM), so tests can check what a wrong one says; the
    # first matching line wins, so it goes above initdb's trust lines.
    hba="$dir/data/pg_hba.conf"
    { echo "host all storedkit_password_test 127.0.0.1/32 scram-sha-256"; cat "$hba"; } >"$hba.new"
    cat "$hba.new" >"$hba" && rm "$hba.new"
    extra=""
    if [ "$tls" = ssl ]; then
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
            -keyout "$dir/server.key" -out "$dir/server.crt" >"$dir/openssl.log" 2>&1 \
            || { cat "$dir/openssl.log" >&2; exit 1; }
        chmod 0600 "$dir/server.key"
        [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir/server.key" "$dir/server.crt"
        extra="-c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key"
    fi
    echo "$extra" >"$dir/options"
    for attempt in 1 2 3; do
        port=$(free_port)
        if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $dir $extra" start >/dev/null; then
            echo "$port" >"$dir/port"
            echo "STOREDKIT_POSTGRES_URL='postgresql://postgres@127.0.0.1:$port/postgres'"
            echo "STOREDKIT_POSTGRES_SOCKET_URL='postgresql:///postgres?host=$dir&port=$port&user=postgres'"
            exit 0
        fi
    done
    echo "$0: the test server did not start; its log:" >&2
    cat "$dir/server.log" >&2 || true
    exit 1
    ;;
restart)
    # pg_ctl restart reuses the options the server was started with (port, socket directory).
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m immediate -w -t 60 restart >/dev/null
    ;;
halt)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 60 stop >/dev/null
    ;;
resume)
    port=$(cat "$dir/port")
    extra=$(cat "$dir/options" 2>/dev/null || true)
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir $extra" start >/dev/null
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|restart|halt|resume|stop DIR" >&2
    exit 64
    ;;
esac
