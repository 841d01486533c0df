#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-report: the benchmark's tables checked. scripts/bench-report.py must
# write nothing from a run that lacks a result (a partial table would pass
# for a whole one), and, the control, must write the tables of a whole run
# with the ratios against stock/stock that its results give. Fed synthetic
# RIG-BENCH lines (the metric given directly, as the guest may print it).
# covers: the benchmark's tables: no partial table
# rig: once fast=once
#
# Usage: tests/host/bench-report.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
report=$root/scripts/bench-report.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# every case and its metric, from the report's own table of cases
/usr/bin/python3 - "$report" > "$tmp/cases" <<'PY' || { echo "CASE FAIL cases -- cannot read $report"; exit 0; }
import importlib.util, sys
spec = importlib.util.spec_from_file_location("br", sys.argv[1])
br = importlib.util.module_from_spec(spec)
spec.loader.exec_module(br)
for case, (metric, _, _) in br.CASES.items():
    print(case, metric)
PY
# results for every pairing and case: stock/stock 100, ours/ours 80
while read -r case metric; do
	for pair in local stock/stock ours/ours ours/stock stock/ours; do
		v=100
		[ "$pair" = ours/ours ] && v=80
		echo "RIG-BENCH pair=$pair case=$case $metric=$v"
	done
done < "$tmp/cases" > "$tmp/whole.txt"

mkdir "$tmp/whole" "$tmp/partial"
if /usr/bin/python3 "$report" "$tmp/whole.txt" "$tmp/whole" 6.1-synthetic > "$tmp/out" 2>&1 &&
	tr -d '\r' < "$tmp/whole/bench.csv" | grep -qx 'ours/ours,randread-4k-qd1,lat,80.000,0.8000' &&
	grep -q '^| randread-4k-qd1 (µs) ' "$tmp/whole/bench.md"; then
	echo "CASE PASS a whole run's tables are written, ratios as given"
else
	echo "CASE FAIL a whole run's tables are written, ratios as given -- $(tr '\n' '|' < "$tmp/out")"
fi
grep -v 'pair=ours/stock case=write-1m-qd32 ' "$tmp/whole.txt" > "$tmp/partial.txt"
if ! /usr/bin/python3 "$report" "$tmp/partial.txt" "$tmp/partial" 6.1-synthetic > "$tmp/out" 2>&1 &&
	grep -q "missing results, no report written: \[('ours/stock', 'write-1m-qd32')\]" "$tmp/out" &&
	[ -z "$(ls "$tmp/partial")" ]; then
	echo "CASE PASS a run missing one result fails and writes nothing"
else
	echo "CASE FAIL a run missing one result fails and writes nothing -- $(tr '\n' '|' < "$tmp/out") wrote: $(ls "$tmp/partial")"
fi
