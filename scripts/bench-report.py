#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py - tables and chart from the RIG-BENCH lines of `make bench`.

Usage: bench-report.py RESULTS.txt OUTDIR KVER [PREVIOUS.csv]

Writes OUTDIR/bench.md, OUTDIR/bench.csv and OUTDIR/bench.png. Latency
cases report fio's mean completion latency at QD1, IOPS cases the IOPS at
QD32 from fio's bandwidth (KiB/s) over the block size: fio's own IOPS figure
is rounded to a whole I/O per second, 0.8 % of a 1 MiB case. Under icount
one "µs" is a thousand guest instructions. Ratios are against stock/stock
from the same run. With PREVIOUS.csv (an earlier run's
CSV) it also prints the largest difference between the two runs.
"""
import csv
import os
import re
import sys

PAIRS = ["stock/stock", "ours/ours", "ours/stock", "stock/ours"]
PAIR_TITLES = {
    "stock/stock": "stock host / stock target",
    "ours/ours": "our host / our target",
    "ours/stock": "our host / stock target",
    "stock/ours": "stock host / our target",
    "local": "local null_blk",
}
# case: (metric, direction of the fio numbers: read, write or rw for both,
#        bar for ours/ours vs stock)
# metric "lat" = mean completion latency, µs; "iops" = IOPS.
CASES = {
    "randread-4k-qd1": ("lat", "read", ("<=", 0.70)),
    "randwrite-4k-qd1": ("lat", "write", ("<=", 0.75)),
    "randwrite-16k-qd1": ("lat", "write", ("<=", 0.75)),
    # in the capsule only where the port's inline size allows (BENCH_INLINE)
    "randwrite-32k-qd1": ("lat", "write", None),
    "write-64k-qd1": ("lat", "write", None),
    "read-128k-qd1": ("lat", "read", ("<=", 0.85)),
    "write-128k-qd1": ("lat", "write", ("<=", 0.85)),
    "randread-4k-qd32": ("iops", "read", (">=", 1.40)),
    "randwrite-4k-qd32": ("iops", "write", (">=", 1.40)),
    # 8 I/Os per io_submit/io_getevents: the driver gets runs of 8 (no bar)
    "randread-4k-qd32-batch8": ("iops", "read", None),
    "randwrite-4k-qd32-batch8": ("iops", "write", None),
    # large transfers at depth: many data pages in flight, past the
    # target's page cache (its miss path; behind rxe-hw's IOMMU a mapping
    # costs as on a server). No bar: ours must not be worse than stock.
    "randread-128k-qd32": ("iops", "read", None),
    "randwrite-128k-qd32": ("iops", "write", None),
    "read-1m-qd32": ("iops", "read", None),
    "write-1m-qd32": ("iops", "write", None),
    # half reads, half writes at random: both directions' data pages in
    # flight at once, so the target's page cache is at its bound for both
    # (its eviction path). IOPS of the two directions together.
    "randrw-128k-qd32": ("iops", "rw", None),
    "randrw-1m-qd32": ("iops", "rw", None),
}
# make bench's BENCH_CASES: only those ran
if os.environ.get("BENCH_CASES"):
    CASES = {c: v for c, v in CASES.items() if c in os.environ["BENCH_CASES"].split()}
# terse v3 fields (0-based): error, then per direction io KiB, bw (KiB/s),
# IOPS, runtime, slat x4, clat min/max/mean/dev, ...
TERSE_ERROR = 4
TERSE_READ = {"bw": 6, "lat": 15}
TERSE_WRITE_OFFSET = 41


def block_kib(case):
    """The block size in a case's name (randread-4k-qd32: 4), in KiB."""
    m = re.search(r"-(\d+)([km])-", case)
    return int(m.group(1)) * (1024 if m.group(2) == "m" else 1)


