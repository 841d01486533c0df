#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - `make bench`: the deterministic A/B benchmark. Boots Debian's
# kernel under QEMU `-icount shift=0,sleep=off` with one vCPU (guest time =
# one nanosecond per guest instruction), once per host/target pairing plus
# one baseline guest, and writes a Markdown table, a CSV and a PNG chart to
# build/bench/KVER/. See Documentation/benchmark.md.
#
# Environment: BENCH_JOBS guests at a time (default: number of cores);
# BENCH_RUNS to run only some guests (e.g. "stock/stock ours/ours");
# BENCH_INLINE=BYTES the target port's param_inline_data_size (default
# 16384, stock's largest; the stock target caps more to it);
# BENCH_TARGET_PARAMS="NAME=VALUE ..." module parameters for our target
# (not the stock one), to measure one of its choices against its default,
# e.g. "premap_data=N" or "cached_pages=0";
# BENCH_PROFILE=CASE to print a perf profile of that case from each guest
# (the profiled case then has no figure);
# BENCH_RDMA=rxe-hw to measure on the rig's RNIC-faithful device, its DMA
# through a strict IOMMU as on a server (rig/rxe-hw; figures in
# build/bench/KVER-rxe-hw/); default rxe; with BENCH_IOMMU=off, rxe-hw's DMA
# without the IOMMU (build/bench/KVER-rxe-hw-no-iommu/): the difference is
# what translation costs;
# BENCH_CASES="CASE ..." to run only those cases;
# BENCH_IDLE=CASE to see where that case's guests were idle (icount skips
# an idle vCPU to its next timer): that case alone, its figure and what
# ended each idle period (rig/guest/bench.sh, rig.idle), written to
# build/bench-idle/KVER/idle.txt;
# BENCH_INSN=CASE (`make bench-insn`) for exact instructions per I/O of that
# case by module and function, counted by rig/insn-count-plugin.c, written
# to build/bench-insn/KVER/insn.md (no other figures).
# Instruction counts do not depend on how busy the machine is, so running
# guests side by side changes only the wall time.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$NVMEOF_ROOT/rig/kernels.sh"
. "$NVMEOF_ROOT/rig/verdict.sh"

"$NVMEOF_ROOT/scripts/install-deps.sh" || die "dependency installation failed"
# Debian 12's own kernel (the oldest installed, 6.1) unless BENCH_KVER
# names another: the committed figures are for it. BENCH_KVER=debug is the
# rig's debug kernel, to see where KASAN and lockdep spend a guest's time
# (with make bench-insn).
kind=stock release=${BENCH_KVER:-$(debian_kvers | head -1)}
[ "$release" = debug ] && kind=debug release=
rig_kernel "$kind" "$release" || exit 1
img=$("$NVMEOF_ROOT/rig/image.sh" "$kind" "$release") || die "build failed"
rdma=${BENCH_RDMA:-rxe} iommu=${BENCH_IOMMU:-on}
case $rdma/$iommu in
rxe/on) sub=$KVER ;;
rxe-hw/on) sub=$KVER-rxe-hw ;;
rxe-hw/off) sub=$KVER-rxe-hw-no-iommu ;;
*) die "BENCH_RDMA: rxe or rxe-hw; BENCH_IOMMU=off with rxe-hw only" ;;
esac
out=$NVMEOF_ROOT/build/bench/$sub
prev=$NVMEOF_ROOT/build/bench/$sub.previous.csv
QEMU_INSN=()
if [ -n "${BENCH_INSN:-}" ]; then
	out=$NVMEOF_ROOT/build/bench-insn/$sub
	gcc -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
		-o "$NVMEOF_ROOT/build/insn-count.so" "$NVMEOF_ROOT/rig/insn-count-plugin.c" ||
		die "cannot build the instruction counting plugin"
elif [ -n "${BENCH_IDLE:-}" ]; then
	out=$NVMEOF_ROOT/build/bench-idle/$sub
	BENCH_CASES=$BENCH_IDLE
else
	# the last run's figures, to show how far this run differs from it
	[ -e "$out/bench.csv" ] && cp "$out/bench.csv" "$prev"
fi
rm -rf "$out"
mkdir -p "$out"

# Everything that could make two runs differ is pinned: no KASLR, no random
# mmap bases, no RDRAND/RDSEED, and a fixed wall clock that follows guest
# time (the kernel mixes the boot-time wall clock into its random pool, and
# hash seeds decide how much work some lookups take), so the guest's entropy
# comes only from timings, which icount makes exact; one vCPU.
QEMU_BENCH=(-smp 1 -icount shift=0,sleep=off -cpu max,la57=off,rdrand=off,rdseed=off
	-rtc base=2026-01-01T00:00:00,clock=vm)
APPEND_BENCH="nokaslr norandmaps"

