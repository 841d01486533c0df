#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-helpers: the scenarios' own judges checked. rig_fio_verify must fail
# a fio run that exits 0 without moving data in both directions (what a job
# that did nothing also gets), and rig_unload_refused must take only "in
# use", with the module still there, as a refusal. Each with its control
# that must pass. fio and rmmod are stubs here; the helpers are the
# guest's own (rig/guest/lib.sh).
# rig: once
#
# Usage: tests/host/guest-helpers.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/rig/guest/lib.sh"
RIG_FIO_OUT=$tmp/fio.out
mkdir "$tmp/bin"
PATH=$tmp/bin:$PATH

# expect NAME 0|1 CMD... - CMD's exit status is (0) or is not (1) zero
expect() {
	local name=$1 want=$2 got=0
	shift 2
	"$@" > "$tmp/out" 2>&1 || got=1
	if [ "$got" = "$want" ]; then
		echo "CASE PASS $name"
	else
		echo "CASE FAIL $name -- exit status $([ $got = 0 ] && echo 0 || echo non-zero): $(tr '\n' '|' < "$tmp/out")"
	fi
}

# fake_fio RC READ_KIB WRITE_KIB - a fio that exits RC after printing a
# terse v3 line: field 6 the KiB read, field 47 the KiB written
fake_fio() {
	local f i
	f="3;fio-3.33;verify;0;0"
	for i in $(seq 6 130); do
		case $i in
		6) f+=";$2" ;;
		47) f+=";$3" ;;
		*) f+=";0" ;;
		esac
	done
	printf '#!/bin/sh\necho "%s"\nexit %s\n' "$f" "$1" > "$tmp/bin/fio"
	chmod +x "$tmp/bin/fio"
}
fake_fio 0 4096 4096
expect "fio verify that moved data both ways passes" 0 rig_fio_verify /dev/null write 4k 1
fake_fio 0 0 0
expect "fio verify that moved nothing fails" 1 rig_fio_verify /dev/null write 4k 1
fake_fio 0 0 4096
expect "fio verify that wrote but never read back fails" 1 rig_fio_verify /dev/null write 4k 1
fake_fio 1 4096 4096
expect "fio verify whose fio failed fails" 1 rig_fio_verify /dev/null write 4k 1

# fake_rmmod RC MESSAGE - an rmmod that says MESSAGE and exits RC
fake_rmmod() {
	printf '#!/bin/sh\necho "%s" >&2\nexit %s\n' "$2" "$1" > "$tmp/bin/rmmod"
	chmod +x "$tmp/bin/rmmod"
}
RMMOD=$tmp/bin/rmmod
# a module every kernel has in /sys/module
fake_rmmod 1 "rmmod: ERROR: Module kernel is in use"
expect "an unload refused as in use, the module still there, is a refusal" 0 \
	rig_unload_refused kernel
fake_rmmod 1 "rmmod: ERROR: Module kernel is not currently loaded"
expect "an unload that fails otherwise is no refusal" 1 rig_unload_refused kernel
fake_rmmod 1 "rmmod: ERROR: Module no_such_module is in use"
expect "\"in use\" for a module that is not there is no refusal" 1 \
	rig_unload_refused no-such-module
fake_rmmod 0 ""
expect "an unload that succeeded is no refusal" 1 rig_unload_refused kernel
