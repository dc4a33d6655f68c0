#!/usr/bin/env bash
# exhaust-compare.sh: compares two builds of s17 on the ten entries of
# exhaust-entries.sh, one after the other on core 0 while core 1 stays
# idle, for ROUNDS rounds (A then B each round), and prints each round's
# sums and the ratio B / A, then the mean ratio. On these shared machines
# this is steadier than running the two side by side (one per core): the
# rounds move by 1-3 % instead of 3-6 %. Takes about 30 s per round.
#
# Usage: tools/exhaust-compare.sh S17_A S17_B [ROUNDS]   (default 4)
# Needs taskset and bc; nothing else should run on the machine meanwhile.
set -euo pipefail

a=${1:?usage: exhaust-compare.sh S17_A S17_B [ROUNDS]}
b=${2:?usage: exhaust-compare.sh S17_A S17_B [ROUNDS]}
rounds=${3:-4}
here=$(dirname "$0")
total=0
for r in $(seq 1 "$rounds"); do
    x=$("$here/exhaust-entries.sh" "$a" 0 | grep -o "[0-9.]*")
    y=$("$here/exhaust-entries.sh" "$b" 0 | grep -o "[0-9.]*")
    ratio=$(echo "$y / $x" | bc -l)
    total=$(echo "$total + $ratio" | bc -l)
    printf 'round %d: A %s s, B %s s, B/A %.4f\n' "$r" "$x" "$y" "$ratio"
done
printf 'mean B/A over %d rounds: %.4f\n' "$rounds" "$(echo "$total / $rounds" | bc -l)"
