#!/usr/bin/env bash
# Times `gsgen new DIR -f golden/full.yaml` against the floor (bench/floor: a
# program that only renders as many files from an embed.FS to disk), both
# writing to the same directory on the same disk, and prints each median with
# min–max and the ratio gsgen / floor. It prints figures; it asserts nothing.
#
#   bench/scaffold.sh [-runs N] [-nocgo] [-short]
#
#   -runs N  timed rounds (default 10) after 3 warm-up rounds; a round runs each command once
#   -nocgo   also time a CGO_ENABLED=0 build of gsgen (sqlc's WebAssembly parser)
#   -short   one round, no warm-up: checks that the benchmark still works
#
# Times with hyperfine when it is installed (apt-get install hyperfine), else
# with bash's clock; either way the commands take turns, round after round.
# Everything it builds and writes is under one temporary directory (in
# $TMPDIR, default /tmp), removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10 warmup=3 nocgo=0
while [ $# -gt 0 ]; do
	case $1 in
	-runs) runs=$2; shift ;;
	-nocgo) nocgo=1 ;;
	-short) runs=1 warmup=0 ;;
	*) echo "usage: $0 [-runs N] [-nocgo] [-short]" >&2; exit 2 ;;
	esac
	shift
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gsgen-bench-scaffold-XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/out # the one target directory every run writes, removed before each

go build -o "$work/gsgen" ./cmd/gsgen
go build -o "$work/floor" ./bench/floor
# gsgen-start (`gsgen version`) is a reference: what starting gsgen costs
# before it does any work. The ratios are of the `gsgen new` commands.
names=(gsgen floor gsgen-start)
generators=(gsgen)
if [ "$nocgo" = 1 ]; then
	CGO_ENABLED=0 go build -o "$work/gsgen-nocgo" ./cmd/gsgen
	names+=(gsgen-nocgo)
	generators+=(gsgen-nocgo)
fi

# The floor writes as many files as gsgen does for this preset today.
"$work/gsgen" new "$work/count" -f golden/full.yaml >/dev/null
files=$(find "$work/count" -type f | wc -l)

declare -A cmds=(
	[gsgen]="$work/gsgen new $out -f golden/full.yaml"
	[floor]="$work/floor -n $files $out"
	[gsgen-start]="$work/gsgen version"
	[gsgen-nocgo]="$work/gsgen-nocgo new $out -f golden/full.yaml"
)

echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3-), $(df -T "$work" | awk 'NR==2 {print $2 " on " $1}'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "files: $files (golden/full.yaml); runs: $runs each, warm-up $warmup"

# One round runs each command once, one after the other; rounds repeat. So a
# change in the machine's load (it is shared) hits every command alike
# instead of whichever ran its runs back to back while it lasted.
declare -A samples # name -> space-separated milliseconds
if command -v hyperfine >/dev/null; then
	echo "timer: hyperfine $(hyperfine --version | cut -d' ' -f2), one run per command per round"
	round() {
		local args=() name mean
		for n in "${names[@]}"; do args+=(-n "$n" "${cmds[$n]}"); done
		# -N: no shell between hyperfine and the command, so none is timed.
		if ! hyperfine -N --runs 1 --prepare "rm -rf $out" --export-csv "$work/round.csv" \
			"${args[@]}" >"$work/hyperfine.log" 2>&1; then
			cat "$work/hyperfine.log" >&2
			return 1
		fi
		# command,mean,... in seconds; with one run the mean is that run.
		while IFS=, read -r name mean _; do
			samples[$name]+="$(awk -v s="$mean" 'BEGIN {printf "%.3f", s * 1000}') "
		done < <(tail -n +2 "$work/round.csv")
	}
else
	echo "timer: bash \$EPOCHREALTIME (hyperfine is not installed)"
	round() {
		local n start end
		for n in "${names[@]}"; do
			rm -rf "$out"
			start=$EPOCHREALTIME
			${cmds[$n]} >/dev/null
			end=$EPOCHREALTIME
			samples[$n]+="$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", (b - a) * 1000}') "
		done
	}
fi
for _ in $(seq "$warmup"); do round; done
samples=()
for _ in $(seq "$runs"); do round; done

# median_ms, min_ms and max_ms per name.
declare -A median_ms min_ms max_ms
for n in "${names[@]}"; do
	read -r median_ms[$n] min_ms[$n] max_ms[$n] < <(printf '%s\n' ${samples[$n]} | sort -n |
		awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f %.1f %.1f\n", m, v[1], v[NR]}')
done
rm -rf "$out"

printf '%-12s %10s %18s\n' command "median ms" "min–max ms"
for n in "${names[@]}"; do
	printf '%-12s %10s %18s\n' "$n" "${median_ms[$n]}" "${min_ms[$n]}–${max_ms[$n]}"
done
for n in "${generators[@]}"; do
	awk -v a="${median_ms[$n]}" -v b="${median_ms[floor]}" -v n="$n" \
		'BEGIN {printf "ratio %s / floor: %.2f (target: within 2)\n", n, a / b}'
done
