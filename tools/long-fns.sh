#!/usr/bin/env bash
# Lists the long pieces of src/ (issue 54): functions over FN_MAX lines and
# files over FILE_MAX lines, longest first. A function is counted from its
# `fn` line to the closing brace at the same indentation, both included
# (rustfmt's layout; a signature over several lines counts). Declarations
# without a body are skipped.
#
#   tools/long-fns.sh [FN_MAX] [FILE_MAX]      # defaults 80 and 600
#
# Prints `LINES<TAB>FILE:LINE<TAB>fn NAME` per function, then
# `LINES<TAB>FILE` per file; exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
fn_max=${1:-80}
file_max=${2:-600}

echo "# functions over $fn_max lines"
find src -name '*.rs' | sort | while IFS= read -r file; do
    awk -v file="$file" -v max="$fn_max" '
        BEGIN { spaces = "                                        " }
        # A `fn` item: optional visibility and qualifiers, then `fn NAME`.
        match($0, /^ *((pub(\([a-z:]+\))? )?(const |async |unsafe |extern "C" )*)fn [A-Za-z_0-9]+/) {
            if (inside) next   # a nested fn: counted in its parent
            indent = match($0, /[^ ]/) - 1
            name = $0; sub(/^ *.*fn /, "", name); sub(/[^A-Za-z_0-9].*/, "", name)
            start = NR; inside = 1; closer = "^" substr(spaces, 1, indent) "}$"
            # A one-line body or a bodiless declaration ends here.
            if ($0 ~ /;$/ || $0 ~ /}$/) { inside = 0 }
            next
        }
        inside && $0 ~ /^ *;$/ { inside = 0; next }
        inside && $0 ~ closer {
            n = NR - start + 1
            if (n > max) printf "%d\t%s:%d\tfn %s\n", n, file, start, name
            inside = 0
        }
    ' "$file"
done | sort -rn

echo "# files over $file_max lines"
find src -name '*.rs' -print0 | xargs -0 wc -l | grep -v ' total$' |
    awk -v max="$file_max" '$1 > max { printf "%d\t%s\n", $1, $2 }' | sort -rn
