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
    """{pair: {(case, key): value}}, and the memory marks by pair."""
    figs, marks = defaultdict(dict), defaultdict(dict)
    for line in open(path):
        words = line.split()
        pair, kind, kv = words[0], words[1], words[2:]
        if kind == 'mark':
            # hosts=N srq=Y before|after kib=K slab_kib=S
            d = dict(w.split('=', 1) for w in kv if '=' in w)
            when = [w for w in kv if '=' not in w][0]
            if d['use_srq'] != d['srq']:
                raise SystemExit(f'bench-scale: {pair}: the target had use_srq={d["use_srq"]} '
                                 f'where srq={d["srq"]} was asked')
            marks[pair][(d['hosts'], d['srq'], when)] = (int(d['kib']), int(d['slab_kib']))
            continue
        d = dict(w.split('=', 1) for w in words[1:])
        case = d.pop('case')
        value = d.pop('ms')
        figs[pair][(case,) + tuple(sorted(d.items()))] = int(value)
    return figs, marks


def main():
    results, kver, commit, cpus, pairs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    figs, marks = parse(results)
    keys = sorted({k for p in pairs for k in figs[p]})
    mkeys = sorted({(h, s) for p in pairs for (h, s, _w) in marks[p]})
    missing = [(p, k) for p in pairs for k in keys if k not in figs[p]]
    missing += [(p, k) for p in pairs for (h, s) in mkeys for k in ((h, s, 'before'), (h, s, 'after'))
                if k not in marks[p]]
    if missing or not keys:
        for p, k in missing:
            print(f'bench-scale: {p} has no figure for {k}', file=sys.stderr)
        if not keys:
            print('bench-scale: no figure at all', file=sys.stderr)
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
    out += ['', '## Many hosts on one port: target memory per connection (KiB), storm (ms)', '',
            '| hosts | SRQ | ' + ' | '.join(f'{p} pages | {p} slab | {p} storm' for p in pairs) + ' |',
            '|---|---|' + '---|---|---|' * len(pairs)]
    for h, s in sorted(mkeys, key=lambda x: (int(x[0]), x[1])):
        row = []
        for p in pairs:
            (kb, sb), (ka, sa) = marks[p][(h, s, 'before')], marks[p][(h, s, 'after')]
            storm = figs[p].get(('storm', ('hosts', h), ('srq', s)))
            row += [f'{(ka - kb) // int(h):,}', f'{(sa - sb) // int(h):,}',
                    f'{storm:,}' if storm is not None else 'none']
        out.append(f'| {h} | {s} | ' + ' | '.join(row) + ' |')
    print('\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
