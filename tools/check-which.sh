#!/usr/bin/env bash
# Checks `s17 enumerate --which` the long way round, as the acceptance of the
# ED catalogue asks: for each answer line (LINE, CHOICE, K, ENTRY, GRID) the
# listing of entry ENTRY of slice K (`--visits`) must hold GRID for CHOICE,
# and GRID must have the minlex form of the input line's grid (for a 17, its
# solution's). Prints one summary line; exits 1 on any failure.
#
#   tools/check-which.sh ITEMS.txt [S17_BINARY] [JOBS]
#
# ITEMS.txt: grids and/or 17s, one per line (no comments or blank lines).
set -euo pipefail
items=$1
s17=${2:-target/release/s17}
jobs=${3:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$s17" enumerate --which "$items" > "$work/answers.tsv"
# The minlex form of each input's grid: grids as they are, 17s solved first.
while IFS= read -r line; do
    if [[ $line == *[.0]* ]]; then
        "$s17" solve - <<< "$line" 2>/dev/null
    else
        echo "$line"
    fi
done < "$items" | "$s17" canon - 2>/dev/null > "$work/forms.txt"
cut -f5 "$work/answers.tsv" | "$s17" canon - 2>/dev/null > "$work/answer-forms.txt"

# Each answer's listing, JOBS at a time.
check_one() {
    local s17=$1 line=$2 choice=$3 k=$4 entry=$5 grid=$6
    if "$s17" enumerate --band "$k" --entries "$entry..$((entry + 1))" --visits -q |
        awk -F'\t' -v e="$entry" -v g="$grid" -v c="$choice" \
            '($1 "") == (e "") && ($2 "") == (g "") { n = split($3, cs, ","); for (i = 1; i <= n; i++) if (cs[i] == c) found = 1 }
             END { exit !found }'; then
        echo "ok $line $choice"
    else
        echo "FAIL $line $choice $k $entry $grid"
    fi
}
export -f check_one
tr '\t' ' ' < "$work/answers.tsv" |
    xargs -P "$jobs" -n 5 bash -c 'check_one "$0" "$@"' "$s17" > "$work/checks.txt"

answers=$(wc -l < "$work/answers.tsv")
failed=$(grep -c '^FAIL' "$work/checks.txt" || true)
# Minlex forms: the answers of input line N against line N's form.
mismatched=$(awk -F'\t' 'NR == FNR { form[FNR] = $0; next } { print $1 }' \
        "$work/forms.txt" "$work/answers.tsv" |
    paste - "$work/answer-forms.txt" |
    awk -F'\t' -v forms="$work/forms.txt" '
        BEGIN { while ((getline l < forms) > 0) f[++n] = l }
        f[$1] != $2 { bad++ } END { print bad + 0 }')
grep '^FAIL' "$work/checks.txt" || true
echo "check-which: $(wc -l < "$items") items, $answers answers, $((answers - failed)) found in the entry named, $failed not, $mismatched with another minlex form"
[[ $failed -eq 0 && $mismatched -eq 0 ]]
