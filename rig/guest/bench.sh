# SPDX-License-Identifier: GPL-2.0
# bench: the measured part of `make bench`, run in a guest under
# `-icount shift=0,sleep=off` with one vCPU, where guest time advances one
# nanosecond per guest instruction: a latency in "µs" is thousands of
# instructions per I/O (fio + block layer + host + target + rxe, all on the
# one vCPU), and IOPS is 1e9 / instructions per I/O.
#
# rig.bench=fabric: one host/target pairing (rig.host, rig.target) over rxe
#                   at MTU 4096, target inline data 16 KiB (rig.inline=BYTES
#                   for another size), null_blk irqmode=0 behind the target;
#                   rig.target_params=A=x,B=y loads our target with those
#                   module parameters.
# rig.bench=local:  the same fio cases on null_blk directly, and the rig's
#                   floor: perftest ib_read_lat 4 KiB over the same rxe.
#
# rig.profile=CASE: record that case with perf (cpu-clock, which under
#                   icount samples every N instructions) and print the
#                   hottest symbols as RIG-PROFILE lines.
# rig.idle=CASE:    trace that case's idle time (ftrace: cpu_idle, the
#                   timers and interrupts that ended each idle period,
#                   the task that ran next) and print it as RIG-IDLE
#                   lines, summed by what woke the vCPU; icount jumps an
#                   idle vCPU to its next timer, so that time is no work.
#                   The case's figure is printed as usual (the tracing
#                   costs it some instructions).
# rig.insn=CASE:    run that case N times, then 2N times, between markers
#                   for rig/insn-count-plugin.c (exact instructions per
#                   block), and print the modules' symbols as RIG-KSYM lines
#                   (scripts/insn-report.py; `make bench-insn`).
#
# Output: one "RIG-BENCH key=value..." line per figure; scripts/bench.sh
# collects them and scripts/bench-report.py makes the tables and chart.

# Each case: name rw bs ioengine iodepth number_of_ios [fio options]. Counts
# are chosen so each case runs for roughly 0.2-2 s of guest time; a tenth of
# that runs first, unmeasured, to warm caches and the MR/buffer pools.
# The batch8 cases submit and reap 8 I/Os per system call, so blk-mq hands
# the driver runs of 8 requests (bd->last set on the 8th only).
BENCH_CASES="
randread-4k-qd1 randread 4k psync 1 3000
randwrite-4k-qd1 randwrite 4k psync 1 3000
randwrite-16k-qd1 randwrite 16k psync 1 2000
randwrite-32k-qd1 randwrite 32k psync 1 1500
write-64k-qd1 write 64k psync 1 1000
read-128k-qd1 read 128k psync 1 500
write-128k-qd1 write 128k psync 1 500
randread-4k-qd32 randread 4k libaio 32 30000
randwrite-4k-qd32 randwrite 4k libaio 32 30000
randread-4k-qd32-batch8 randread 4k libaio 32 30000 --iodepth_batch_submit=8 --iodepth_batch_complete_min=8
randwrite-4k-qd32-batch8 randwrite 4k libaio 32 30000 --iodepth_batch_submit=8 --iodepth_batch_complete_min=8
randread-128k-qd32 randread 128k libaio 32 3000
randwrite-128k-qd32 randwrite 128k libaio 32 3000
read-1m-qd32 read 1m libaio 32 400
write-1m-qd32 write 1m libaio 32 400
randrw-128k-qd32 randrw 128k libaio 32 3000 --rwmixread=50
randrw-1m-qd32 randrw 1m libaio 32 400 --rwmixread=50
"

bench_fio() {
	local dev=$1 name=$2 rw=$3 bs=$4 engine=$5 qd=$6 n=$7
	shift 7
	fio --name="$name" --filename="$dev" --direct=1 --rw="$rw" --bs="$bs" \
		--ioengine="$engine" --iodepth="$qd" --size=1G --randrepeat=1 \
		--norandommap --number_ios="$n" "$@" 2>&1
}

