#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# covers: make deb; apt-get install and remove on the build machine
# rig: once changes-system fast=once
#
# deb-roundtrip: the Debian way to install. `make deb` builds
# nvmeof-rdma-dkms_<version>_all.deb; `apt-get install ./FILE.deb` must
# have DKMS build and install both modules for every Debian kernel here
# (modprobe resolves nvme-rdma and the nvmet RDMA transport alias to
# updates/dkms/, with our version and description) and put the nvmeof-rdma
# tool in /usr/sbin; `apt-get remove` must bring the in-tree modules back
# for each, and take the tool away. On the build machine: no module
# is loaded, only modprobe's resolution is checked (-S KVER).
#
# Usage: tests/host/deb-roundtrip.sh -    prints CASE PASS|FAIL lines
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. scripts/lib.sh

resolve() { /sbin/modprobe -S "$1" --show-depends "$2" 2>/dev/null | tail -1 | awk '{ print $2 }'; }
case_() { echo "CASE $1 $2${3:+ -- $3}"; }
log=/tmp/deb-roundtrip.log
remove() { DEBIAN_FRONTEND=noninteractive apt-get remove -y nvmeof-rdma-dkms >> "$log" 2>&1; }

# picks ours|stock NAME - a CASE "NAME [KVER]" for each Debian kernel: does
# modprobe resolve nvme-rdma and the nvmet RDMA transport alias to ours
# (updates/dkms/, our description and version) or to the in-tree modules?
picks() {
	local kver m p why
	for kver in $(debian_kvers); do
		why=
		for m in nvme-rdma nvmet-transport-1; do
			p=$(resolve "$kver" "$m")
			if [ "$1" = stock ]; then
				case $p in */kernel/drivers/nvme/*) continue ;; esac
				why="modprobe $m resolves to '$p', not the in-tree module"
			else
				case $p in */updates/dkms/*) ;; *) why="modprobe $m resolves to '$p', not updates/dkms/" ;; esac
				[ -n "$why" ] || modinfo -F description "$p" | grep -q '^nvmeof-rdma ' ||
					why="$p does not describe itself as nvmeof-rdma"
				[ -n "$why" ] || [ "$(modinfo -F version "$p")" = "$want" ] ||
					why="$p has version '$(modinfo -F version "$p")', expected $want"
			fi
			[ -z "$why" ] || break
		done
		if [ -z "$why" ]; then
			case_ PASS "deb: $2 [$kver]"
		else
			case_ FAIL "deb: $2 [$kver]" "$why (log: $log)"
		fi
	done
}

# beside an install of the user's it would replace or remove theirs: a
# failure to test, said as one
if dkms status nvmeof-rdma 2>/dev/null | grep -q . || dpkg -s nvmeof-rdma-dkms > /dev/null 2>&1; then
	case_ FAIL "deb: not tested" "nvmeof-rdma is already installed here ($(dkms status nvmeof-rdma | head -1)); remove it first"
	exit 0
fi
want=$(scripts/version.sh)
: > "$log"
if ! deb=$(scripts/deb.sh 2>> "$log"); then
	case_ FAIL "deb: make deb" "log: $log"
	exit 0
fi
case_ PASS "deb: make deb built $(basename "$deb")"
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y "$deb" >> "$log" 2>&1; then
	case_ FAIL "deb: apt-get install" "log: $log"
	remove
	exit 0
fi
picks ours "installed, modprobe picks ours"
# (its usage exits 64: not part of the pipeline's status under pipefail)
if [ -x /usr/sbin/nvmeof-rdma ] &&
	{ /usr/sbin/nvmeof-rdma --help 2>&1 || :; } | grep -q 'nvmeof-rdma stat'; then
	case_ PASS "deb: installed the nvmeof-rdma tool"
else
	case_ FAIL "deb: installed the nvmeof-rdma tool" "/usr/sbin/nvmeof-rdma missing or not runnable"
fi
if ! remove; then
	case_ FAIL "deb: apt-get remove" "log: $log"
	exit 0
fi
picks stock "removed, stock is back"
if [ -e /usr/sbin/nvmeof-rdma ]; then
	case_ FAIL "deb: removed the nvmeof-rdma tool" "/usr/sbin/nvmeof-rdma is still there"
else
	case_ PASS "deb: removed the nvmeof-rdma tool"
fi
if dkms status nvmeof-rdma 2>/dev/null | grep -q .; then
	case_ FAIL "deb: removed, nothing left in DKMS" "$(dkms status nvmeof-rdma | head -1)"
else
	case_ PASS "deb: removed, nothing left in DKMS"
fi
