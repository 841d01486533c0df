#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench-scale-report.py - make bench-scale's tables (Markdown) from the
RIG-SCALE lines the host guests printed and the RIG-SCALE-MARK lines of
the target guests, prefixed with their pairing (scripts/bench-scale.sh).

Usage: bench-scale-report.py RESULTS KVER COMMIT HOST_VCPUS PAIR...
Fails (exit 1, nothing written) when a pairing lacks a figure another has,
or its target's use_srq was not what the host asked for.
"""
import sys
from collections import defaultdict


def parse(path):
    """{pair: {(case, key): value}}, the memory marks by pair, and the
    limit runs' figures by pair: {(case, srq): {key: value}} (case limit:
    hosts, how; limit-oom: lines), their marks under (case 'mark', srq,
    hosts)."""
    figs, marks, limits = defaultdict(dict), defaultdict(dict), defaultdict(dict)
    for line in open(path):
        words = line.split()
        pair, kind, kv = words[0], words[1], words[2:]
        if kind == 'mark' and 'limit' in kv:
            d = dict(w.split('=', 1) for w in kv if '=' in w)
            limits[pair][('mark', d['srq'], int(d['hosts']))] = int(d['kib'])
            continue
        if kind == 'mark':
            # hosts=N srq=Y before|after kib=K slab_kib=S vmalloc_kib=V
            # buffers_kib=B|none use_srq=Y|N
            d = dict(w.split('=', 1) for w in kv if '=' in w)
            when = [w for w in kv if '=' not in w][0]
            if d['use_srq'] != d['srq']:
                raise SystemExit(f'bench-scale: {pair}: the target had use_srq={d["use_srq"]} '
                                 f'where srq={d["srq"]} was asked')
            marks[pair][(d['hosts'], d['srq'], when)] = tuple(
                None if d[k] == 'none' else int(d[k])
                for k in ('kib', 'slab_kib', 'vmalloc_kib', 'buffers_kib'))
            continue
        d = dict(w.split('=', 1) for w in words[1:])
        case = d.pop('case')
        if case in ('limit', 'limit-oom'):
            limits[pair][(case, d.pop('srq'))] = d
            continue
        value = d.pop('ms')
        figs[pair][(case,) + tuple(sorted(d.items()))] = int(value)
    return figs, marks, limits


def limit_table(pairs, limits):
    """The limit runs' table (Markdown lines), or None if a pair lacks a
    figure another has; [] without limit runs."""
    srqs = sorted({k[1] for p in pairs for k in limits[p] if k[0] == 'limit'})
    if not srqs:
        return []
    if any(('limit', s) not in limits[p] or ('limit-oom', s) not in limits[p]
           for p in pairs for s in srqs):
        return None
    out = ['', '## How many hosts a target guest of 2 GiB takes', '',
           'Hosts (two I/O queues each) connected one after another until the first that could not: '
           'how many did, what stopped the next (refused: the target rejected it, its memory '
           'reserve; gone: the target guest no longer answered; none: the most the run asks), '
           'the target kernel\'s out-of-memory lines, and its memory per host by then (KiB).', '',
           '| SRQ | ' + ' | '.join(f'{p} hosts | {p} next | {p} OOM lines | {p} KiB/host' for p in pairs) + ' |',
           '|---|' + '---|---|---|---|' * len(pairs)]
    for s in srqs:
        row = []
        for p in pairs:
            lim = limits[p][('limit', s)]
            n = int(lim['hosts'])
            before, after = limits[p].get(('mark', s, 0)), limits[p].get(('mark', s, n))
            per = f'{(after - before) // n:,}' if n and before is not None and after is not None else '-'
            row += [f'{n:,}', lim['how'], limits[p][('limit-oom', s)]['lines'], per]
        out.append(f'| {s} | ' + ' | '.join(row) + ' |')
    return out


def main():
    results, kver, commit, cpus, pairs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    figs, marks, limits = parse(results)
    keys = sorted({k for p in pairs for k in figs[p]})
    mkeys = sorted({(h, s) for p in pairs for (h, s, _w) in marks[p]})
    missing = [(p, k) for p in pairs for k in keys if k not in figs[p]]
    missing += [(p, k) for p in pairs for (h, s) in mkeys for k in ((h, s, 'before'), (h, s, 'after'))
                if k not in marks[p]]
    ltable = limit_table(pairs, limits)
    if missing or not keys or ltable is None:
        for p, k in missing:
            print(f'bench-scale: {p} has no figure for {k}', file=sys.stderr)
        if not keys:
            print('bench-scale: no figure at all', file=sys.stderr)
        if ltable is None:
            print('bench-scale: a pairing lacks a limit run another has', file=sys.stderr)
        return 1
    out = [f'# bench-scale on {kver}', '',
           f'Commit {commit}; host guest {cpus} vCPUs, target guest 1, joined by a wire; '
           'real time (median of the runs), so figures move with the machine\'s load.', '']
    out += ['## Connect and reset by I/O queue count (ms)', '',
            '| I/O queues | ' + ' | '.join(f'{p} connect | {p} reset' for p in pairs) + ' |',
            '|---|' + '---|---|' * len(pairs)]
    qs = sorted({int(dict(k[1:])['queues']) for k in keys if k[0] == 'connect'})
    for q in qs:
        row = [f'{figs[p][(c, ("queues", str(q)))]:,}' for p in pairs for c in ('connect', 'reset')]
        out.append(f'| {q} | ' + ' | '.join(row) + ' |')
    cols = ('pages', 'slab', 'vmalloc', 'buffers')
    out += ['', '## Many hosts on one port: target memory per connection (KiB), storm (ms)', '',
            'pages: all the target kernel took from the page allocator; slab and vmalloc: '
            'the part of it in each; buffers: what our target\'s statistics say its queues\' '
            'own buffers hold (the shared receive queue\'s included; stock has no statistics).', '',
            '| hosts | SRQ | ' + ' | '.join(f'{p} {c}' for p in pairs for c in cols + ('storm',)) + ' |',
            '|---|---|' + '---|' * (len(cols) + 1) * len(pairs)]
    for h, s in sorted(mkeys, key=lambda x: (int(x[0]), x[1])):
        row = []
        for p in pairs:
            before, after = marks[p][(h, s, 'before')], marks[p][(h, s, 'after')]
            for b, a in zip(before, after):
                row.append('-' if a is None or b is None else f'{(a - b) // int(h):,}')
            storm = figs[p].get(('storm', ('hosts', h), ('srq', s)))
            row.append(f'{storm:,}' if storm is not None else 'none')
        out.append(f'| {h} | {s} | ' + ' | '.join(row) + ' |')
    print('\n'.join(out + ltable))
    return 0


if __name__ == '__main__':
    sys.exit(main())
