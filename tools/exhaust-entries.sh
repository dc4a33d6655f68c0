#!/usr/bin/env bash
# exhaust-entries.sh: a quick timing of `s17 exhaust` on ten fixed catalogue
# entries (one per line: slice K, entry E), for comparing two builds while
# tuning: the sum of the search times `s17 exhaust` prints (CPU time per grid
# times grids; an entry with no grid of its own counts once), one thread,
# pinned to one core. Compare builds side by side (one per core, then
# swapped): these machines are noisy, and the figures move by 2-3 %.
#
# Usage: tools/exhaust-entries.sh S17_BINARY [CORE]
#   e.g. tools/exhaust-entries.sh target/release/s17 0 &
#        tools/exhaust-entries.sh /tmp/s17-old 1; wait
# Needs taskset and bc. Set V=1 to see each entry. Writes its outputs to
# ${TMPDIR:-/tmp}/exhaust-entries-CORE-K.txt.
set -euo pipefail

s17=${1:?usage: exhaust-entries.sh S17_BINARY [CORE]}
core=${2:-0}
tmp=${TMPDIR:-/tmp}
sum=0
for ke in 78:1900000 36:1600000 292:2300000 114:2700000 86:2200000 \
          33:1700000 188:2000000 305:1100000 228:3000000 130:2200000; do
    k=${ke%%:*}
    e=${ke##*:}
    line=$(taskset -c "$core" "$s17" exhaust --band "$k" --entries "$e..$((e + 1))" \
        --threads 1 -o "$tmp/exhaust-entries-$core-$k.txt" --force 2>&1 \
        | grep "s17 exhaust: slice" | tail -1)
    grids=$(echo "$line" | grep -o "[0-9]* ED grid" | cut -d' ' -f1)
    # "(T s CPU per grid" (older builds: "(T s per grid"), or for an entry
    # with no ED grid of its own "(T s CPU, ... no ED grid" (older builds
    # printed its time as the time per grid).
    per=$(echo "$line" | grep -oE "\([0-9.]* s (CPU )?per (ED )?grid|\([0-9.]* s CPU," | tr -d '(' | cut -d' ' -f1)
    [ "$grids" = 0 ] && grids=1
    sum=$(echo "$sum + $grids * $per" | bc -l)
    [ -n "${V:-}" ] && echo "slice $k entry $e: $grids grids, $per s per grid"
done
echo "search $sum s"