# bench_cases LABEL DEV - run every case on DEV, one RIG-BENCH line each.
bench_cases() {
	local label=$1 dev=$2 name rw bs engine qd n opts line
	echo "$BENCH_CASES" | while read -r name rw bs engine qd n opts; do
		[ -n "$name" ] || continue
		case ,${RIG_CASES:-$name}, in *,$name,*) ;; *) continue ;; esac
		[ -z "${RIG_PROFILE:-}" ] || [ "$name" = "$RIG_PROFILE" ] || continue
		[ -z "${RIG_INSN:-}" ] || [ "$name" = "$RIG_INSN" ] || continue
		[ -z "${RIG_IDLE:-}" ] || [ "$name" = "$RIG_IDLE" ] || continue
		bench_fio "$dev" "$name" "$rw" "$bs" "$engine" "$qd" $(( n / 10 )) $opts > /dev/null
		if [ "$name" = "${RIG_INSN:-}" ]; then
			# (2N run - N run) / N: the fio start and exit cancel out
			/rig/bin/insn-mark
			bench_fio "$dev" "$name" "$rw" "$bs" "$engine" "$qd" "$n" $opts > /dev/null
			/rig/bin/insn-mark
			bench_fio "$dev" "$name" "$rw" "$bs" "$engine" "$qd" $(( 2 * n )) $opts > /dev/null
			/rig/bin/insn-mark
			echo "RIG-INSN pair=$label case=$name ios=$n"
			# Debian's /boot/System.map is a stub: all text symbols
			awk '$2 ~ /^[tT]$/ { print "RIG-KSYM", $1, $3, ($4 == "" ? "[vmlinux]" : $4) }' /proc/kallsyms
			continue
		fi
		if [ "$name" = "${RIG_PROFILE:-}" ]; then
			bench_profile bench_fio "$dev" "$name" "$rw" "$bs" "$engine" "$qd" "$n" $opts
			continue
		fi
		bench_rdma_counters > /tmp/counters.before
		[ "$name" != "${RIG_IDLE:-}" ] || bench_idle_trace on
		bench_fio "$dev" "$name" "$rw" "$bs" "$engine" "$qd" "$n" $opts \
			--output-format=terse --terse-version=3 > /tmp/fio.out
		[ "$name" != "${RIG_IDLE:-}" ] || bench_idle_trace off "$label" "$name"
		line=$(grep '^3;' /tmp/fio.out)
		if [ -z "$line" ]; then
			tail -5 /tmp/fio.out
			rig_fail "fio $name on $dev produced no result"
			continue
		fi
		echo "RIG-BENCH pair=$label case=$name terse=$line"
		bench_rdma_counters | awk -v head="RIG-BENCH-RDMA pair=$label case=$name" '
			NR == FNR { before[$1] = $2; next }
			$2 != before[$1] { out = out " " $1 "=" $2 - before[$1] }
			END { print head out }' /tmp/counters.before -
	done
}

