#!/usr/bin/env bash
# clues-bench.sh: the speed of `s17 search --clues N` (issue 36), one
# thread on core 0 (keep core 1 idle), on N_RANDOM random grids (`s17
# generate -n N_RANDOM --seed 36`) and N_KNOWN grids holding known 17s (the
# solutions of N_KNOWN puzzles of data/known17.txt, evenly spaced from line
# 1). For each kind of grid and each mode (`--clues 17`, `--clues 18`,
# `--clues 18 --first`, `--clues 16`) it prints the mean, median and max
# time per grid (the search's thread CPU time, `cpu` of `--stats`' total
# line), then the issue's ratios (targets: the full 18 search of a random
# grid at most 10 times its 17 search; `--first` on a known-17 grid at most
# 2 times its 17 search) as the ratio of the means and the largest ratio of
# one grid, then the `--stats` lines of the costliest rows of the full 18
# search of the first random grid.
#
# Usage: tools/clues-bench.sh S17 [N_RANDOM] [N_KNOWN]   (default 20 10)
# Run from the repository (it reads data/known17.txt). Needs taskset and awk.
set -euo pipefail

s17=${1:?usage: clues-bench.sh S17 [N_RANDOM] [N_KNOWN]}
n_random=${2:-20}
n_known=${3:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$s17" generate -n "$n_random" --seed 36 > "$work/random.txt"
awk -v n="$n_known" -v total="$(wc -l < data/known17.txt)" \
    'BEGIN {step = int(total / n)} (NR - 1) % step == 0 && k < n {print substr($0, 1, 81); k++}' \
    data/known17.txt | "$s17" solve -q > "$work/known.txt"

# The CPU time of each grid of file $2 searched with flags $3..., one per
# line in the file's order.
times() {
    local grids=$1
    shift
    taskset -c 0 "$s17" search --threads 1 --stats "$@" -i "$grids" 2>&1 >/dev/null |
        grep '^grid [0-9]* total:' | grep -o ' cpu [0-9.]*s' | tr -d 's' | cut -d' ' -f3
}

# Mean, median and max of the numbers on stdin.
stats() {
    sort -g | awk '{t[NR] = $1; s += $1}
        END {m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2;
             printf "%.3f %.3f %.3f\n", s / NR, m, t[NR]}'
}

# "ratio of the means, largest ratio of one grid" of the times in files
# $1 over those in $2 (the same grids, in order).
ratios() {
    paste "$1" "$2" | awk '{a += $1; b += $2; if ($2 > 0 && $1 / $2 > m) m = $1 / $2}
        END {printf "%.2f (largest of one grid %.2f)", a / b, m}'
}

modes=("17" "18" "18-first" "16")
flags() {
    case $1 in
        18-first) echo "--clues 18 --first" ;;
        *) echo "--clues $1" ;;
    esac
}

printf '%-7s %-9s %8s %8s %8s   (seconds per grid, one thread, CPU time)\n' \
    grids mode mean median max
for kind in random known; do
    for mode in "${modes[@]}"; do
        # shellcheck disable=SC2046 # flags() is meant to split
        times "$work/$kind.txt" $(flags "$mode") > "$work/$kind-$mode.t"
        read -r mean median max < <(stats < "$work/$kind-$mode.t")
        printf '%-7s %-9s %8s %8s %8s\n' "$kind" "$mode" "$mean" "$median" "$max"
    done
done
printf '18 full / 17, random grids: %s   (target <= 10)\n' \
    "$(ratios "$work/random-18.t" "$work/random-17.t")"
printf '18 --first / 17, known-17 grids: %s   (target <= 2)\n' \
    "$(ratios "$work/known-18-first.t" "$work/known-17.t")"

# The costliest rows of the full 18 search of the first random grid: the
# --stats lines of rows, by their cpu time, largest first.
echo "costliest rows of --clues 18 on random grid 1 (--stats):"
taskset -c 0 "$s17" search --threads 1 --stats --clues 18 "$(head -1 "$work/random.txt")" \
    2>&1 >/dev/null | grep ' row' | awk '{for (i = 1; i < NF; i++) if ($i == "cpu") print $(i + 1), $0}' |
    sort -gr | head -8 | cut -d' ' -f2-
