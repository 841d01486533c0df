#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tool-stat: tools/nvmeof-rdma stat's arithmetic and formats on a made-up
# debugfs tree (NVMEOF_RDMA_DEBUGFS), where the guest's scenario (stats)
# cannot look: --json must be valid JSON (python3 parses it) with every
# counter as a number and the host NQN as a string; an interval must give
# the differences, never subtract what is a state (live, queues, qid,
# cntlid); the text rows must carry reads, writes, KiB and the sums of the
# error columns; a queue that appears during the interval counts from 0.
# covers: nvmeof-rdma stat's arithmetic and formats
# rig: once fast=once
#
# Usage: tests/host/tool-stat.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tool=$root/tools/nvmeof-rdma
export NVMEOF_RDMA_DEBUGFS=$tmp/debug
H=$NVMEOF_RDMA_DEBUGFS/nvme_rdma/nvme3
T=$NVMEOF_RDMA_DEBUGFS/nvmet_rdma
mkdir -p "$H" "$T"

case_() { echo "CASE $1 tool-stat: $2${3:+ -- $3}"; }
# check NAME CMD... - a case that passes when CMD does
check() {
	local name=$1
	shift
	if "$@" > "$tmp/why" 2>&1; then
		case_ PASS "$name"
	else
		case_ FAIL "$name" "$(tr '\n' '|' < "$tmp/why")"
	fi
}
# json_is FILE PYEXPR - the JSON in FILE parses and PYEXPR (on j) holds
json_is() { python3 -c "import json,sys; j = json.load(open('$1')); sys.exit(0 if ($2) else 1)"; }

printf '%s\n' 'recoveries_timeout 2' 'recoveries_disconnect 1' 'resets 1' \
	'reconnects 3' 'reconnect_failures 4' 'queues 2' > "$H/ctrl"
printf '%s\n' 'cmds_admin 7' 'cmds_fabrics 1' 'live 1' > "$H/queue0"
printf '%s\n' 'cmds_read 10' 'cmds_write 4' 'cmds_other_io 1' \
	'bytes_read 40960' 'bytes_written 8192' 'status_generic 1' \
	'status_media 2' 'rsp_rejected 1' 'wc_errors 1' 'timeouts 2' \
	'sq_full 5' 'live 1' 'buffer_bytes 20480' 'mrs 128' > "$H/queue1"
printf '%s\n' 'cntlid 7' 'hostnqn nqn.2014-08.org.nvmexpress:uuid:x' \
	'host_traddr 192.0.2.7' 'qid 1' \
	'cmds_read 10' 'cmds_write 4' 'bytes_read 40960' 'bytes_written 8192' \
	'cmds_rejected 3' 'pages_held 17' 'srq 0' 'buffer_bytes 2097152' > "$T/queue5"

"$tool" stat --json > "$tmp/totals.json"
check "--json parses, counters are numbers, the NQN and address strings" json_is "$tmp/totals.json" \
	"j['host'][0]['controller'] == 'nvme3' and j['host'][0]['ctrl']['reconnects'] == 3 and j['host'][0]['queues'][1]['counters']['bytes_read'] == 40960 and j['target'][0]['counters']['hostnqn'] == 'nqn.2014-08.org.nvmexpress:uuid:x' and j['target'][0]['counters']['host_traddr'] == '192.0.2.7' and j['target'][0]['queue'] == 'queue5' and j['interval'] == 0"
"$tool" stat > "$tmp/totals.txt"
check "the controller line: resets, reconnects, failures, recoveries summed" \
	grep -qx 'host nvme3: 2 queues, 1 resets, 3 reconnects, 4 failed reconnects, 3 error recoveries' "$tmp/totals.txt"
# queue 1: reads writes other read_KiB write_KiB errors reject failed sq_full
# mem_KiB (buffers, and the target's cached pages of 4 KiB)
check "a host queue's row" grep -qE '^  queue 1 +10 +4 +1 +40\.0 +8\.0 +3 +1 +3 +5 +20$' "$tmp/totals.txt"
check "the admin queue's other commands: admin and fabrics" grep -qE '^  queue 0 +0 +0 +8 ' "$tmp/totals.txt"
check "a target queue's row, named by controller and queue" \
	grep -qE '^  cntlid 7 qid 1 +10 +4 +0 +40\.0 +8\.0 +0 +3 +0 +0 +2116$' "$tmp/totals.txt"

# one interval of 1 s: 5 more reads on the host, a new target queue
( sleep 0.4
  sed -i 's/^cmds_read 10$/cmds_read 15/; s/^bytes_read 40960$/bytes_read 61440/' "$H/queue1"
  printf '%s\n' 'cntlid 7' 'qid 2' 'cmds_write 6' > "$T/queue6" ) &
"$tool" stat --json 1 1 > "$tmp/rate.json"
wait
check "over an interval: the differences, states kept" json_is "$tmp/rate.json" \
	"j['interval'] == 1 and j['host'][0]['queues'][1]['counters']['cmds_read'] == 5 and j['host'][0]['queues'][1]['counters']['bytes_read'] == 20480 and j['host'][0]['queues'][1]['counters']['cmds_write'] == 0 and j['host'][0]['queues'][1]['counters']['live'] == 1 and j['host'][0]['ctrl']['queues'] == 2 and j['target'][0]['counters']['qid'] == 1 and j['target'][0]['counters']['cntlid'] == 7 and j['target'][0]['counters']['host_traddr'] == '192.0.2.7' and j['host'][0]['queues'][1]['counters']['buffer_bytes'] == 20480 and j['target'][0]['counters']['buffer_bytes'] == 2097152 and j['target'][0]['counters']['pages_held'] == 17"
check "over an interval: a queue that appeared counts from 0" json_is "$tmp/rate.json" \
	"[q['counters']['cmds_write'] for q in j['target'] if q['queue'] == 'queue6'] == [6]"
"$tool" stat 1 1 > "$tmp/rate.txt"
check "rates in the text: per second, the header says so" \
	grep -q 'reads/s' "$tmp/rate.txt"
"$tool" stat 1 x > /dev/null 2>&1
check "a bad interval count is a usage error (64)" test $? = 64
NVMEOF_RDMA_DEBUGFS=$tmp/none "$tool" stat > "$tmp/none.txt" 2>&1
check "nothing to show: exit 1" test $? = 1