# bench_rdma_counters - the RDMA device's counters, "NAME VALUE" a line:
# retransmissions, RNR NAKs and sequence errors are time a QD1 or QD32 case
# spends waiting for a timer, which icount skips to, and so are rxe-hw's
# held SEND CQEs that no reply released and our modules' send queue waits
# (RIG-BENCH-RDMA lines print what a case changed; bench-report.py ignores
# them); and our target's page cache: pages it gave up for the other
# direction, commands it did not serve
bench_rdma_counters() {
	local f
	for f in /sys/class/infiniband/$RIG_RDMA_DEV/ports/1/hw_counters/* \
		/sys/kernel/debug/rxe_hw/send_cqes_held \
		/sys/kernel/debug/rxe_hw/send_cqe_holds_expired; do
		[ -r "$f" ] && echo "${f##*/} $(cat "$f")"
	done
	# our modules' send queue waits (Documentation/statistics.md): a
	# command that waited went back to blk-mq, or to the target's wait list
	cat /sys/kernel/debug/nvme_rdma/*/queue* 2> /dev/null |
		awk '$1 == "sq_full" { n += $2 } END { if (NR) print "host_sq_full", n }'
	cat /sys/kernel/debug/nvmet_rdma/queue* 2> /dev/null |
		awk '$1 == "sq_full" { n += $2 }
		     $1 == "pages_evicted" { e += $2 }
		     $1 == "data_uncached" { u += $2 }
		     END { if (NR) print "target_sq_full", n
			   if (NR) print "target_pages_evicted", e
			   if (NR) print "target_data_uncached", u }'
}

# bench_idle_trace on | off LABEL CASE - trace the vCPU's idle periods
# from "on" to "off", then print them summed by what ended them: the timer
# functions and interrupts that ran within the period (on x86 the HLT
# returns after its interrupt's handler) and the task switched to after
# it. The I/O window runs from the first NVMe I/O command to the last
# completion (nvme-core's trace events, the same for stock and ours).
# Prints "RIG-IDLE pair=LABEL case=CASE total_us=N periods=N
# io_window_us=N io_idle_us=N io_idle_periods=N", a "RIG-IDLE-NEAR" line
# for each period within 100 ms of the window, and "RIG-IDLE-BY in_io|out_io
# n=N total_us=N max_us=N woke=WHAT next=TASK" lines.
bench_idle_trace() {
	local t=/sys/kernel/tracing e
	if [ "$1" = on ]; then
		echo 0 > $t/tracing_on
		echo > $t/trace
		echo 32768 > $t/buffer_size_kb
		for e in power/cpu_idle timer/hrtimer_expire_entry \
			timer/timer_expire_entry irq/irq_handler_entry \
			irq/softirq_entry sched/sched_switch \
			nvme/nvme_setup_cmd nvme/nvme_complete_rq; do
			rig_check "trace $e" sh -c "echo 1 > $t/events/$e/enable"
		done
		echo 1 > $t/tracing_on
		return
	fi
	echo 0 > $t/tracing_on
	echo 0 > $t/events/enable
	grep -q 'overrun: [1-9]' $t/per_cpu/cpu0/stats &&
		rig_log "idle trace: the ring buffer overran, periods lost"
	awk -v head="pair=$2 case=$3" '
	function ts(f) { sub(/:$/, "", f); return f * 1e6 }
	{
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		now = ts($i); ev = $(i + 1)
	}
	# the I/O window: from the first NVMe I/O command (qid above 0) to
	# the last completion; idle time inside it is in the case figure
	ev == "nvme_setup_cmd:" && !io0 && $0 ~ /qid=[1-9]/ { io0 = now }
	ev == "nvme_complete_rq:" && $0 ~ /qid=[1-9]/ { io1 = now }
	ev == "cpu_idle:" && $(i + 2) != "state=4294967295" { start = now; woke = ""; next }
	ev == "cpu_idle:" && start { p++; t0[p] = start; dur[p] = now - start; start = 0; next }
	start && ev ~ /expire_entry:/ {
		for (j = i + 2; j <= NF; j++) if ($j ~ /^function=/) woke = woke " " substr($j, 10)
	}
	start && ev == "irq_handler_entry:" { woke = woke " irq:" $NF }
	start && ev == "softirq_entry:" { woke = woke " " $NF }
	p && !(p in by) && ev == "sched_switch:" {
		for (j = i + 2; j <= NF; j++) if ($j ~ /^next_comm=/) nxt = substr($j, 11)
		by[p] = (woke == "" ? " ?" : woke) "\t" nxt
	}
	END {
		for (q = 1; q <= p; q++) {
			in_io = io0 && t0[q] > io0 && t0[q] < io1
			k = (in_io ? "in" : "out") "\t" by[q]
			n[k]++; tot[k] += dur[q]; if (dur[q] > mx[k]) mx[k] = dur[q]
			all += dur[q]
			if (in_io) { io_idle += dur[q]; io_periods++ }
		}
		printf "RIG-IDLE %s total_us=%d periods=%d io_window_us=%d io_idle_us=%d io_idle_periods=%d\n",
			head, all, p, io1 - io0, io_idle, io_periods
		# the periods next to the window: fio starts its clock before
		# its first command and stops it after its last completion
		for (q = 1; q <= p; q++)
			if (t0[q] + dur[q] > io0 - 100000 && t0[q] < io1 + 100000)
				printf "RIG-IDLE-NEAR at_us=%d (%s) dur_us=%d by=%s\n",
					t0[q] < io0 ? t0[q] - io0 : t0[q] < io1 ? t0[q] - io0 : t0[q] - io1,
					t0[q] < io0 ? "before the first command" : t0[q] < io1 ? \
						"after the first command" : "after the last completion",
					dur[q], by[q]
		for (k in n) {
			split(k, kv, "\t")
			printf "RIG-IDLE-BY %s_io n=%d total_us=%d max_us=%d woke=%s next=%s\n",
				kv[1], n[k], tot[k], mx[k], substr(kv[2], 2), kv[3]
		}
	}' $t/trace
	echo > $t/trace
}

# bench_profile CMD... - run CMD (a shell function is fine) while perf
# records the whole system, then print a flat profile
bench_profile() {
	local perf_pid
	# cpu-clock: a TCG guest has no hardware PMU
	perf record -e cpu-clock -a -g -F 20000 -o /tmp/perf.data > /tmp/perf.out 2>&1 &
	perf_pid=$!
	sleep 1
	"$@" > /dev/null
	kill -INT $perf_pid
	wait $perf_pid	# exits with the signal's status
	[ -s /tmp/perf.data ] || { tail -5 /tmp/perf.out; rig_fail "perf record"; }
	perf report -i /tmp/perf.data --stdio --no-children --sort sym,dso -g none \
		--percent-limit 0.3 2>/dev/null | grep -v '^#' | grep . | sed 's/^/RIG-PROFILE /'
	perf report -i /tmp/perf.data --stdio --no-children --sort dso -g none \
		2>/dev/null | grep -v '^#' | grep . | sed 's/^/RIG-PROFILE-DSO /'
}

rig_setup_rdma "${RIG_RDMA:-rxe}"
# rxe-hw holds a SEND's CQE for a reply at most hold_us: 20 ms by default,
# a lost ACK, for the correctness scenarios; here an ACK's time on the
# rig's scale (a 4 KiB I/O is 70-100 us of guest time), as an RNIC gives
# the CQE when the ACK comes whether or not a reply overtook it
if [ "${RIG_RDMA:-rxe}" = rxe-hw ]; then
	rig_must "rxe-hw: hold_us 50" sh -c 'echo 50 > /sys/module/rdma_rxe_hw/parameters/hold_us'
fi
dev=$(rig_backing null)
rig_must "null_blk" test -b "$dev"

case $RIG_BENCH in
local)
	bench_cases local "$dev"
	# -C: report TSC cycles, which under icount are guest nanoseconds, so
	# no MHz calibration (which varies from boot to boot) is involved
	ib_read_lat -d "$RIG_RDMA_DEV" -R -C -s 4096 -n 5000 > /tmp/lat-server.out 2>&1 &
	sleep 1
	ib_read_lat -d "$RIG_RDMA_DEV" -R -C -s 4096 -n 5000 "$RIG_IP4" > /tmp/lat.out 2>&1
	rig_check "ib_read_lat" test $? -eq 0
	wait
	# columns: bytes iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
	grep -E '^ *(#bytes|4096) ' /tmp/lat.out | sed 's/^/RIG-LOG ib_read_lat: /'
	# the median (t_typical): rare multi-millisecond outliers (the other
	# process getting the vCPU) make the mean vary from run to run
	avg=$(awk '$1 == 4096 && NF >= 7 { printf "%.3f", $5 / 1000 }' /tmp/lat.out)
	if [ -n "$avg" ]; then
		echo "RIG-BENCH pair=floor case=ib_read_lat-4k lat_us=$avg"
	else
		cat /tmp/lat.out
		rig_fail "ib_read_lat printed no result"
	fi
	;;
fabric)
	# rig.target_params=A=x,B=y: module parameters for our target
	if [ "$RIG_TARGET" = ours ] && [ -n "${RIG_TARGET_PARAMS:-}" ]; then
		rig_load_target ours $(echo "$RIG_TARGET_PARAMS" | tr , ' ')
	else
		rig_load_target
	fi
	rig_load_host
	rig_must "export (inline ${RIG_INLINE:-16384} bytes)" \
		rig_export "$dev" 1 "$RIG_IP4" ipv4 4420 "${RIG_INLINE:-16384}"
	# Memory: NCONN controllers (distinct host NQNs) at once, so that the
	# page or two the allocators keep in flight is small against the total.
	nconn=4
	before=$(rig_kernel_kib)
	slab_before=$(rig_slab_kib)
	# straight to the kernel: nvme-cli refuses a second connection to the
	# same subsystem and address even with --duplicate-connect
	for i in $(seq $nconn); do
		rig_must "connect $i for the memory figure" sh -c "echo transport=rdma,traddr=$RIG_IP4,trsvcid=4420,nqn=$RIG_NQN,hostnqn=nqn.2026-11.io.nvmeof-rdma:bench-$i,hostid=6a8e0b2c-0000-4000-8000-00000000000$i > /dev/nvme-fabrics"
	done
	rig_must "$nconn controllers" test "$(ls -d /sys/class/nvme/nvme*/ | wc -l)" -eq $nconn
	rig_must "namespace" rig_wait 30 rig_has_ns
	sleep 1
	after=$(rig_kernel_kib)
	slab_after=$(rig_slab_kib)
	echo "RIG-BENCH pair=$RIG_HOST/$RIG_TARGET case=memory-per-connection kib=$(( (after - before) / nconn )) slab_kib=$(( (slab_after - slab_before) / nconn ))"
	rig_must "disconnect the memory controllers" rig_disconnect
	rig_must "controllers gone" rig_wait 30 rig_no_controllers

	ns=$(rig_connect)
	rig_must "connect" test -b "$ns"
	bench_cases "$RIG_HOST/$RIG_TARGET" "$ns"
	rig_check "disconnect" rig_disconnect
	rig_check "unexport" rig_unexport
	rig_unload nvme-rdma nvmet-rdma
	;;
*)
	rig_must "unknown rig.bench '$RIG_BENCH'" false
	;;
esac