read -r -a runs <<< "${BENCH_RUNS:-local stock/stock ours/ours ours/stock stock/ours}"
jobs=${BENCH_JOBS:-$(nproc)}
log "benchmarking ${#runs[*]} guests on $KVER, $jobs at a time (about 5 minutes)"
for run in "${runs[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	if [ "$run" = local ]; then
		args="rig.job=bench rig.bench=local"
	else
		args="rig.job=bench rig.bench=fabric rig.host=${run%/*} rig.target=${run#*/}"
	fi
	args+=" rig.rdma=$rdma"
	[ "$iommu" = on ] || args+=" rig.iommu=off"
	[ -z "${BENCH_CASES:-}" ] || args+=" rig.cases=$(echo $BENCH_CASES | tr ' ' ,)"
	[ -z "${BENCH_PROFILE:-}" ] || args+=" rig.profile=$BENCH_PROFILE"
	[ -z "${BENCH_IDLE:-}" ] || args+=" rig.idle=$BENCH_IDLE"
	[ -z "${BENCH_INLINE:-}" ] || args+=" rig.inline=$BENCH_INLINE"
	[ -z "${BENCH_TARGET_PARAMS:-}" ] ||
		args+=" rig.target_params=$(echo $BENCH_TARGET_PARAMS | tr ' ' ,)"
	if [ -n "${BENCH_INSN:-}" ]; then
		args+=" rig.insn=$BENCH_INSN"
		QEMU_INSN=(-plugin "$NVMEOF_ROOT/build/insn-count.so,out=$out/${run/\//-}.insn")
	fi
	# the -cpu given last wins over run-guest.sh's default
	"$NVMEOF_ROOT/rig/run-guest.sh" "$VMLINUZ" "$img" "$out/${run/\//-}.log" 1800 \
		"$args $APPEND_BENCH" "${QEMU_BENCH[@]}" "${QEMU_INSN[@]}" &
done
wait

fail=0
for run in "${runs[@]}"; do
	l=$out/${run/\//-}.log
	verdict=$(rig_verdict "$l")
	if [ "$verdict" != PASS ]; then
		echo "bench guest '$run' failed: ${verdict#FAIL } (log: $l)" >&2
		fail=1
	fi
	tr -d '\r' < "$l" | grep '^RIG-BENCH ' >> "$out/results.txt"
	tr -d '\r' < "$l" | sed -n "s|^RIG-PROFILE|$run|p" >> "$out/profile.txt"
	tr -d '\r' < "$l" | sed -n "s|^RIG-IDLE|$run|p" >> "$out/idle.txt"
done
[ $fail -eq 0 ] || exit 1
if [ -n "${BENCH_IDLE:-}" ]; then
	# fio's terse v3: read KiB and ms in fields 6 and 9, write in 47 and 50
	sed 's/^RIG-BENCH pair=\([^ ]*\) case=\([^ ]*\) terse=/\1 \2;/' "$out/results.txt" |
		awk -F';' '$2 == 3 { printf "%s: read %d KiB in %d ms, write %d KiB in %d ms\n",
			$1, $7, $10, $48, $51 }'
	cat "$out/idle.txt"
	log "written: $out/idle.txt"
	exit 0
fi
if [ -n "${BENCH_PROFILE:-}" ]; then
	cat "$out/profile.txt"
	exit 0
fi
if [ -n "${BENCH_INSN:-}" ]; then
	report=()
	for run in "${runs[@]}"; do
		report+=("$run=$out/${run/\//-}.insn:$out/${run/\//-}.log")
	done
	/usr/bin/python3 "$NVMEOF_ROOT/scripts/insn-report.py" "${report[@]}" > "$out/insn.md" || exit 1
	cat "$out/insn.md"
	log "written: $out/insn.md"
	exit 0
fi
# What was measured, for the report's header: the commit (with "-dirty" if
# anything the figures depend on had changes: the modules, the rig's guest
# and its RDMA devices, these scripts) and the build ID of each module the
# guests loaded.
commit=$(git -C "$NVMEOF_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$NVMEOF_ROOT" status --porcelain -- host target common compat rig scripts 2>/dev/null)" ] ||
	commit+=-dirty
build_ids=$(cat "$out"/*.log | tr -d '\r' |
	sed -n 's/^RIG-MODULE \([^ ]*\) asked=\([^ ]*\) build-id=\([0-9a-f]*\).*/\1 (\2) \3/p' | sort -u |
	paste -sd, - | sed 's/,/, /g')
# Debian's python, where python3-matplotlib is installed; it writes nothing
# when a run or case has no result
BENCH_COMMIT=$commit BENCH_BUILD_IDS=$build_ids BENCH_PAIRS="${runs[*]}" \
	/usr/bin/python3 "$NVMEOF_ROOT/scripts/bench-report.py" "$out/results.txt" "$out" "$sub" \
	$([ -e "$prev" ] && echo "$prev") || exit 1
cat "$out/bench.md"
log "written: $out/bench.md, $out/bench.csv, $out/bench.png"