def parse(path):
    """Return {(pair, case): {field: value}} from RIG-BENCH lines."""
    res = {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0] != "RIG-BENCH":
                continue
            kv = dict(w.split("=", 1) for w in words[1:])
            key = (kv.pop("pair"), kv.pop("case"))
            if "terse" in kv:
                t = kv.pop("terse").split(";")
                if t[TERSE_ERROR] != "0":
                    sys.exit(f"fio reported error {t[TERSE_ERROR]} for {key}")
                metric, rw, _ = CASES[key[1]]
                off = TERSE_WRITE_OFFSET if rw == "write" else 0
                if metric == "iops":
                    bw = float(t[TERSE_READ["bw"] + off])
                    if rw == "rw":
                        bw += float(t[TERSE_READ["bw"] + TERSE_WRITE_OFFSET])
                    kv[metric] = bw / block_kib(key[1])
                else:
                    kv[metric] = float(t[TERSE_READ[metric] + off])
            res[key] = {k: float(v) for k, v in kv.items()}
    return res


def value(res, pair, case):
    metric = CASES[case][0]
    return res.get((pair, case), {}).get(metric)


def ratio(res, pair, case):
    v, s = value(res, pair, case), value(res, "stock/stock", case)
    return v / s if v is not None and s else None


def bar_met(case, r):
    op, limit = CASES[case][2]
    return r <= limit if op == "<=" else r >= limit


def bar_cell(case, r):
    if CASES[case][2] is None:
        return "no bar"
    op, limit = CASES[case][2]
    verdict = "—" if r is None else ("met" if bar_met(case, r) else "not met")
    return f"{op} {limit:.2f}: {verdict}"


def no_worse(case, r):
    return r <= 1.0 if CASES[case][0] == "lat" else r >= 1.0


def fmt(v, metric):
    if v is None:
        return "—"
    return f"{v:,.1f}" if metric == "lat" or v < 1000 else f"{v:,.0f}"


def params_note():
    # make bench's BENCH_TARGET_PARAMS: our target's module parameters
    params = os.environ.get("BENCH_TARGET_PARAMS", "").split()
    return f", our target loaded with {' '.join(params)}" if params else ""


def rdma_label(kver):
    """The RDMA device of a table, from its directory's name (scripts/bench.sh);
    the hold is what rig/guest/bench.sh sets on rxe-hw."""
    hold = "a SEND's CQE held at most 50 µs for its reply"
    if kver.endswith("-rxe-hw"):
        return f"rxe-hw (DMA through a strict IOMMU; {hold})"
    if kver.endswith("-rxe-hw-no-iommu"):
        return f"rxe-hw (DMA without an IOMMU; {hold})"
    return "rxe"


def markdown(res, kver):
    # make bench's BENCH_INLINE: the port's param_inline_data_size
    inline = int(os.environ.get("BENCH_INLINE") or 16384)
    out = [f"Commit {os.environ.get('BENCH_COMMIT', 'unknown')}; modules loaded (build IDs): "
           f"{os.environ.get('BENCH_BUILD_IDS') or 'unknown'}.", "",
           f"Kernel {kver}, QEMU TCG `-icount shift=0,sleep=off`, 1 vCPU, "
           f"{rdma_label(kver)}, MTU 4096, "
           f"null_blk irqmode=0, target inline data {inline // 1024} KiB"
           f"{' (the stock target caps it at 16)' if inline > 16384 else ''}"
           f"{params_note()}. "
           "Latency = fio mean completion "
           "latency at QD1 (µs of guest time = thousands of instructions per I/O); "
           "IOPS at QD32. Ratio = pairing / stock-stock (latency: lower is better; "
           "IOPS: higher is better).", ""]
    head = "| case | local null_blk | " + " | ".join(PAIRS) + " | " + \
        " | ".join(f"{p} ratio" for p in PAIRS[1:]) + " | bar (ours/ours) |"
    out += [head, "|" + "---|" * (head.count("|") - 1)]
    for case, (metric, _, _) in CASES.items():
        unit = "µs" if metric == "lat" else "IOPS"
        cells = [f"{case} ({unit})", fmt(value(res, "local", case), metric)]
        cells += [fmt(value(res, p, case), metric) for p in PAIRS]
        for p in PAIRS[1:]:
            r = ratio(res, p, case)
            cells.append("—" if r is None else
                         f"{r:.3f}" + ("" if no_worse(case, r) else " (slower)"))
        cells.append(bar_cell(case, ratio(res, "ours/ours", case)))
        out.append("| " + " | ".join(cells) + " |")
    floor = res.get(("floor", "ib_read_lat-4k"), {}).get("lat_us")
    if floor is not None:
        out += ["", f"Rig floor: one 4 KiB RDMA READ round trip over rxe "
                f"(perftest `ib_read_lat`): {floor:.2f} µs."]
    mem = [(p, res.get((p, "memory-per-connection"))) for p in PAIRS]
    if any(m for _, m in mem):
        out += ["", "Kernel memory per connection (host + target in one guest, default "
                "settings: admin queue + 1 I/O queue of 128 on 1 CPU; KiB):", "",
                "| pairing | total KiB | slab KiB |", "|---|---|---|"]
        for p, m in mem:
            if m:
                out.append(f"| {p} | {m['kib']:,.0f} | {m['slab_kib']:,.0f} |")
    return "\n".join(out) + "\n"


