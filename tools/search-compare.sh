#!/usr/bin/env bash
# search-compare.sh: compares two builds of s17 on the one-grid samples of
# issue 18: the 50 random grids of `s17 generate -n 50 --seed 1` and the 30
# grids holding known 17s of `s17 validate data/known17.txt --sample 30
# --seed 1`, one thread, one after the other on core 0 (keep core 1 idle),
# for ROUNDS rounds (A then B each round). Prints each run's mean, median and
# max time per grid (the search times s17 prints) and the max over the mean
# (the tail), then the ratios B / A of the means over all rounds. About a
# minute per build and round.
#
# Usage: tools/search-compare.sh S17_A S17_B [ROUNDS]   (default 2)
# Run from the repository (it reads data/known17.txt). Needs taskset and awk.
set -euo pipefail

a=${1:?usage: search-compare.sh S17_A S17_B [ROUNDS]}
b=${2:?usage: search-compare.sh S17_A S17_B [ROUNDS]}
rounds=${3:-2}
grids=$(mktemp)
trap 'rm -f "$grids"' EXIT
"$a" generate -n 50 --seed 1 > "$grids"

# Mean, median and max of the numbers on stdin.
stats() {
    sort -g | awk '{t[NR] = $1; s += $1}
        END {m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2;
             printf "%.3f %.3f %.3f\n", s / NR, m, t[NR]}'
}

# The slowest grid over the mean (issue 18's tail: at most 4), from
# "mean median max".
tail_ratio() { echo "$1" | awk '{printf "%.2f", $3 / $1}'; }

# The random sample: each grid's total search time from --stats.
random_times() {
    taskset -c 0 "$1" search --threads 1 --stats -i "$grids" 2>&1 >/dev/null |
        grep '^grid [0-9]* total' | grep -o 'total [0-9.]*s$' | tr -d 's' | cut -d' ' -f2
}

# The known-17 sample: validate's summary line (mean, median, max).
known_times() {
    taskset -c 0 "$1" validate data/known17.txt --sample 30 --seed 1 --threads 1 2>&1 |
        grep 'time per grid' | grep -o '[0-9.]* s' | head -3 | tr -d ' s' | tr '\n' ' '
    echo
}

sum() { awk -v x="$1" -v y="$2" 'BEGIN {printf "%.4f", x + y}'; }
ra=0 rb=0 ka=0 kb=0
for r in $(seq 1 "$rounds"); do
    for which in A B; do
        bin=$a
        [ "$which" = B ] && bin=$b
        random=$(random_times "$bin" | stats)
        known=$(known_times "$bin")
        printf 'round %d %s: random mean/median/max %s s (max/mean %s); known-17 %s s (max/mean %s)\n' \
            "$r" "$which" "${random// / \/ }" "$(tail_ratio "$random")" \
            "$(echo "$known" | sed 's/ *$//; s/ / \/ /g')" "$(tail_ratio "$known")"
        if [ "$which" = A ]; then
            ra=$(sum "$ra" "${random%% *}") ka=$(sum "$ka" "${known%% *}")
        else
            rb=$(sum "$rb" "${random%% *}") kb=$(sum "$kb" "${known%% *}")
        fi
    done
done
awk -v ra="$ra" -v rb="$rb" -v ka="$ka" -v kb="$kb" -v n="$rounds" 'BEGIN {
    printf "mean B/A over %d rounds: random %.3f, known-17 %.3f\n", n, rb / ra, kb / ka }'
