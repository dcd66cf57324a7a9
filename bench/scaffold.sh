#!/usr/bin/env bash
# Times `gsgen new DIR -f golden/full.yaml` against the floor (bench/floor: a
# program that writes the very files gsgen wrote, same paths and bytes, from
# a tar it reads in one go, and does nothing else), each run writing a new
# directory on the same disk, and prints each median with min–max, of wall
# time and of CPU time (user + system), and the ratios gsgen / floor. It
# prints figures; it asserts nothing.
#
#   bench/scaffold.sh [-runs N] [-nocgo] [-before REV] [-short]
#
#   -runs N  timed rounds (default 10) after 3 warm-up rounds; a round runs each command once
#   -nocgo   also time a CGO_ENABLED=0 build of gsgen (sqlc's WebAssembly parser)
#   -before REV  also time gsgen built from git revision REV (git archive), in
#            the same rounds: a change's before and after, alternated
#   -short   one round, no warm-up: checks that the benchmark still works
#
# Times with hyperfine when it is installed (apt-get install hyperfine), else
# with bash's clock; either way the commands take turns, round after round.
# Everything it builds and writes is under one temporary directory (in
# $TMPDIR, default /tmp), removed on exit. Most of the floor's time is the
# kernel allocating inodes, and ext4 skips inodes freed in the last seconds
# when it allocates, so files just deleted nearby (other jobs' in a shared
# /tmp, and this script's own until it stopped deleting between runs) make
# every command slower by the same time per file and the floor most of all
# (2026-12-02, a minute apart: the floor 103 ms in /tmp, 12 ms in a fresh
# /var/tmp directory). Compare figures taken in one place.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10 warmup=3 nocgo=0 before=
while [ $# -gt 0 ]; do
	case $1 in
	-runs) runs=$2; shift ;;
	-nocgo) nocgo=1 ;;
	-before) before=$2; shift ;;
	-short) runs=1 warmup=0 ;;
	*) echo "usage: $0 [-runs N] [-nocgo] [-before REV] [-short]" >&2; exit 2 ;;
	esac
	shift
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gsgen-bench-scaffold-XXXXXX")
trap 'rm -rf "$work"' EXIT
# Each run writes a directory of its own, $work/out.R.NAME (R the round),
# kept until the end: deleting one run's files before the next made ext4
# skip the inodes just freed when it allocated the next run's (see above),
# so every run paid for the one before it, the floor most of all (its
# median grew from 12 to 77 ms between two runs of this script a minute
# apart in one directory, while a user's gsgen new follows no such delete).
rounds=0

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
if [ -n "$before" ]; then
	mkdir "$work/src-before"
	git archive "$before" | tar -x -C "$work/src-before"
	(cd "$work/src-before" && go build -o "$work/gsgen-before" ./cmd/gsgen)
	names+=(gsgen-before)
	generators+=(gsgen-before)
fi

# The floor writes what gsgen writes for this preset today, from a tar.
"$work/gsgen" new "$work/tree" -f golden/full.yaml >/dev/null
files=$(find "$work/tree" -type f | wc -l)
bytes=$(find "$work/tree" -type f -printf '%s\n' | awk '{n += $1} END {print n}')
tar -C "$work/tree" -cf "$work/tree.tar" .
if [ -n "$before" ]; then
	"$work/gsgen-before" new "$work/tree-before" -f golden/full.yaml >/dev/null
	if diff -r -q "$work/tree" "$work/tree-before" >/dev/null; then
		echo "gsgen-before ($before) writes the same bytes"
	else
		echo "gsgen-before ($before) writes other bytes than gsgen: the comparison is not like for like" >&2
	fi
fi

declare -A cmds=(
	[gsgen]="$work/gsgen new OUT -f golden/full.yaml"
	[floor]="$work/floor $work/tree.tar OUT"
	[gsgen-start]="$work/gsgen version"
	[gsgen-nocgo]="$work/gsgen-nocgo new OUT -f golden/full.yaml"
	[gsgen-before]="$work/gsgen-before new OUT -f golden/full.yaml"
)

echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3-), $(df -T "$work" | awk 'NR==2 {print $2 " on " $1}'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "files: $files, $bytes bytes (golden/full.yaml; the floor writes the same); runs: $runs each, warm-up $warmup"

# One round runs each command once, one after the other; rounds repeat. So a
# change in the machine's load (it is shared) hits every command alike
# instead of whichever ran its runs back to back while it lasted.
declare -A wall cpu # name -> space-separated milliseconds
if command -v hyperfine >/dev/null; then
	echo "timer: hyperfine $(hyperfine --version | cut -d' ' -f2), one run per command per round"
	round() {
		local args=() name mean user system
		rounds=$((rounds + 1))
		for n in "${names[@]}"; do args+=(-n "$n" "${cmds[$n]//OUT/$work/out.$rounds.$n}"); done
		# -N: no shell between hyperfine and the command, so none is timed.
		if ! hyperfine -N --runs 1 --export-csv "$work/round.csv" \
			"${args[@]}" >"$work/hyperfine.log" 2>&1; then
			cat "$work/hyperfine.log" >&2
			return 1
		fi
		# command,mean,stddev,median,user,system,... in seconds; with one
		# run the mean is that run.
		while IFS=, read -r name mean _ _ user system _; do
			wall[$name]+="$(awk -v s="$mean" 'BEGIN {printf "%.3f", s * 1000}') "
			cpu[$name]+="$(awk -v u="$user" -v s="$system" 'BEGIN {printf "%.3f", (u + s) * 1000}') "
		done < <(tail -n +2 "$work/round.csv")
	}
else
	echo "timer: bash \$EPOCHREALTIME for wall time, the times builtin (children's user + system) for CPU (hyperfine is not installed)"
	# times, run in this shell (not a subshell), prints the CPU time of its
	# finished children so far on its second line; ms turns it into ms.
	ms() {
		awk 'NR == 2 {
			split($1, u, /[ms]/); split($2, s, /[ms]/)
			printf "%.3f", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$1"
	}
	round() {
		local n start end
		rounds=$((rounds + 1))
		for n in "${names[@]}"; do
			times >"$work/times0"
			start=$EPOCHREALTIME
			${cmds[$n]//OUT/$work/out.$rounds.$n} >/dev/null
			end=$EPOCHREALTIME
			times >"$work/times1"
			wall[$n]+="$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", (b - a) * 1000}') "
			cpu[$n]+="$(awk -v a="$(ms "$work/times0")" -v b="$(ms "$work/times1")" 'BEGIN {printf "%.3f", b - a}') "
		done
	}
fi
for _ in $(seq "$warmup"); do round; done
wall=() cpu=()
for _ in $(seq "$runs"); do round; done

# stats prints the median, min and max of the numbers given.
stats() {
	printf '%s\n' "$@" | sort -n |
		awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f %.1f %.1f\n", m, v[1], v[NR]}'
}
declare -A wall_med cpu_med
printf '%-12s %14s %18s %14s %18s\n' command "wall median ms" "min–max" "CPU median ms" "min–max"
for n in "${names[@]}"; do
	read -r wm wlo whi < <(stats ${wall[$n]})
	read -r cm clo chi < <(stats ${cpu[$n]})
	wall_med[$n]=$wm cpu_med[$n]=$cm
	printf '%-12s %14s %18s %14s %18s\n' "$n" "$wm" "$wlo–$whi" "$cm" "$clo–$chi"
done
for n in "${generators[@]}"; do
	awk -v a="${wall_med[$n]}" -v b="${wall_med[floor]}" -v c="${cpu_med[$n]}" -v d="${cpu_med[floor]}" -v n="$n" \
		'BEGIN {printf "ratio %s / floor: wall %.2f, CPU %.2f (target: wall within 1.5)\n", n, a / b, c / d}'
done
