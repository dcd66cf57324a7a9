#!/usr/bin/env bash
# Runs the outbox relay's benchmarks of golden/full (the overlay in
# golden/testdata/bench/full) for this tree and, with -base, for another
# commit too, taking turns round after round, and prints each sample. It
# prints figures; it asserts nothing.
#
#   bench/relay.sh [-rounds N] [-base COMMIT] [-this-bench] [-bench REGEXP] [-short]
#
#   -rounds N     rounds (default 5); a round runs each tree's benchmarks once (-benchtime 1x)
#   -base COMMIT  also run COMMIT's golden/full, before this tree's, in every round
#   -this-bench   run COMMIT's golden/full with this tree's benchmarks (the overlay), not
#                 its own: the same measures on both (they must build against both)
#   -bench REGEXP the benchmarks to run (default: all of internal/outbox's)
#   -short        one round of the benchmarks' short mode: checks that the script still works
#
# Needs the local PostgreSQL (GSGEN_TEST_POSTGRES_URL or DATABASE_URL, as the
# services' tests). Everything it builds is under one temporary directory,
# removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5 base= bench=. short= thisbench=
while [ $# -gt 0 ]; do
	case $1 in
	-rounds) rounds=$2; shift ;;
	-base) base=$2; shift ;;
	-this-bench) thisbench=1 ;;
	-bench) bench=$2; shift ;;
	-short) rounds=1 short=-test.short ;;
	*) echo "usage: $0 [-rounds N] [-base COMMIT] [-this-bench] [-bench REGEXP] [-short]" >&2; exit 2 ;;
	esac
	shift
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gsgen-bench-relay-XXXXXX")
trap 'rm -rf "$work"' EXIT
export GOWORK=off
if [ -n "${GSGEN_TEST_POSTGRES_URL:-}" ]; then export DATABASE_URL=$GSGEN_TEST_POSTGRES_URL; fi

# tree NAME: golden/full with the benchmark overlay, from $work/src/NAME, and
# its test binary.
build() {
	local name=$1 svc=$work/$1
	cp -r "$work/src/$name/golden/full" "$svc"
	cp -r "$work/src/$name/golden/testdata/bench/full/." "$svc/"
	(cd "$svc" && go test -c -o "$svc/outbox.test" ./internal/outbox)
}
trees=(this)
mkdir -p "$work/src/this/golden/testdata/bench"
cp -r golden/full "$work/src/this/golden/"
cp -r golden/testdata/bench/full "$work/src/this/golden/testdata/bench/"
build this
if [ -n "$base" ]; then
	mkdir -p "$work/src/base"
	git archive "$base" golden/full golden/testdata/bench/full | tar -x -C "$work/src/base"
	if [ -n "$thisbench" ]; then
		rm -rf "$work/src/base/golden/testdata/bench/full"
		cp -r golden/testdata/bench/full "$work/src/base/golden/testdata/bench/"
	fi
	build base
	trees=(base this)
fi

for round in $(seq "$rounds"); do
	for name in "${trees[@]}"; do
		# The benchmarks find db/migrations from their package's directory.
		(cd "$work/$name/internal/outbox" &&
			../../outbox.test -test.run '^$' -test.bench "$bench" -test.benchtime 1x $short) |
			sed -n "s/^Benchmark/round $round $name Benchmark/p"
	done
done
