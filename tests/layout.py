#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make layout-check: daemon/ keeps the shape README's Layout table describes.

- every folder of daemon/ has a row `daemon/FOLDER/` in README's Layout table,
  and every module of the folder (FOLDER/NAME.c or .h) is named in that row;
- no include cycle between modules (a module is FOLDER/NAME: its .c and .h);
- includes between daemon's modules are folder-qualified ("util/clock.h"), so
  a name says where the file is;
- no daemon source file is over MAX_LINES lines;
- no file of bench/ is over MAX_LINES lines either (its code: the results
  files, bench/results*.json, are measured data, not code).
Prints each problem on one line and exits 1 if there is any.
"""
import os
import re
import sys

MAX_LINES = 800
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def modules(root):
    mods = {}
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for dirpath, _, files in os.walk(path):
            for f in sorted(files):
                if f.endswith(('.c', '.h')):
                    rel = os.path.relpath(os.path.join(dirpath, f), root)
                    # NAME_internal.h is the private half of module NAME.
                    mod = re.sub(r'_internal$', '', os.path.splitext(rel)[0])
                    mods.setdefault(mod, []).append(rel)
    return mods


def layout_rows(readme):
    text = open(readme, encoding='utf-8').read()
    start = text.find('## Layout')
    if start < 0:
        return None
    rows = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith('## '):
            break
        m = re.match(r'\|\s*`daemon/([^`/]+)/`\s*\|(.*)\|\s*$', line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def bench_files(root):
    """bench/'s files but the measured results and what Python or a run leaves."""
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ('__pycache__', 'out'))
        for f in sorted(files):
            if not f.endswith(('.json', '.pyc')):
                yield os.path.join(dirpath, f)


def cycles(graph):
    """Tarjan's strongly connected components with more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    root, readme = 'daemon', 'README.md'
    problems = []
    mods = modules(root)
    rows = layout_rows(readme)
    if rows is None:
        problems.append('%s: no "## Layout" section' % readme)
        rows = {}
    folders = sorted({m.split('/')[0] for m in mods})
    for folder in folders:
        if folder not in rows:
            problems.append('%s: the Layout table has no row for daemon/%s/' % (readme, folder))
            continue
        for mod in sorted(m for m in mods if m.split('/')[0] == folder):
            name = os.path.basename(mod)
            if folder == 'static':
                continue  # compat shims, named as a group
            if not re.search(r'`%s(\.c|\.h)?`' % re.escape(name), rows[folder]):
                problems.append('%s: the daemon/%s/ row does not name `%s`' % (readme, folder, name))
    for folder in rows:
        if folder not in folders:
            problems.append('%s: the Layout table names daemon/%s/, which does not exist'
                            % (readme, folder))
    graph = {}
    for mod, files in mods.items():
        for rel in files:
            src = open(os.path.join(root, rel), encoding='utf-8').read()
            n = src.count('\n')
            if n > MAX_LINES:
                problems.append('daemon/%s: %d lines (over %d): split it by job' % (rel, n, MAX_LINES))
            for inc in INCLUDE.findall(src):
                target = re.sub(r'_internal$', '', os.path.splitext(inc)[0])
                if target in mods:
                    if target != mod:
                        graph.setdefault(mod, set()).add(target)
                elif '/' not in inc:
                    here = os.path.join(os.path.dirname(mod), os.path.splitext(inc)[0])
                    if here in mods:
                        problems.append('daemon/%s: #include "%s": name its folder ("%s.h")'
                                        % (rel, inc, here))
    nbench = 0
    for path in bench_files('bench'):
        nbench += 1
        n = open(path, encoding='utf-8', errors='replace').read().count('\n')
        if n > MAX_LINES:
            problems.append('%s: %d lines (over %d): split it by job' % (path, n, MAX_LINES))
    for comp in cycles(graph):
        problems.append('include cycle between modules: %s' % ' <-> '.join(comp))
    for p in problems:
        print('layout-check: ' + p)
    if problems:
        return 1
    print('layout-check: %d modules in %d folders, no cycle, README matches; %d files of bench/ '
          'within %d lines' % (len(mods), len(folders), nbench, MAX_LINES))
    return 0


if __name__ == '__main__':
    sys.exit(main())
