# SPDX-License-Identifier: GPL-2.0
# module-params: every module parameter of ours, set when the module loads
# and read back from sysfs, in a run that verifies data at a real queue
# depth (QD 128 from two jobs, in-capsule 16 KiB writes, 128 KiB transfers
# over RDMA READ/WRITE): the host's register_always off and on and its
# cm_wait_s (what it bounds: hostile-target's cm-silent case), the
# target's unsignalled_responses and premap_data off, cached_pages 0 and 1,
# use_srq with the smallest srq_size (256, shared by every queue), max_mdts
# 5 (128 KiB: Identify, the host's split, refusals beyond it; 9 refused at
# load), each seen to take effect in the statistics or the target's trace.
# On a kernel whose ports have param_max_queue_size (6.12), a port offering
# 256 entries and a host asking for them (sqsize 255, I/O at QD 256), and
# one asking more than our target takes (capped with a warning).
# The target's host_traddr op (6.12) is read only by nvmet's debugfs, which
# Debian's 6.12 does not build; the address it gives is the statistics'
# host_traddr, which the stats scenario checks.
# covers: every module parameter takes effect (6.12: a port of 256 entries)
# rig: pairs=ours/ours kernels=stock rdma=rxe timeout=300 fast=newest:ours/ours:rxe

rig_setup_rdma
dev=$(rig_backing ram 64)
rig_must "brd backing device" test -b "$dev"

# param_is MODULE NAME=VALUE - the loaded module's parameter reads VALUE
param_is() {
	local have
	have=$(cat "/sys/module/$(echo "$1" | tr - _)/parameters/${2%%=*}")
	[ "$have" = "${2#*=}" ] || { rig_log "$1 ${2%%=*} is '$have'"; return 1; }
}

T=/sys/kernel/tracing
mount -t tracefs none $T 2> /dev/null
EVENTS="$T/events/nvmet_rdma/nvmet_rdma_map_data/enable $T/events/nvmet_rdma/nvmet_rdma_post_response/enable"

# host_sum NAME - a counter summed over our host's queues (its one
# controller; Documentation/statistics.md); our target's: rig_target_sum
host_sum() { cat /sys/kernel/debug/nvme_rdma/nvme*/queue* | awk -v n="$1" '$1 == n { s += $2 } END { print s + 0 }'; }
# target_max NAME - its largest value on one of our target's I/O queues
target_max() {
	awk -v n="$1" '$1 == "qid" { io = $2 > 0 } io && $1 == n && $2 > m { m = $2 }
		END { print m + 0 }' /sys/kernel/debug/nvmet_rdma/queue*
}
# target_min NAME - its smallest value on one of our target's I/O queues
target_min() {
	awk -v n="$1" '$1 == "qid" { io = $2 > 0 } io && $1 == n && (!s || $2 < m) { m = $2; s = 1 }
		END { print m + 0 }' /sys/kernel/debug/nvmet_rdma/queue*
}
# traced PATTERN - lines of the target's trace (the 128k run's) matching it
traced() { grep -cE "$1" $T/trace; }
# holds WHAT TEST... - the parameter took effect: TEST (test's arguments)
holds() {
	local what=$1
	shift
	test "$@" || { rig_log "$what: not so ($*)"; return 1; }
}

# took_effect "HOST PARAMS" "TARGET PARAMS" - what each parameter changes,
# seen in the statistics and in the target's trace of the 128k run (keyed
# data both ways): not only read back, but acted on
took_effect() {
	local p
	for p in $1 $2; do
		case $p in
		register_always=N)
			holds "reads through the global rkey" "$(host_sum data_global_rkey)" -gt 0 ;;
		register_always=Y)
			holds "no data through the global rkey" "$(host_sum data_global_rkey)" -eq 0 -a \
				"$(host_sum data_registered)" -gt 0 ;;
		premap_data=N)
			holds "transfers built by rdma_rw, none premapped" \
				"$(traced 'rw=rdma_rw')" -gt 0 -a "$(traced 'rw=premapped')" -eq 0 ;;
		unsignalled_responses=N)
			holds "every response signalled" \
				"$(traced 'send=signalled')" -gt 0 -a "$(traced 'send=unsignalled')" -eq 0 ;;
		cached_pages=0)
			holds "no page kept, every transfer's pages allocated" "$(rig_target_sum pages_held)" -eq 0 -a \
				"$(rig_target_sum pages_reused)" -eq 0 -a "$(rig_target_sum data_uncached)" -gt 0 ;;
		cached_pages=1)
			holds "at most one page kept per queue" "$(target_max pages_held)" -le 1 -a \
				"$(rig_target_sum data_uncached)" -gt 0 ;;
		use_srq=Y)
			holds "every queue on a shared receive queue" \
				"$(grep -l '^srq 1$' /sys/kernel/debug/nvmet_rdma/queue* | wc -l)" -eq \
				"$(ls /sys/kernel/debug/nvmet_rdma/queue* | wc -l)" &&
			# srq_size=256 buffers of 16 KiB in the SRQ, none in a queue
			holds "receive buffers in the SRQ alone" \
				"$(target_min srq_buffer_bytes)" -ge $((256 * 16384)) -a \
				"$(target_max buffer_bytes)" -lt $((128 * 4096)) ;;
		*)
			continue ;;
		esac || return 1
		rig_log "$p took effect"
	done
}

