# The cluster of integration/remote: PostgreSQL on a Unix socket, BuildGrid
# on 127.0.0.1, workers. Sourced by integration/remote; expects STATE (a
# scratch folder), VENV (BuildGrid's virtualenv), LOG, fail and step.

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

# pg_start: a fresh cluster in its own folder under /tmp, listening on its own socket only
# (no TCP), owned by the postgres user (the server refuses root), with a
# database bgd migrated to BuildGrid's schema.
pg_start() {
  [ -x "$PGBIN/initdb" ] || fail "PostgreSQL's initdb is not installed (apt-get install postgresql)"
  # Its own folder outside the scratch: the server runs as postgres, which
  # cannot enter a mktemp -d folder (mode 700) of root's.
  PGROOT=$(mktemp -d /tmp/cudapkgs-pg.XXXXXX)
  chmod 755 "$PGROOT"
  PGDATA=$PGROOT/data PGSOCKET=$PGROOT/run
  mkdir -p "$PGDATA" "$PGSOCKET"
  chown -R postgres: "$PGROOT"
  runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA" -A trust -U postgres >"$LOG/initdb.log" 2>&1 \
    || { cat "$LOG/initdb.log" >&2; fail "initdb"; }
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGROOT/postgres.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories='$PGSOCKET' -c max_connections=200 -c fsync=off" start >/dev/null \
    || { cat "$PGROOT/postgres.log" >&2; fail "PostgreSQL did not start"; }
  runuser -u postgres -- "$PGBIN/createdb" -h "$PGSOCKET" -U postgres bgd || fail "createdb bgd"
  "$VENV/bin/bgd" migrate apply "postgresql://postgres@/bgd?host=$PGSOCKET" >"$LOG/migrate.log" 2>&1 \
    || { tail -n 20 "$LOG/migrate.log" >&2; fail "bgd migrate apply"; }
  echo "  PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on $PGSOCKET (no TCP)"
}
pg_stop() {
  [ -n "${PGROOT:-}" ] || return 0
  [ ! -f "$PGDATA/postmaster.pid" ] || runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null 2>&1 || true
  cp "$PGROOT/postgres.log" "$LOG/postgres.log" 2>/dev/null || true
  rm -rf "$PGROOT"
  PGROOT=
}

# free_port: a TCP port on 127.0.0.1 nothing listens on now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# bgd_start: BuildGrid from integration/remote/buildgrid.yml on a free port;
# sets BGD_PORT and BGD_PID once it answers.
bgd_start() {
  BGD_PORT=$(free_port)
  sed -e "s#@PORT@#$BGD_PORT#; s#@STATE@#$STATE/bgd#; s#@PGSOCKET@#$PGSOCKET#" \
    "$ROOT/integration/remote/buildgrid.yml" >"$STATE/buildgrid.yml"
  mkdir -p "$STATE/bgd/cas"
  "$VENV/bin/bgd" server start -v "$STATE/buildgrid.yml" >"$LOG/bgd.log" 2>&1 &
  BGD_PID=$!
  local i
  for i in $(seq 120); do
    if "$VENV/bin/bgd" capabilities --remote "http://127.0.0.1:$BGD_PORT" >/dev/null 2>&1; then
      echo "  BuildGrid $("$VENV/bin/pip" show buildgrid 2>/dev/null | awk '/^Version/{print $2}') on 127.0.0.1:$BGD_PORT"
      return 0
    fi
    kill -0 "$BGD_PID" 2>/dev/null || { tail -n 30 "$LOG/bgd.log" >&2; fail "BuildGrid exited"; }
    sleep 0.5
  done
  tail -n 30 "$LOG/bgd.log" >&2
  fail "BuildGrid did not answer on 127.0.0.1:$BGD_PORT"
}
bgd_stop() {
  [ -n "${BGD_PID:-}" ] || return 0
  kill "$BGD_PID" 2>/dev/null; wait "$BGD_PID" 2>/dev/null || true
  BGD_PID=
}
