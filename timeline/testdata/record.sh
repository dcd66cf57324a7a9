#!/usr/bin/env bash
# Records the orders service's shutdown logs (idle, http-cut, http-over,
# second-signal) from a real run, as README.md in this folder describes.
# Run from the repository root: bash timeline/testdata/record.sh
# Needs PostgreSQL (127.0.0.1:5432, user postgres) and Redis (127.0.0.1:6379,
# database 13 is used and emptied). No Kafka: the writer connects lazily and
# the reader only logs that it cannot. Then: go test ./timeline -update, and
# read the diff.
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go run ./cmd/gsgen new "$work/orders" -f "$out/orders/gsgen.yaml" --yes >/dev/null
cp "$work/orders/gsgen.yaml" "$out/orders/gsgen.yaml" # the answers as this gsgen writes them

# The planted mistake: a route that holds a pool connection for ?s=DURATION
# and ignores its request's context, so shutdown cannot cut it short.
cat >"$work/orders/internal/httpapi/routes.go" <<'EOF'
package httpapi

import (
	"context"
	"net/http"
	"time"
)

func Routes(mux *http.ServeMux, deps Deps) {
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("s"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, err = deps.DB.Exec(context.Background(), "SELECT pg_sleep($1)", d.Seconds())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
EOF
(cd "$work/orders" && go build -o bin/orders ./cmd/orders)

db=timeline_record
psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export REDIS_ADDR=127.0.0.1:6379 REDIS_DB=13 HTTP_ADDR=127.0.0.1:18080 ADMIN_ADDR=127.0.0.1:19090
redis-cli -n 13 FLUSHDB >/dev/null
"$work/orders/bin/orders" migrate up 2>/dev/null

# run LOG [ENV=VALUE...] -- SCRIPT: starts the service with the extra
# variables, waits until it listens, runs SCRIPT (given $pid), waits for exit.
run() {
	local log=$1
	shift
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	env "${vars[@]}" "$work/orders/bin/orders" 2>"$out/$log" &
	pid=$!
	until grep -q '"http server listening"' "$out/$log"; do sleep 0.1; done
	eval "$1"
	wait "$pid" || true
	echo "$log: $(tail -n 1 "$out/$log" | cut -c1-120)"
}
slow() { curl -s -o /dev/null "http://127.0.0.1:18080/slow?s=$1" & sleep 0.5; }

run idle.log -- 'sleep 2; kill -TERM $pid'
run http-cut.log HTTP_SHUTDOWN_TIMEOUT=50ms -- 'slow 3s; kill -TERM $pid'
run http-over.log HTTP_SHUTDOWN_TIMEOUT=40s -- 'slow 30s; kill -TERM $pid'
run second-signal.log -- 'slow 20s; kill -TERM $pid; sleep 3; kill -TERM $pid'
wait
psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE $db WITH (FORCE)"
redis-cli -n 13 FLUSHDB >/dev/null
