#!/usr/bin/env bash
# The layout of src (issue 29): floors core < pg < ops < sql_api | worker
# (< src/fetchq.cpp, the composition root) with no include running up a floor
# and none between sql_api and worker; every file of src/ops in a sub-domain
# folder with a README.md, no cycle between the sub-domains, and their
# includes exactly as docs/design.md draws them; every SQL family of
# src/sql_api in a folder named as an ops sub-domain. Reads the sources only:
# no build, no server. $1 (the runner's database) is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd -P)
db=${1:-}
source "$here/test/lib/checks.sh"

out=$(python3 - "$here" <<'PY'
import os, re, sys
root = sys.argv[1]; src = os.path.join(root, 'src')
FLOOR = {'core': 0, 'pg': 1, 'ops': 2, 'sql_api': 3, 'worker': 3}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
def files(top, exts=('.cpp', '.hpp')):
    for d, _, fs in os.walk(top):
        for f in sorted(fs):
            if f.endswith(exts): yield os.path.relpath(os.path.join(d, f), src)
def say(ok, what): print(('ok ' if ok else 'FAIL ') + what)

# 1. Floors. A "x/..." include whose x is not a floor is a PostgreSQL header.
bad = []
for f in list(files(src)):
    floor = f.split('/')[0] if '/' in f else 'fetchq.cpp'
    for inc in INC.findall(open(os.path.join(src, f)).read()):
        top = inc.split('/')[0]
        if top not in FLOOR or floor == 'fetchq.cpp': continue
        if floor == 'core' and top != 'core' or floor in FLOOR and (
                FLOOR[top] > FLOOR[floor] or FLOOR[top] == 3 and top != floor):
            bad.append(f'{f} includes {inc}')
        if not os.path.exists(os.path.join(src, inc)): bad.append(f'{f}: no {inc}')
say(not bad, 'no include runs up a floor, none between sql_api and worker, each resolves' +
    ''.join('\n  ' + b for b in bad))

# 2. Sub-domains of ops: one folder level, each with a README.md.
ops = os.path.join(src, 'ops')
subs = sorted(d for d in os.listdir(ops) if os.path.isdir(os.path.join(ops, d)))
loose = [f for f in os.listdir(ops) if os.path.isfile(os.path.join(ops, f)) and f.endswith(('.cpp', '.hpp'))]
deep = [f for f in files(ops) if f.count('/') > 2]
say(not loose and not deep, 'every file of src/ops is in a sub-domain folder' + ''.join('\n  ' + x for x in loose + deep))
say(all(os.path.isfile(os.path.join(ops, d, 'README.md')) for d in subs), 'each sub-domain folder has a README.md')

# 3. The sub-domain graph, its cycles, and the picture in docs/design.md.
edges = {}
for f in files(ops):
    a = f.split('/')[1]
    for inc in INC.findall(open(os.path.join(src, f)).read()):
        p = inc.split('/')
        if p[0] == 'ops' and len(p) == 3 and p[1] != a:
            edges.setdefault((a, p[1]), []).append(f'{f} -> {inc}')
graph = {s: sorted(b for (a, b) in edges if a == s) for s in subs}
state, cycle = {}, []
def visit(v, path):
    state[v] = 1
    for w in graph.get(v, []):
        if state.get(w) == 1 and not cycle: cycle.extend(path[path.index(w):] + [w])
        elif w not in state: visit(w, path + [w])
    state[v] = 2
for s in subs:
    if s not in state: visit(s, [s])
say(not cycle, 'no cycle between the sub-domains of ops' + (
    '\n  ' + ' -> '.join(cycle) + ''.join('\n  ' + e for a, b in zip(cycle, cycle[1:]) for e in edges[(a, b)]) if cycle else ''))
design = open(os.path.join(root, 'docs/design.md')).read()
m = re.search(r'<!-- ops sub-domains: checked by test/structure_test.sh -->\n```\n(.*?)```', design, re.S)
drawn, order = {}, []
for line in (m.group(1) if m else '').splitlines():
    l = re.match(r'\s*([a-z_]+)\s*(?:->\s*(.*))?$', line)
    if l: order.append(l.group(1)); drawn[l.group(1)] = sorted(x.strip() for x in (l.group(2) or '').split(',') if x.strip())
say(m is not None and sorted(order) == subs, 'docs/design.md draws every sub-domain of ops: ' + ' '.join(order))
diff = [f'{a}: drawn {drawn.get(a)}, includes {graph[a]}' for a in subs if drawn.get(a) != graph[a]]
say(not diff, 'the includes between sub-domains are those docs/design.md draws' + ''.join('\n  ' + d for d in diff))
up = [f'{a} -> {b}' for a in order for b in drawn[a] if b not in order[:order.index(a)]]
say(not up, 'docs/design.md lists the sub-domains lowest first' + ''.join('\n  ' + u for u in up))

# 4. sql_api: families in folders named as ops sub-domains; at the top only what serves all.
api = os.path.join(src, 'sql_api'); TOP = {'function.hpp', 'install_check.cpp'}
wrong = [f for f in os.listdir(api) if os.path.isfile(os.path.join(api, f)) and f.endswith(('.cpp', '.hpp', '.sql')) and f not in TOP]
wrong += [d + '/' for d in os.listdir(api) if os.path.isdir(os.path.join(api, d)) and d not in subs]
wrong += [f for f in files(api, ('.cpp', '.hpp', '.sql')) if f.count('/') > 2]
say(not wrong, 'every family of src/sql_api is in a folder named as an ops sub-domain' + ''.join('\n  ' + w for w in wrong))
PY
)
while IFS= read -r line; do
    case $line in
        "ok "*) ok "${line#ok }" ;;
        "FAIL "*) fail "${line#FAIL }" ;;
        *) echo "$line" ;;
    esac
done <<<"$out"
[ "$failures" -eq 0 ]
