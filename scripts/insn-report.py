#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""insn-report.py - instructions per I/O per function, from
rig/insn-count-plugin.c's counts and the guest's console (`make bench-insn`),
whose RIG-KSYM lines are the guest's /proc/kallsyms (text symbols).

Usage: insn-report.py RUN=COUNTS:LOG [RUN=COUNTS:LOG ...]

The guest ran one case N times (markers 1-2) and 2N times (markers 2-3);
(second - first) / N is what one I/O costs, with fio's start and exit gone.
With several runs the table has a column each, sorted by the first.
"""
import bisect
import collections
import sys


def load_symbols(log):
    syms = []
    ios = None
    with open(log, errors='replace') as f:
        for line in f:
            line = line.replace('\r', '').strip()
            if line.startswith('RIG-KSYM '):
                fields = line.split()
                # the kernel's own console messages can cut into a line
                if len(fields) != 4:
                    continue
                _, addr, name, mod = fields
                syms.append((int(addr, 16), name, mod.strip('[]')))
            elif line.startswith('RIG-INSN '):
                ios = int(line.rsplit('ios=', 1)[1])
    if ios is None:
        sys.exit(f'{log}: no RIG-INSN line (did the case run?)')
    syms.sort()
    return syms, ios


def per_io(counts, syms, ios):
    addrs = [s[0] for s in syms]
    by_sym = collections.Counter()
    with open(counts) as f:
        header = f.readline().split()
        if len(header) < 3 or int(header[2]) < 3:
            sys.exit(f'{counts}: fewer than 3 markers ({header})')
        for line in f:
            v = line.split()
            vaddr, n = int(v[0], 16), int(v[1])
            first = int(v[3]) - int(v[2])
            second = int(v[4]) - int(v[3])
            delta = (second - first) * n
            if not delta:
                continue
            if vaddr < 0x800000000000:
                key = ('[user space]', '')
            else:
                i = bisect.bisect_right(addrs, vaddr) - 1
                key = (syms[i][1], syms[i][2]) if i >= 0 else ('?', '')
            by_sym[key] += delta
    return {k: v / ios for k, v in by_sym.items()}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = []
    for arg in sys.argv[1:]:
        name, files = arg.split('=', 1)
        counts, log = files.split(':', 1)
        syms, ios = load_symbols(log)
        runs.append((name, per_io(counts, syms, ios)))
    names = [r[0] for r in runs]
    mods = []
    for _, d in runs:
        m = collections.Counter()
        for (sym, mod), v in d.items():
            m[mod or sym] += v
        mods.append(m)
    print('Instructions per I/O by module')
    print('| module | ' + ' | '.join(names) + ' |')
    print('|---|' + '---:|' * len(names))
    for mod, _ in mods[0].most_common():
        print(f'| {mod} | ' + ' | '.join(f'{m[mod]:,.0f}' for m in mods) + ' |')
    print('| **total** | ' + ' | '.join(f'{sum(m.values()):,.0f}' for m in mods) + ' |')
    print()
    print('Instructions per I/O by function (>= 100 in any run)')
    print('| function | module | ' + ' | '.join(names) + ' |')
    print('|---|---|' + '---:|' * len(names))
    keys = set()
    for _, d in runs:
        keys.update(k for k, v in d.items() if abs(v) >= 100)
    for k in sorted(keys, key=lambda k: -runs[0][1].get(k, 0)):
        print(f'| {k[0]} | {k[1]} | ' +
              ' | '.join(f'{d.get(k, 0):,.0f}' for _, d in runs) + ' |')


if __name__ == '__main__':
    main()
