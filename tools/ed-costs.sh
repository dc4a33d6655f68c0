#!/usr/bin/env bash
# Makes data/ed-costs.tsv, the per-slice cost table that `s17 campaign plan`
# cuts the ED catalogue by, from the per-slice lines of `s17 exhaust
# --estimate N` (columns K ENTRIES GRIDS SAMPLED BANDS3 HI_GRIDS SECONDS
# SLICE_SECONDS ONE_GRID_SECONDS; SECONDS is the sample's CPU time over its
# SAMPLED entries):
#
#   s17 exhaust --estimate 4 --threads 1 > est.tsv     # about 15 minutes, alone on the machine
#   tools/ed-costs.sh est.tsv "BUILD" "MACHINE" > data/ed-costs.tsv
#
#   for s in 17 18 19; do s17 exhaust --estimate 1 --clues 18 --first --seed $s --threads 1 > est-$s.tsv; done
#   tools/ed-costs.sh est-17.tsv,est-18.tsv,est-19.tsv "BUILD" "MACHINE" 18-first > data/ed-costs-18-first.tsv
#
# ESTIMATE may name several estimate files, separated by commas: their
# lines of one slice are added (SAMPLED and SECONDS summed), so samples of
# several seeds make one table.
# BUILD names the commit measured, MACHINE the machine and how it ran (a
# free-text line each; they go into the header). GOAL (optional: N or
# N-first, N the clue count) names a table for another goal than the 17s
# (`s17 campaign plan --clues N [--first]`); it only sets the header's
# regenerate line. Each line of the table is
# K ENTRIES GRIDS SAMPLED SECONDS SECONDS_PER_ENTRY, the last being
# SECONDS / SAMPLED, with a floor of 0.01 s for a slice with no sampled
# entry or a zero time (so a plan never has a free slice).
#
# The header's `# within-slice cv: C` line makes the planner shrink each
# slice's mean toward the catalogue's (src/campaign/costs.rs). C is $CV if
# set (`CV= ` for no line), else the figure the held-out checks chose for
# the goal: 0.8 for the 17s, 2.0 for 18 and 18-first; other goals get no
# line unless CV is given.
#
# The header's `# cost per weight: power P, cv C` line, and two more
# columns WEIGHED WEIGHT on every line, make `campaign plan --per-entry`
# predict each entry as its slice's cost per weight times the entry's
# weight to the power P (src/campaign/costs.rs): an entry's weight is its
# bands 3 plus 8 for each hi visit (BANDS3 + 8 HI_GRIDS of a line of one
# entry, as `--per-entry` counts for 18s); WEIGHED counts the sampled
# entries of weight above 0, WEIGHT adds their weights to the power P.
# Every line of the estimate must then be one entry (`--estimate 1`, one
# file a seed). P is $WEIGHT_POWER if set (`WEIGHT_POWER= ` for no line),
# else 0.8 for 18 and 18-first (none for the others); C is $WEIGHT_CV, else
# 0.5: both chosen by the held-out check of benches/README.md ("An
# entry's weight at plan time").
set -euo pipefail

die() { echo "ed-costs: error: $*" >&2; exit 2; }
[[ $# -eq 3 || $# -eq 4 ]] || die "usage: $0 ESTIMATE.tsv BUILD MACHINE [GOAL]"
est=$1 build=$2 machine=$3 goal=${4:-}
IFS=, read -r -a files <<< "$est"
[[ ${#files[@]} -gt 0 ]] || die "no estimate file"
for f in "${files[@]}"; do [[ -r $f ]] || die "cannot read $f"; done
case $goal in
    "") flags="" table=data/ed-costs.tsv ;;
    1[6-9] | 1[6-9]-first | 2[01] | 2[01]-first)
        flags=" --clues ${goal%-first}"
        [[ $goal == *-first ]] && flags+=" --first"
        table=data/ed-costs-$goal.tsv ;;
    *) die "GOAL must be N or N-first, N from 16 to 21 (got '$goal')" ;;
esac
# The estimate's entries per slice (the largest SAMPLED): its --estimate.
per_slice=$(awk -F'\t' '!/^#/ && $4 > m { m = $4 } END { print m + 0 }' "${files[@]}")
case $goal in
    18 | 18-first) default_power=0.8 ;;
    *) default_power="" ;;
