#!/usr/bin/env bash
# Runs the outbox relay's benchmarks of golden/full (the overlay in
# golden/testdata/bench/full), or another package's with -pkg, for this
# tree and, with -base, for another commit too, taking turns round after
# round; prints each sample, then each figure's median (min–max) over the
# rounds. It prints figures; it asserts nothing.
#
#   bench/relay.sh [-rounds N] [-base COMMIT] [-this-bench] [-pkg NAME] [-bench REGEXP] [-short]
#
#   -rounds N     rounds (default 5); a round runs each tree's benchmarks once (-benchtime 1x)
#   -base COMMIT  also run COMMIT's golden/full, before this tree's, in every round
#   -this-bench   run COMMIT's golden/full with this tree's benchmarks (the overlay), not
#                 its own: the same measures on both (they must build against both)
#   -pkg NAME     the package under internal/ whose benchmarks run (default outbox;
#                 consumer for BenchmarkConsumerBaselines)
#   -bench REGEXP the benchmarks to run (default: all of the package's)
#   -short        one round of the benchmarks' short mode: checks that the script still works
#
# Needs the local PostgreSQL (GSGEN_TEST_POSTGRES_URL or DATABASE_URL, as the
# services' tests). Everything it builds is under one temporary directory,
# removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5 base= bench=. short= thisbench= pkg=outbox
while [ $# -gt 0 ]; do
	case $1 in
	-rounds) rounds=$2; shift ;;
	-base) base=$2; shift ;;
	-this-bench) thisbench=1 ;;
	-pkg) pkg=$2; shift ;;
	-bench) bench=$2; shift ;;
	-short) rounds=1 short=-test.short ;;
	*) echo "usage: $0 [-rounds N] [-base COMMIT] [-this-bench] [-pkg NAME] [-bench REGEXP] [-short]" >&2; exit 2 ;;
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
	(cd "$svc" && go test -c -o "$svc/$pkg.test" "./internal/$pkg")
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
		# GSGEN_BENCH_ROUND: benchmarks that take turns start one run
		# further along each round (benchtest.Turn).
		(cd "$work/$name/internal/$pkg" && GSGEN_BENCH_ROUND=$round \
			"../../$pkg.test" -test.run '^$' -test.bench "$bench" -test.benchtime 1x $short) |
			sed -n "s/^Benchmark/round $round $name Benchmark/p"
	done
done | tee "$work/samples"

# Each figure of each tree's benchmarks: median (min–max) of its samples.
# A sample line: round N TREE BenchmarkX-PROCS 1 VALUE UNIT VALUE UNIT ...
echo "median (min–max) of $rounds rounds:"
awk '{ sub(/-[0-9]+$/, "", $4); for (i = 6; i < NF; i += 2) print $3 "\t" $4 "\t" $(i+1) "\t" $i }' "$work/samples" |
	sort -t "$(printf '\t')" -k1,1 -k2,2 -k3,3 -k4,4g |
	awk -F '\t' '
	function figure(x) { a = x < 0 ? -x : x; return sprintf(a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", x) }
	function flush() {
		if (n == 0) return
		median = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%-5s %-34s %-30s %9s  (%s–%s, n=%d)\n", key[1], key[2], key[3], figure(median), figure(v[1]), figure(v[n]), n
		n = 0
	}
	{ k = $1 FS $2 FS $3; if (k != last) { flush(); split(k, key, FS); last = k } v[++n] = $4 }
	END { flush() }'