def write_csv(res, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["pair", "case", "metric", "value", "ratio_vs_stock"])
        for case, (metric, _, _) in CASES.items():
            for p in ["local"] + PAIRS:
                v = value(res, p, case)
                if v is None:
                    continue
                r = ratio(res, p, case) if p != "local" else None
                w.writerow([p, case, metric, f"{v:.3f}", "" if r is None else f"{r:.4f}"])
        for (p, case), kv in sorted(res.items()):
            if case not in CASES:
                for k, v in sorted(kv.items()):
                    w.writerow([p, case, k, f"{v:.3f}", ""])


def chart(res, path, kver):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(CASES)
    fig, ax = plt.subplots(figsize=(11, 4.8))
    width = 0.8 / (len(PAIRS) - 1)
    for i, p in enumerate(PAIRS[1:]):
        speed = []
        for case in cases:
            r = ratio(res, p, case)
            # plot "times faster than stock" so that up is better for both
            speed.append(0 if r is None else (1 / r if CASES[case][0] == "lat" else r))
        xs = [c + (i - 1) * width for c in range(len(cases))]
        ax.bar(xs, speed, width, label=PAIR_TITLES[p])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases, rotation=20, ha="right")
    ax.set_ylabel("speed vs stock/stock (>1 = faster)")
    ax.set_title(f"nvmeof-rdma vs stock, instructions per I/O under QEMU icount ({kver})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def compare(path, previous):
    """Largest relative difference between this run's CSV and an earlier one."""
    def load(p):
        with open(p) as f:
            return {(r["pair"], r["case"], r["metric"]): float(r["value"])
                    for r in csv.DictReader(f)}
    now, before = load(path), load(previous)
    worst = (0.0, None)
    for k, v in now.items():
        if k in before and before[k]:
            d = abs(v - before[k]) / abs(before[k])
            worst = max(worst, (d, k), key=lambda x: x[0])
    return worst


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    results, outdir, kver = sys.argv[1:4]
    res = parse(results)
    # every guest that ran (make bench's BENCH_PAIRS) must have every case;
    # no table is written from a partial run
    ran = os.environ.get("BENCH_PAIRS", " ".join(["local"] + PAIRS)).split()
    missing = [(p, c) for p in ran for c in CASES if (p, c) not in res]
    if missing:
        sys.exit(f"missing results, no report written: {missing}")
    with open(f"{outdir}/bench.md", "w") as f:
        f.write(markdown(res, kver))
    write_csv(res, f"{outdir}/bench.csv")
    chart(res, f"{outdir}/bench.png", kver)
    if len(sys.argv) == 5:
        d, k = compare(f"{outdir}/bench.csv", sys.argv[4])
        print(f"largest difference from the previous run: {d * 100:.3f} % ({k})")


if __name__ == "__main__":
    main()
