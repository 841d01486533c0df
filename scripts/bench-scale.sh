#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-scale.sh - `make bench-scale`: how setup scales, ours against stock
# on the same rig run. For each pairing, two guests on a wire
# (rig/run-pair.sh, rig.job=scale, rig/guest/scale.sh): the host guest with
# BENCH_SCALE_CPUS vCPUs (default 8: up to 16 I/O queues, 8 read and 8
# write) times connect and reset by I/O queue count; then many hosts
# (distinct host NQNs, two I/O queues each) on one port, without and with
# SRQ: the target's memory per connection, and a storm (the port disabled
# and enabled under all of them) until the last is live again; both
# guests with 4 GiB, the host guest 8 (256 hosts' controllers). Then, in a
# pair of its own for each SRQ setting, how many hosts a target guest of 2
# GiB takes, one after another, before the first it cannot, and what
# stopped it (ours: its memory reserve refuses; stock's guest runs out of
# memory). Real time, not icount (a queue's setup waits on the other
# guest, which icount cannot show): run it on an idle machine, one pair at
# a time. Writes build/bench-scale/KVER/scale.md (see
# Documentation/benchmark.md).
#
# Environment: BENCH_SCALE_RUNS pairings (default "stock/stock ours/ours");
# BENCH_SCALE_QUEUES I/O queue counts (default "1 4 8 16");
# BENCH_SCALE_HOSTS host counts (default "64 256"); BENCH_SCALE_LIMIT most
# hosts the limit runs connect (default 1024; 0: no limit runs),
# BENCH_SCALE_LIMIT_SRQ their SRQ settings (default "N Y"); BENCH_KVER the
# kernel (default Debian 12's 6.1, as make bench; 7.3.4+deb13-amd64: stock
# 7.3 sets its I/O queues up in parallel).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$NVMEOF_ROOT/rig/kernels.sh"
. "$NVMEOF_ROOT/rig/verdict.sh"

"$NVMEOF_ROOT/scripts/install-deps.sh" || die "dependency installation failed"
rig_kernel stock "${BENCH_KVER:-$(debian_kvers | head -1)}" || exit 1
img=$("$NVMEOF_ROOT/rig/image.sh" stock "$KVER") || die "build failed"
out=$NVMEOF_ROOT/build/bench-scale/$KVER
rm -rf "$out"
mkdir -p "$out"

read -r -a runs <<< "${BENCH_SCALE_RUNS:-stock/stock ours/ours}"
queues=${BENCH_SCALE_QUEUES:-1 4 8 16} hosts=${BENCH_SCALE_HOSTS:-64 256}
limit=${BENCH_SCALE_LIMIT:-1024}
log "bench-scale on $KVER: ${runs[*]}, one pair at a time"
fail=0

# results RUN LOG - the figures of a pair's consoles, prefixed with RUN
results() {
	{ tr -d '\r' < "$2" | sed -n "s|^RIG-SCALE |$1 |p"
	  tr -d '\r' < "$2.target" | sed -n "s|^RIG-SCALE-MARK |$1 mark |p"; } >> "$out/results.txt"
}

for run in "${runs[@]}"; do
	l=$out/${run/\//-}.log
	RIG_PAIR_HOST_SMP=${BENCH_SCALE_CPUS:-8} RIG_PAIR_HOST_MEM=8192 RIG_PAIR_TARGET_MEM=4096 \
		"$NVMEOF_ROOT/rig/run-pair.sh" "$VMLINUZ" "$img" "$l" 3600 \
		"rig.job=scale rig.host=${run%/*} rig.target=${run#*/} rig.scale_queues=${queues// /,} rig.scale_hosts=${hosts// /,} log_buf_len=16M"
	v=$(rig_pair_verdict "$l")
	if [ "$v" != PASS ]; then
		echo "bench-scale pair '$run' failed: ${v#FAIL } (log: $l)" >&2
		fail=1
	fi
	results "$run" "$l"
	[ "$limit" -gt 0 ] || continue
	for srq in ${BENCH_SCALE_LIMIT_SRQ:-N Y}; do
		l=$out/${run/\//-}-limit-$srq.log
		RIG_PAIR_HOST_SMP=2 RIG_PAIR_HOST_MEM=8192 "$NVMEOF_ROOT/rig/run-pair.sh" "$VMLINUZ" "$img" "$l" 3600 \
			"rig.job=scale rig.host=${run%/*} rig.target=${run#*/} rig.scale_limit=$limit rig.scale_srq=$srq log_buf_len=16M"
		results "$run" "$l"
		# the target guest may end there (how=gone), never the host's
		v=$(rig_scenario_verdict "$l")
		grep -aq "^RIG-SCALE case=limit srq=$srq hosts=[0-9]* how=gone" "$l" ||
			v=$(rig_pair_verdict "$l")
		if [ "$v" != PASS ]; then
			echo "bench-scale limit run '$run' srq=$srq failed: ${v#FAIL } (log: $l)" >&2
			fail=1
		fi
		# what the target guest's kernel said as it ran out of memory
		oom=$(tr -d '\r' < "$l.target" | grep -c -e 'invoked oom-killer' -e 'Out of memory')
		echo "$run case=limit-oom srq=$srq lines=$oom" >> "$out/results.txt"
	done
done
[ $fail -eq 0 ] || exit 1

commit=$(git -C "$NVMEOF_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$NVMEOF_ROOT" status --porcelain -- host target common compat rig scripts 2>/dev/null)" ] ||
	commit+=-dirty
/usr/bin/python3 "$NVMEOF_ROOT/scripts/bench-scale-report.py" "$out/results.txt" "$KVER" "$commit" \
	"${BENCH_SCALE_CPUS:-8}" "${runs[@]}" > "$out/scale.md" || exit 1
cat "$out/scale.md"
log "written: $out/scale.md"
