#!/usr/bin/env bash
# META.json, the distribution's metadata for PGXN (Meta Spec 1.0.0): valid
# JSON with the spec's required keys, the version of fetchq.control and of
# debian/changelog (its upstream part), and every file it names in the tree.
# No server and no network; $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd -P)
db=${1:-}
source "$here/test/lib/checks.sh"
meta=$here/META.json

# field PATH...: the value at that path of META.json (keys, or list indexes),
# as JSON text for objects and lists; empty when absent.
field() {
    python3 - "$meta" "$@" <<'PY'
import json, sys
value = json.load(open(sys.argv[1], encoding="utf-8"))
for key in sys.argv[2:]:
    if isinstance(value, list) and key.isdigit() and int(key) < len(value):
        value = value[int(key)]
    elif isinstance(value, dict) and key in value:
        value = value[key]
    else:
        sys.exit(0)
print(value if isinstance(value, str) else json.dumps(value, sort_keys=True))
PY
}

if [ ! -f "$meta" ]; then
    fail "META.json exists at the top of the tree"
    echo "meta test: $failures failure(s)"
    exit 1
fi
if err=$(python3 - "$meta" 2>&1 <<'PY'
import json, sys
try:
    json.load(open(sys.argv[1], encoding="utf-8"))
except ValueError as e:
    sys.exit(str(e))
PY
); then
    ok "META.json is valid JSON"
else
    fail "META.json is valid JSON ($err)"
    echo "meta test: $failures failure(s)"
    exit 1
fi

# The required keys of Meta Spec 1.0.0, and what they must hold.
for key in name abstract version maintainer license provides meta-spec; do
    if [ -n "$(field "$key")" ]; then ok "has $key"; else fail "has $key"; fi
done
check "name" "$(field name)" fetchq
check "meta-spec version" "$(field meta-spec version)" 1.0.0
check "license" "$(field license)" postgresql
check "LICENSE at the top says the PostgreSQL License" \
    "$(head -n 1 "$here/LICENSE" 2>/dev/null || true)" "PostgreSQL License"

control=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" "$here/fetchq.control")
changelog=$(sed -n '1s/^fetchq (\([^)]*\)).*/\1/p' "$here/debian/changelog")
if command -v dpkg-parsechangelog >/dev/null; then
    changelog=$(dpkg-parsechangelog -l "$here/debian/changelog" -S Version)
fi
upstream=${changelog#*:}
upstream=${upstream%-*}
version=$(field version)
check "version is fetchq.control's default_version" "$version" "$control"
check "version is the upstream part of debian/changelog's latest ($changelog)" "$version" "$upstream"
check "provides fetchq at that version" "$(field provides fetchq version)" "$version"
check_has "prereqs: PostgreSQL 15" "$(field prereqs runtime requires PostgreSQL)" '(^|[ =])15\.0\.0'

# Every file named: the extension's file and docfile (each provided extension's).
names=$(python3 - "$meta" <<'PY'
import json, sys
meta = json.load(open(sys.argv[1], encoding="utf-8"))
for ext in sorted(meta.get("provides", {})):
    for key in ("file", "docfile"):
        if key in meta["provides"][ext]:
            print(meta["provides"][ext][key])
PY
)
if [ -n "$(field provides fetchq file)" ]; then ok "provides fetchq's file"; else fail "provides fetchq's file"; fi
# pgxnclient's load and unload take an extension whose file does not end in
# .sql for no PostgreSQL extension, and skip CREATE/DROP EXTENSION.
check_has "... an SQL file (pgxn load runs CREATE EXTENSION)" "$(field provides fetchq file)" '\.sql$'
if [ -n "$(field provides fetchq docfile)" ]; then ok "provides fetchq's docfile"; else fail "provides fetchq's docfile"; fi
while IFS= read -r f; do
    [ -n "$f" ] || continue
    case $f in
    /* | *..*) fail "$f is a relative path inside the tree" ;;
    *) if [ -f "$here/$f" ]; then ok "$f exists"; else fail "$f exists"; fi ;;
    esac
done <<<"$names"

echo "meta test: $failures failure(s)"
[ "$failures" = 0 ]
