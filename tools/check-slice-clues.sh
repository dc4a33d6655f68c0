#!/usr/bin/env bash
# check-slice-clues.sh: `s17 exhaust --clues N` on a slice (or a range of its
# entries) against the one-grid search of every grid the slice visits.
#
# The oracle shares no catalogue code with `exhaust`: the grids come from
# `s17 enumerate --visits`, their puzzles from `s17 search --clues N` (the
# one-grid search), and each puzzle is placed by `s17 enumerate --which` (the
# plan's band-3 rule for N under the grid's canonical hi-form). Expected: the
# puzzles placed in this slice and range, in minlex form. Checked:
#   1. `exhaust --clues N` gives exactly them;
#   2. `exhaust --clues N --first` gives one puzzle for exactly the visits
#      (K, ENTRY, GRID) that hold some, and each is one of that visit's.
#
# Usage: tools/check-slice-clues.sh K N [A..B] [WORKDIR] [JOBS]
#   S17 (env) is the binary (default target/release/s17); JOBS threads for
#   the one-grid searches (default 2); exhaust runs on --threads JOBS too.
# Prints the counts and times; exits 1 on any difference. A rerun in the
# same WORKDIR keeps a finished one-grid search of the same grids.
set -euo pipefail

k=${1:?usage: check-slice-clues.sh K N [A..B] [WORKDIR] [JOBS]}
n=${2:?usage: check-slice-clues.sh K N [A..B] [WORKDIR] [JOBS]}
range=${3:-}
work=${4:-target/check-slice-$k-$n}
jobs=${5:-2}
s17=${S17:-target/release/s17}
[ -x "$s17" ] || { echo "check-slice-clues: no binary at $s17 (cargo build --release)" >&2; exit 2; }
mkdir -p "$work"
# Minlex forms of the puzzles on stdin (none for none: `s17 canon` refuses
# an empty input).
canon() {
    local lines
    lines=$(cat)
    [ -z "$lines" ] || printf '%s\n' "$lines" | "$s17" -q canon
}
# `s17 enumerate --which FILE`, nothing for an empty FILE.
which_of() {
    [ ! -s "$1" ] || "$s17" -q enumerate --which "$1"
}
entries=()
[ -n "$range" ] && entries=(--entries "$range")

# The visits and their grids.
"$s17" -q enumerate --band "$k" "${entries[@]}" --visits > "$work/visits.tsv"
cut -f2 "$work/visits.tsv" > "$work/grids.txt"
echo "slice $k ${range:-whole}: $(wc -l < "$work/grids.txt") visits" >&2

# The one-grid search of each, its puzzles placed by `which`.
# (A finished one-grid search of the same grids is kept: the costly half.)
start=$(date +%s)
if [ -s "$work/one-grid.grids" ] && cmp -s "$work/one-grid.grids" "$work/grids.txt" && [ -e "$work/one-grid.tsv" ]; then
    echo "one-grid search: $(wc -l < "$work/one-grid.tsv") puzzles (kept from an earlier run)" >&2
else
    "$s17" -q search --clues "$n" --threads "$jobs" -i "$work/grids.txt" > "$work/one-grid.part"
    mv "$work/one-grid.part" "$work/one-grid.tsv"
    cp "$work/grids.txt" "$work/one-grid.grids"
    echo "one-grid search: $(wc -l < "$work/one-grid.tsv") puzzles in $(( $(date +%s) - start )) s" >&2
fi
cut -f2 "$work/one-grid.tsv" > "$work/one-grid.txt"
which_of "$work/one-grid.txt" > "$work/placed.tsv"
# LINE CHOICE K ENTRY GRID: keep those placed in this slice (and range).
awk -F'\t' -v k="$k" -v r="$range" '
    BEGIN { lo = 0; hi = -1; if (r != "") { split(r, a, /\.\./); lo = a[1]; hi = (a[2] == "" ? -1 : a[2]) } }
    $3 == k && $4 >= lo && (hi < 0 || $4 < hi) { print $1 "\t" $4 "\t" $5 }' "$work/placed.tsv" > "$work/here.tsv"
awk -F'\t' 'NR == FNR { want[$1] = 1; next } (FNR in want)' "$work/here.tsv" "$work/one-grid.txt" |
    canon | sort -u > "$work/expected.txt"
cut -f2,3 "$work/here.tsv" | sort -u > "$work/expected-visits.tsv"

# exhaust, all and first.
start=$(date +%s)
"$s17" -q exhaust --band "$k" "${entries[@]}" --clues "$n" -o "$work/all.txt" --force --threads "$jobs"
echo "exhaust --clues $n: $(( $(date +%s) - start )) s" >&2
cut -f2 "$work/all.txt" | sort -u > "$work/found.txt"
start=$(date +%s)
"$s17" -q exhaust --band "$k" "${entries[@]}" --clues "$n" --first -o "$work/first.txt" --force --threads "$jobs"
echo "exhaust --clues $n --first: $(( $(date +%s) - start )) s" >&2
cut -f2 "$work/first.txt" > "$work/first-puzzles.txt"
which_of "$work/first-puzzles.txt" | cut -f3,4,5 |
    awk -F'\t' '{ print $2 "\t" $3 }' | sort > "$work/first-visits.tsv"

status=0
exp=$(wc -l < "$work/expected.txt")
found=$(wc -l < "$work/found.txt")
missed=$(comm -23 "$work/expected.txt" "$work/found.txt" | wc -l)
new=$(comm -13 "$work/expected.txt" "$work/found.txt" | wc -l)
echo "puzzles: expected $exp, found $found, missed $missed, new $new"
[ "$missed" -eq 0 ] && [ "$new" -eq 0 ] || status=1
# --first: one per visit that has some, none twice, each one of the expected.
firsts=$(wc -l < "$work/first-visits.tsv")
distinct=$(sort -u "$work/first-visits.tsv" | wc -l)
visits=$(wc -l < "$work/expected-visits.tsv")
same=$(comm -3 "$work/expected-visits.tsv" <(sort -u "$work/first-visits.tsv") | wc -l)
outside=$(comm -13 "$work/expected.txt" <(canon < "$work/first-puzzles.txt" | sort -u) | wc -l)
echo "--first: visits with a puzzle expected $visits, flagged $distinct ($firsts puzzles), differing $same, puzzles not expected $outside"
[ "$firsts" -eq "$distinct" ] && [ "$same" -eq 0 ] && [ "$outside" -eq 0 ] || status=1
[ "$status" -eq 0 ] && echo "check-slice-clues: slice $k ${range:-whole}, N = $n: exact" ||
    echo "check-slice-clues: slice $k ${range:-whole}, N = $n: DIFFERS" >&2
exit "$status"
