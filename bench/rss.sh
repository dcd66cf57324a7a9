#!/usr/bin/env bash
# Measures the peak RSS of `gsgen new DIR -f golden/full.yaml` (GNU time's
# %M) for a cgo and a CGO_ENABLED=0 build of gsgen, round after round in
# turns, and prints each median with min–max. It prints figures; it asserts
# nothing.
#
#   bench/rss.sh [-rounds N] [-short]
#
#   -rounds N  rounds (default 10); a round runs each build once
#   -short     one round of the cgo build only: checks that the script still works
#
# Two conditions per build, because RSS counts the binary's file pages the
# process maps, and the kernel maps them differently depending on how they
# came into the page cache:
#
#   settled    the binary's pages were dropped from the page cache (dd
#              iflag=nocache) and come back through page faults: the state
#              of a binary installed yesterday, or after a reboot.
#   as-built   the binary right after go build wrote it (go install too):
#              the page cache may hold it in large folios, which the kernel
#              maps 2 MB at a time (FilePmdMapped in /proc/PID/smaps_rollup),
#              so text the run never touches counts too. Once the pages are
#              dropped, the same file is back to settled.
#
# It also prints the anonymous memory (heap, stacks: what gsgen allocates) of
# one run, read from /proc/PID/smaps_rollup while the run is held open.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=10 builds="cgo nocgo"
while [ $# -gt 0 ]; do
	case $1 in
	-rounds) rounds=$2; shift ;;
	-short) rounds=1 builds=cgo ;;
	*) echo "usage: $0 [-rounds N] [-short]" >&2; exit 2 ;;
	esac
	shift
done
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time): apt-get install time" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gsgen-bench-rss-XXXXXX")
trap 'rm -rf "$work"' EXIT
go build -o "$work/gsgen-cgo" ./cmd/gsgen
if [ "$builds" != cgo ]; then CGO_ENABLED=0 go build -o "$work/gsgen-nocgo" ./cmd/gsgen; fi

# peak BINARY: one `gsgen new` of the full preset, its peak RSS in KB.
peak() {
	rm -rf "$work/out"
	/usr/bin/time -f %M -o "$work/time" "$1" new "$work/out" -f golden/full.yaml >/dev/null
	cat "$work/time"
}

declare -A kb
for build in $builds; do
	kb[$build-as-built]=$(peak "$work/gsgen-$build") # before any drop: as go build left it
done
for _ in $(seq "$rounds"); do
	for build in $builds; do
		# Dirty pages cannot be dropped: write the fresh binary out first.
		sync "$work/gsgen-$build"
		dd if="$work/gsgen-$build" iflag=nocache count=0 status=none
		kb[$build-settled]+=" $(peak "$work/gsgen-$build")"
	done
done

echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3-), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "peak RSS of gsgen new -f golden/full.yaml, MB; $rounds rounds, builds in turns"
for build in $builds; do
	echo "$build settled: $(tr ' ' '\n' <<<"${kb[$build-settled]}" | sed '/^$/d' | sort -n |
		awk '{v[NR]=$1/1024} END {printf "median %.1f (%.1f–%.1f)", (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2), v[1], v[NR]}')"
	echo "$build as-built (one run): $(awk '{printf "%.1f", $1/1024}' <<<"${kb[$build-as-built]}")"
done

# The anonymous memory of one run: gsgen new --accessible waits on stdin for
# its first answer, after the binary has started and its packages are
# initialised, which is where a new service's rendering starts from.
rm -rf "$work/acc"
mkfifo "$work/stdin"
"$work/gsgen-cgo" new "$work/acc" --accessible <"$work/stdin" >"$work/prompt" 2>&1 &
pid=$!
exec 3>"$work/stdin"
# The first prompt on stdout says it is waiting (a deadline only catches a hang).
for _ in $(seq 600); do [ -s "$work/prompt" ] && break; sleep 0.05; done
echo "cgo, waiting for its first answer: $(awk '/^(Rss|Anonymous|FilePmdMapped):/ {printf "%s %.1f MB  ", $1, $2/1024}' "/proc/$pid/smaps_rollup")"
exec 3>&-
wait "$pid" 2>/dev/null || true