# with_params "HOST PARAMS" "TARGET PARAMS" - both modules loaded with
# them, each read back, then verified I/O through a connect, and what each
# changes seen (took_effect)
with_params() {
	local what="host ${1:-defaults}, target ${2:-defaults}" ns p
	rig_load ours nvmet-rdma $2
	rig_load ours nvme-rdma $1
	for p in $2; do rig_check "$what: nvmet-rdma $p" param_is nvmet-rdma "$p"; done
	for p in $1; do rig_check "$what: nvme-rdma $p" param_is nvme-rdma "$p"; done
	rig_check "$what: export" rig_export "$dev" 1 "$RIG_IP4" ipv4 4420 16384 || return
	ns=$(rig_connect)
	if rig_check "$what: connect" test -b "$ns"; then
		rig_check "$what: 4k randrw QD128 2 jobs" rig_fio_verify "$ns" randrw 4k 128 2 2M
		rig_check "$what: 16k write QD8" rig_fio_verify "$ns" write 16k 8 1 2M
		for p in $EVENTS; do echo 1 > "$p"; done
		echo > $T/trace
		rig_check "$what: 128k randrw QD16" rig_fio_verify "$ns" randrw 128k 16 1 4M
		for p in $EVENTS; do echo 0 > "$p"; done
		rig_check "$what: took effect" took_effect "$1" "$2"
		rig_check "$what: disconnect" rig_disconnect
		rig_check "$what: controller gone" rig_wait 20 rig_no_controllers
	fi
	rig_check "$what: unexport" rig_unexport
	rig_unload nvme-rdma nvmet-rdma
}

with_params "register_always=N" ""
with_params "register_always=Y cm_wait_s=30" "unsignalled_responses=N premap_data=N"
with_params "" "cached_pages=0"
with_params "" "cached_pages=1"
with_params "" "use_srq=Y srq_size=256"

# max_mdts: the transfer size the target offers, and what it refuses
# beyond it (the hostile host's mdts case reads MDTS from Identify: a write
# and read of exactly 128 KiB, one byte more, one block more)
rig_must "max_mdts=9 refused" sh -c "! $MODPROBE nvmet-rdma max_mdts=9"
rig_check "max_mdts=9: the target said why" \
	sh -c 'dmesg | grep -q "nvmet_rdma: max_mdts 9: must be 1 to 8"'
rig_load ours nvmet-rdma max_mdts=5
rig_load ours nvme-rdma
rig_check "max_mdts=5: nvmet-rdma max_mdts=5" param_is nvmet-rdma max_mdts=5
rig_must "max_mdts=5: export" rig_export "$dev" 1 "$RIG_IP4" ipv4 4420 16384
ns=$(rig_connect)
rig_must "max_mdts=5: connect" test -b "$ns"
rig_check "max_mdts=5: Identify Controller says MDTS 5" \
	sh -c "nvme id-ctrl $ns | grep -Eq '^mdts +: 5\$'"
rig_check "max_mdts=5: the host's largest transfer is 128 KiB" \
	test "$(cat /sys/block/${ns#/dev/}/queue/max_hw_sectors_kb)" = 128
rig_check "max_mdts=5: 1M randrw QD4, split by the host" \
	rig_fio_verify "$ns" randrw 1M 4 1 8M
rig_check "max_mdts=5: a hostile host at MDTS and beyond" \
	/rig/bin/hostile-host "$RIG_IP4" 4420 "$RIG_NQN" mdts
rig_check "max_mdts=5: the target refused MDTS + 1 byte" \
	sh -c 'dmesg | grep -q "nvmet_rdma: queue [0-9]*: keyed SGL of 131073 bytes for a command of 131072 (most 131072): rejected"'
rig_check "max_mdts=5: disconnect" rig_disconnect
rig_check "max_mdts=5: controller gone" rig_wait 20 rig_no_controllers
rig_check "max_mdts=5: unexport" rig_unexport
rig_unload nvme-rdma nvmet-rdma

# 6.12's nvmet: the port's queue depth and the host's address per controller
port=$NVMET_CFS/ports/1
rig_load_target
rig_load_host
rig_must "export" rig_export "$dev"
case $KVER in
6.1.*) has_mqs=0 ;;
*) has_mqs=1 ;;
esac
if [ "$has_mqs" = 1 ]; then
	# a port's parameters change only while no subsystem is linked to it
	rig_check "6.12: port offers 256 entries" sh -c "rm -f $port/subsystems/$RIG_NQN &&
		echo 256 > $port/param_max_queue_size &&
		ln -s $NVMET_CFS/subsystems/$RIG_NQN $port/subsystems/$RIG_NQN"
	ns=$(rig_connect "$RIG_IP4" 4420 --queue-size=256)
	rig_check "6.12: connect with 256 entries" test -b "$ns"
	rig_check "6.12: sqsize 255" test "$(cat /sys/class/nvme/nvme*/sqsize | head -1)" = 255
	rig_check "6.12: 4k randrw QD256" rig_fio_verify "$ns" randrw 4k 256 1 2M
	rig_check "6.12: disconnect" rig_disconnect
	rig_check "6.12: controller gone" rig_wait 20 rig_no_controllers
	rm -f $port/subsystems/$RIG_NQN
	rig_check "6.12: port asking 1025 entries" sh -c "echo 1025 > $port/param_max_queue_size &&
		ln -s $NVMET_CFS/subsystems/$RIG_NQN $port/subsystems/$RIG_NQN"
	rig_check "6.12: capped with a warning" \
		sh -c 'dmesg | grep -q "nvmet_rdma: max_queue_size 1025 is too large, reducing to 256"'
else
	rig_check "6.1: no param_max_queue_size on this kernel's ports" test ! -e $port/param_max_queue_size
fi
rig_check "unexport" rig_unexport
rig_unload nvme-rdma nvmet-rdma