esac
if [[ -v WEIGHT_POWER ]]; then power=$WEIGHT_POWER; else power=$default_power; fi
weight_cv=${WEIGHT_CV:-0.5}
[[ -z $power || $power =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "WEIGHT_POWER must be a number (got '$power')"
[[ $weight_cv =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "WEIGHT_CV must be a number (got '$weight_cv')"
if [[ -n $power ]]; then
    [[ $per_slice -le 1 ]] || die "a weight column needs one entry a line (--estimate 1, one file a seed); $est has $per_slice"
    regenerate="for s in 17 18 19; do s17 exhaust --estimate 1$flags --seed \$s --threads 1 > est-\$s.tsv; done && tools/ed-costs.sh est-17.tsv,est-18.tsv,est-19.tsv BUILD MACHINE${goal:+ $goal} > $table"
else
    regenerate="s17 exhaust --estimate $per_slice$flags --threads 1 > est.tsv && tools/ed-costs.sh est.tsv BUILD MACHINE${goal:+ $goal} > $table"
fi
floor=0.01
case $goal in
    "") default_cv=0.8 why="chosen by the held-out check: one entry in each of 208 slices, seed 101, against the shrunk means; 0.5 to 2.0 tried" ;;
    18 | 18-first) default_cv=2.0 why="chosen by the held-out check: tables of two of the seeds 17, 18, 19 against the third seed's entries; 0.8 to 4.0 tried" ;;
    *) default_cv="" why="" ;;
esac
if [[ -v CV ]]; then
    cv=$CV why="given by CV"
else
    cv=$default_cv
fi
[[ -z $cv || $cv =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "CV must be a number (got '$cv')"

awk -F'\t' -v OFS='\t' -v src="$est" -v build="$build" -v machine="$machine" -v floor="$floor" -v regenerate="$regenerate" -v cv="$cv" -v why="$why" -v power="$power" -v wcv="$weight_cv" '
    BEGIN { n = 0 }
    /^#/ { next }
    NF < 7 { printf "ed-costs: error: %s line %d: expected 9 tab-separated fields\n", FILENAME, FNR > "/dev/stderr"; bad = 1; exit 2 }
    {
        # The lines of one slice (one a file) are added.
        if (!($1 in at)) { at[$1] = n; k[n] = $1; entries[n] = $2; grids[n] = $3; lines[n] = 0; n++ }
        i = at[$1]; lines[i]++; sampled[i] += $4; sum[i] += $7; text[i] = $7; total_sampled += $4
        if ($5 > 0) { weighed[i]++; weight[i] += ($5 + 8 * $6) ^ power }
    }
    END {
        if (bad) exit 2
        for (i = 0; i < n; i++) {
            secs[i] = lines[i] == 1 ? text[i] : sprintf("%.3f", sum[i])
            per = (sampled[i] > 0 && sum[i] > 0) ? sum[i] / sampled[i] : floor
            if (per < floor) per = floor
            perentry[i] = per
        }
        print "# s17 ED catalogue costs v1: mean CPU seconds per entry of each slice, for `s17 campaign plan`"
        print "# source: " src " (the per-slice lines of `s17 exhaust --estimate`)"
        print "# build: " build
        print "# machine: " machine
        printf "# sample: %d entries in %d slices; floor %s s per entry (a slice with no sampled entry or a zero time)\n", total_sampled, n, floor
        if (cv != "") printf "# within-slice cv: %s (the spread of one entry'"'"'s cost within its slice that `s17 campaign plan` shrinks each slice'"'"'s mean toward the catalogue'"'"'s by; %s)\n", cv, why
        if (power != "") printf "# cost per weight: power %s, cv %s (`s17 campaign plan --per-entry` predicts an entry as its slice'"'"'s cost per weight, SECONDS over WEIGHT shrunk by cv, times its weight, bands 3 + 8 hi visits, to the power; WEIGHED: the sampled entries of weight above 0, WEIGHT: their weights to the power, added)\n", power, wcv
        print "# regenerate: " regenerate
        if (power != "") print "# K", "ENTRIES", "GRIDS", "SAMPLED", "SECONDS", "SECONDS_PER_ENTRY", "WEIGHED", "WEIGHT"
        else print "# K", "ENTRIES", "GRIDS", "SAMPLED", "SECONDS", "SECONDS_PER_ENTRY"
        for (i = 0; i < n; i++) {
            printf "%s\t%s\t%s\t%s\t%s\t%.6f", k[i], entries[i], grids[i], sampled[i], secs[i], perentry[i]
            if (power != "") printf "\t%d\t%.6f", weighed[i], weight[i]
            printf "\n"
        }
    }' "${files[@]}"
