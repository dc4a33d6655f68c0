#!/usr/bin/env bash
# check-exhaust.sh: the acceptance check of `s17 exhaust` against the known
# list. Places every known 17 with `s17 enumerate --which` (slice K, entry E),
# draws N distinct entries holding known 17s (seeded), runs `s17 exhaust` on
# each entry alone, and compares its 17s with the known 17s placed there
# (both in minlex form). The known list is complete, so the two must be equal:
# nothing missed, nothing new.
#
# Usage: tools/check-exhaust.sh N SEED [WORKDIR] [JOBS]
#   WORKDIR (default target/check-exhaust) keeps the placement of the known
#   list (known-which.tsv, about 10 minutes on one core; reused when present)
#   and one output per entry. S17 (env) is the binary, default
#   target/release/s17. JOBS entries run at once (default 2), one thread each.
# Prints one line per entry (K, E, expected, found, missed, new) and a summary;
# exits 1 if any entry differs.
set -euo pipefail

n=${1:?usage: check-exhaust.sh N SEED [WORKDIR] [JOBS]}
seed=${2:?usage: check-exhaust.sh N SEED [WORKDIR] [JOBS]}
work=${3:-target/check-exhaust}
jobs=${4:-2}
s17=${S17:-target/release/s17}
known=data/known17.txt
[ -x "$s17" ] || { echo "check-exhaust: no binary at $s17 (cargo build --release)" >&2; exit 2; }
mkdir -p "$work/entries"

if [ ! -s "$work/known-which.tsv" ]; then
    echo "check-exhaust: placing the known list (s17 enumerate --which)..." >&2
    "$s17" -q enumerate --which "$known" > "$work/known-which.tsv.tmp"
    mv "$work/known-which.tsv.tmp" "$work/known-which.tsv"
fi

# The sample: N distinct (K, E) pairs, in a seeded random order.
cut -f3,4 "$work/known-which.tsv" | sort -u |
    shuf -n "$n" --random-source=<(openssl enc -aes-256-ctr -pass pass:"$seed" -nosalt </dev/zero 2>/dev/null) \
    > "$work/sample.tsv"

check_one() {
    local k=$1 e=$2 work=$3 s17=$4 known=$5
    local base="$work/entries/$k-$e"
    # Expected: the known 17s placed at (k, e), in minlex form.
    awk -F'\t' -v k="$k" -v e="$e" '$3 == k && $4 == e { print $1 }' "$work/known-which.tsv" |
        awk 'NR == FNR { want[$1] = 1; next } (FNR in want)' - "$known" |
        "$s17" -q canon | sort -u > "$base.expected"
    "$s17" -q exhaust --band "$k" --entries "$e..$((e + 1))" -o "$base.txt" --force --threads 1
    cut -f2 "$base.txt" | sort -u > "$base.found"
    local exp found missed new
    exp=$(wc -l < "$base.expected")
    found=$(wc -l < "$base.found")
    missed=$(comm -23 "$base.expected" "$base.found" | wc -l)
    new=$(comm -13 "$base.expected" "$base.found" | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$e" "$exp" "$found" "$missed" "$new"
}
export -f check_one

export CHECK_WORK=$work CHECK_S17=$s17 CHECK_KNOWN=$known
tr '\t' ' ' < "$work/sample.tsv" |
    xargs -P "$jobs" -L 1 bash -c 'check_one "$1" "$2" "$CHECK_WORK" "$CHECK_S17" "$CHECK_KNOWN"' _ \
    > "$work/results.tsv"
echo -e "# K\tENTRY\tEXPECTED\tFOUND\tMISSED\tNEW"
sort -n -k1,1 -k2,2 "$work/results.tsv"
awk -F'\t' '{ n++; expected += $3; found += $4; missed += $5; new += $6; bad += ($5 + $6 > 0) }
    END { printf "check-exhaust: %d entries, %d known 17s placed there, %d found, %d missed, %d new, %d entries differ\n", n, expected, found, missed, new, bad;
          exit (bad > 0 || n == 0) }' "$work/results.tsv"
