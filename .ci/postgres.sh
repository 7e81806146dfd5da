#!/usr/bin/env bash
# Installs Debian's PostgreSQL if missing, starts its first cluster, makes sure the role
# the server's tests use exists, (re)creates their database empty, and prints the
# database's URL as the last line on stdout (everything else goes to stderr). Safe to
# run again.
#
#   export KINGSTABLE_TEST_POSTGRES="$(.ci/postgres.sh)"
#
# Needs root (apt-get, and running commands as the postgres user).
set -euo pipefail

log() { printf 'postgres.sh: %s\n' "$*" >&2; }

user=kingstable
password=kingstable
database=${KINGSTABLE_PG_DATABASE:-kingstable_test}

if ! command -v pg_lsclusters >/dev/null 2>&1; then
    log "installing postgresql (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q postgresql >&2
fi

cluster=$(pg_lsclusters --no-header | head -n 1)
if [ -z "$cluster" ]; then
    version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
    log "creating cluster $version/main"
    pg_createcluster "$version" main >&2
    cluster=$(pg_lsclusters --no-header | head -n 1)
fi
read -r version name port status _ <<<"$cluster"
if [ "$status" != online ]; then
    log "starting cluster $version/$name on port $port"
    pg_ctlcluster "$version" "$name" start >&2
fi

as_postgres() { (cd / && runuser -u postgres -- "$@"); }

for _ in $(seq 1 30); do
    as_postgres pg_isready -q -p "$port" && break
    sleep 1
done
as_postgres pg_isready -q -p "$port" || { log "PostgreSQL does not answer on port $port"; exit 1; }

as_postgres psql -p "$port" -v ON_ERROR_STOP=1 -qtA >&2 <<SQL
DO \$\$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$user') THEN
        CREATE ROLE $user LOGIN PASSWORD '$password';
    END IF;
END
\$\$;
SQL
# Tests make a schema each; start every run from an empty database.
as_postgres dropdb -p "$port" --if-exists "$database" >&2
log "creating database $database"
as_postgres createdb -p "$port" -O "$user" "$database" >&2

echo "postgres://$user:$password@127.0.0.1:$port/$database"
