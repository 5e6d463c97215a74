#!/usr/bin/env bash
# What a new user pastes first: the README's quickstart runs as written and
# ends with the completed document counted, and the examples that show the
# extension's version (docs/api.md's info()) show this version.
# Env: PGHOST PGPORT PGUSER (a superuser); $1: a database with the extension.
set -euo pipefail
db=$1
here=$(cd "$(dirname "$0")/.." && pwd -P)
source "$here/test/lib/checks.sh"

quickstart=$(awk '/^## Quickstart/ {on = 1} on && /^```sql/ {inb = 1; next} inb && /^```/ {exit} inb' \
    "$here/README.md")
[ -n "$quickstart" ] || fail "README.md has a Quickstart with an SQL block"
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" <<<"$quickstart" 2>&1) || true
check "the quickstart runs without an error" "$(grep -c ERROR <<<"$out" || true)" 0
check "... and its last statement shows the document completed" "$(tail -1 <<<"$out")" "mail|0|0|1"
q "SELECT fetchq.queue_drop('mail')" >/dev/null

version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$here/fetchq.control")
info=$(awk '/^### info$/ {on = 1} on && /^ 4\.0\.0 *\|/ {print $3; exit}' "$here/docs/api.md")
check "docs/api.md's info() example shows version $version" "$info" "$version"
check "and so does the server" "$(q "SELECT extension_version FROM fetchq.info()")" "$version"

exit $((failures > 0))
