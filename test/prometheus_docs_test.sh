#!/usr/bin/env bash
# docs/operations.md names, in full and in backquotes, every series that
# deploy/prometheus/queries.yml defines: column c (not a LABEL) of query q is
# the series q_c. Reads the two files only; $1 (a database) is not used.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1
source test/lib/checks.sh
queries=deploy/prometheus/queries.yml
doc=docs/operations.md

# query:column:usage, one per metric of the file.
metrics=$(awk '
    /^[a-z_]+:[[:space:]]*$/ { query = $1; sub(/:.*/, "", query); next }
    /^    - [a-z_0-9]+:[[:space:]]*$/ { column = $2; sub(/:.*/, "", column); next }
    /^        usage:/ { usage = $2; gsub(/"/, "", usage); print query ":" column ":" usage }
' "$queries")
n=0
while IFS=: read -r query column usage; do
    [ "$usage" = LABEL ] && continue
    n=$((n + 1))
    series=${query}_$column
    if grep -qF "\`$series\`" "$doc"; then
        ok "$doc names $series"
    else
        fail "$doc does not name $series (of query $query in $queries)"
    fi
done <<<"$metrics"
# The parse found the file's series (a format change must not pass silently).
[ "$n" -ge 20 ] && ok "$n series read from $queries" || fail "only $n series read from $queries"
echo "prometheus docs test: $failures failure(s)"
[ "$failures" = 0 ]
