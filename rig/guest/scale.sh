# SPDX-License-Identifier: GPL-2.0
# scale: the measured part of `make bench-scale`, on two guests joined by a
# wire (rig/run-pair.sh, rig.job=scale): scale_target on the target guest,
# scale_host on the host guest, which has several vCPUs (an I/O queue per
# CPU at most, per queue type). Real time (no icount): what a queue's
# setup waits for is the other guest, over the wire.
#
# Output: "RIG-SCALE key=value..." lines of the host guest, and the target
# guest's "RIG-SCALE-MARK" lines (its kernel memory when asked: rig_wire_do
# "mark"); scripts/bench-scale.sh collects both into the tables of
# Documentation/bench/scale.md:
#   case=connect queues=N ms=...   nvme connect to the controller live
#   case=reset queues=N ms=...     reset_controller to live again
#   case=storm hosts=N srq=Y|N ms=...  the port disabled and enabled: the
#                                  time from enabled until the last is live
#   case=limit srq=Y|N hosts=N how=none|refused|gone|failed
#                                  (rig.scale_limit=MAX: that case alone)
#                                  hosts connected one after another
#                                  before the first that could not, and
#                                  why: the target refused it, or no longer
#                                  answers, or another failure
#   RIG-SCALE-MARK hosts=N srq=Y|N before|after kib=... slab_kib=...
#                  vmalloc_kib=... buffers_kib=...|none
#                                  use_srq=Y|N (the target's setting)

# the runs of each timed case (the median is reported)
SCALE_RUNS=${RIG_SCALE_RUNS:-3}

# scale_target - serve a RAM disk on the wire, and do what the host guest
# asks (rig_wire_do: memory marks, reloads) until it has ended
scale_target() {
	rig_wire_serve
}

# scale_ms - milliseconds since boot, to 10 ms (/proc/uptime: busybox's
# date has no %N)
scale_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# scale_median N... - the median of the numbers
scale_median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# scale_queue_opts N - fabrics options for N I/O queues: read queues
# first (at most one per CPU, as nvme-fabrics caps each type), then write
# queues, then poll queues
scale_queue_opts() {
	local n=$1 cpus r w p
	cpus=$(nproc)
	r=$(( n < cpus ? n : cpus )); n=$(( n - r ))
	w=$(( n < cpus ? n : cpus )); n=$(( n - w ))
	p=$(( n < cpus ? n : cpus ))
	# nvme-fabrics refuses a count of 0 for write and poll queues
	printf ',nr_io_queues=%s' "$r"
	[ "$w" = 0 ] || printf ',nr_write_queues=%s' "$w"
	[ "$p" = 0 ] || printf ',nr_poll_queues=%s' "$p"
	echo
}

# scale_queue_times N - connect and reset times of one controller with N
# I/O queues, SCALE_RUNS times each
scale_queue_times() {
	local n=$1 opts i t0 c= r= got
	opts=$(scale_queue_opts "$n")
	for i in $(seq "$SCALE_RUNS"); do
		t0=$(scale_ms)
		rig_connect_host 1 "$RIG_WIRE_TARGET" "$opts" || { rig_fail "connect with $n I/O queues"; return 1; }
		c="$c $(( $(scale_ms) - t0 ))"
		got=$(( $(cat /sys/class/nvme/nvme0/queue_count) - 1 ))
		[ "$got" = "$n" ] || { rig_fail "$n I/O queues asked ($opts), $got granted"; return 1; }
		t0=$(scale_ms)
		echo 1 > /sys/class/nvme/nvme0/reset_controller
		r="$r $(( $(scale_ms) - t0 ))"
		rig_wait 10 rig_ctrl_live || { rig_fail "not live after a reset ($n I/O queues)"; return 1; }
		rig_disconnect all > /dev/null
		rig_wait 30 rig_no_controllers || { rig_fail "controller left ($n I/O queues)"; return 1; }
	done
	rig_log "$n I/O queues: connect$c ms, reset$r ms"
	echo "RIG-SCALE case=connect queues=$n ms=$(scale_median $c)"
	echo "RIG-SCALE case=reset queues=$n ms=$(scale_median $r)"
}

# scale_live - controllers live now
scale_live() { cat /sys/class/nvme/nvme*/state 2> /dev/null | grep -c '^live$'; }

