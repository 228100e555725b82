#!/usr/bin/env bash
# Runs a command with PG_URL pointing at a throw-away PostgreSQL server on 127.0.0.1 (Debian's packages;
# installed when missing). The server's data lives in a temporary folder and is removed at the end.
# Usage: bash scripts/with-postgres.sh npm run test:postgres
set -euo pipefail
if [ -n "${PG_URL:-}" ]; then exec "$@"; fi
# The server, not only the client: psql alone also creates /usr/lib/postgresql/N/bin.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "with-postgres: PostgreSQL is not installed and this is not root: apt-get install postgresql" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")
data=$(mktemp -d /tmp/iq-postgres.XXXXXX)
port=${PG_PORT:-54329}
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown postgres "$data"
stop() {
  as_owner "$bin/pg_ctl" -D "$data/db" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$data"
}
trap stop EXIT
as_owner "$bin/initdb" -D "$data/db" -A trust -U postgres >/dev/null
as_owner "$bin/pg_ctl" -D "$data/db" -l "$data/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $data" start >/dev/null
export PG_BIN="$bin"
echo "with-postgres: $("$bin/postgres" --version) on 127.0.0.1:$port"
PG_URL="postgres://postgres@127.0.0.1:$port/postgres" "$@"