# scale_hosts N SRQ - N controllers (distinct hosts, two I/O queues each:
# one read, one write) to the one port, the target's memory marked before
# and after (it prints them: RIG-SCALE-MARK), then the port disabled and
# enabled under them: the time until all N are live again
scale_hosts() {
	local n=$1 srq=$2 i t0
	rig_must "target marks its memory before $n hosts" rig_wire "target mark hosts=$n srq=$srq before"
	t0=$(scale_ms)
	for i in $(seq "$n"); do
		rig_connect_host "$i" "$RIG_WIRE_TARGET" ",nr_io_queues=1,nr_write_queues=1,reconnect_delay=1,ctrl_loss_tmo=600" ||
			{ rig_fail "host $i of $n could not connect"; return 1; }
	done
	rig_log "$n hosts connected one after the other in $(( $(scale_ms) - t0 )) ms"
	rig_check "$n controllers live" test "$(scale_live)" = "$n"
	rig_must "target marks its memory with $n hosts" rig_wire "target mark hosts=$n srq=$srq after"
	rig_must "target port off" rig_wire "target port off"
	rig_wait 60 sh -c "[ \$(cat /sys/class/nvme/nvme*/state | grep -c '^live$') = 0 ]" ||
		rig_log "some controllers still live with the port off"
	rig_must "target port on" rig_wire "target port on"
	t0=$(scale_ms)
	if rig_wait 300 sh -c "[ \$(cat /sys/class/nvme/nvme*/state | grep -c '^live$') = $n ]"; then
		echo "RIG-SCALE case=storm hosts=$n srq=$srq ms=$(( $(scale_ms) - t0 ))"
	else
		rig_fail "$(scale_live) of $n hosts live 300 s after the port came back"
	fi
	rig_disconnect all > /dev/null
	rig_check "$n controllers gone" rig_wait 120 rig_no_controllers
}

# scale_limit MAX SRQ - hosts (two I/O queues each) connected one after
# another, the target's memory its only limit, until one cannot connect
# (MAX at most): how many did, and what stopped the next. The target's
# guest may not survive it (stock's runs out of memory): the pair's last
# case, in a run of its own (scripts/bench-scale.sh).
scale_limit() {
	local max=$1 srq=$2 n=0 how=none
	[ "$srq" = N ] ||
		rig_must "target reloaded with use_srq=Y" rig_wire "target restart use_srq=Y"
	rig_must "target marks its memory" rig_wire "target mark hosts=0 srq=$srq limit"
	while [ $n -lt "$max" ]; do
		rig_connect_host $((n + 1)) "$RIG_WIRE_TARGET" ",nr_io_queues=1,nr_write_queues=1" ||
			break
		n=$((n + 1))
	done
	if ! rig_wire "target mark hosts=$n srq=$srq limit"; then
		how=gone
	elif [ $n -lt "$max" ]; then
		if dmesg | tail -n 20 | grep -q 'Connect rejected: .* nvme status 6 '; then
			how=refused
		else
			how=failed
			rig_log "host $((n + 1)) failed: $(dmesg | grep nvme | tail -n 1)"
		fi
	fi
	rig_log "$n hosts connected ($max at most), the next: $how"
	echo "RIG-SCALE case=limit srq=$srq hosts=$n how=$how"
	[ $how = gone ] || rig_check "the $n hosts live" test "$(scale_live)" = "$n"
}

scale_host() {
	local n
	rig_load_host
	# the target guest boots beside this one: wait until it serves
	rig_must "the target serves" rig_wire_connect ""
	rig_disconnect all > /dev/null
	rig_must "no controller" rig_wait 30 rig_no_controllers
	if [ -n "${RIG_SCALE_LIMIT:-}" ]; then
		scale_limit "$RIG_SCALE_LIMIT" "${RIG_SCALE_SRQ:-N}"
		return
	fi
	for n in $(echo "${RIG_SCALE_QUEUES:-1,4,8,16}" | tr , ' '); do
		scale_queue_times "$n"
	done
	for n in $(echo "${RIG_SCALE_HOSTS:-64}" | tr , ' '); do
		scale_hosts "$n" N
		rig_must "target reloaded with use_srq=Y" rig_wire "target restart use_srq=Y"
		scale_hosts "$n" Y
		rig_must "target reloaded without SRQ" rig_wire "target restart"
	done
}
