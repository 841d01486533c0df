#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-gate: the checker checked. tests/run fails a module build whose log
# has any diagnostic (rig_build_findings); feed it build logs with each kind
# of diagnostic kbuild prints, and a clean one.
# covers: the build gate fails every kind of diagnostic
# rig: once fast=once
#
# Usage: tests/host/build-gate.sh    prints one CASE PASS|FAIL line per case
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/scripts/lib.sh"
. "$root/rig/verdict.sh"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

clean='  CC [M]  /build/host/io.o
  LD [M]  /build/host/nvme-rdma.o
  MODPOST /build/Module.symvers
  CC [M]  /build/host/nvme-rdma.mod.o
  LD [M]  /build/host/nvme-rdma.ko
  BTF [M] /build/host/nvme-rdma.ko'

# expect NAME fail|pass LINE - the clean log with LINE after its first line
expect() {
	local out got=pass
	{ head -1 <<<"$clean"; [ -z "$3" ] || printf '%s\n' "$3"; tail -n +2 <<<"$clean"; } > "$tmp"
	out=$(rig_build_findings "$tmp") && got=fail
	if [ "$got" = "$2" ]; then
		echo "CASE PASS $1"
	else
		echo "CASE FAIL $1 -- expected $2, got $got: $out"
	fi
}
expect "clean build passes" pass ""
expect "compiler warning fails" fail \
	"/build/host/io.c:88:13: warning: variable 'rc' set but not used [-Wunused-but-set-variable]"
expect "compiler error fails" fail "/build/host/io.c:90:1: error: expected ';' before '}' token"
expect "sparse warning fails" fail \
	"/build/target/io.c:301:25: warning: incorrect type in assignment (different base types)"
expect "modpost WARNING fails" fail \
	"WARNING: modpost: /build/host/nvme-rdma: section mismatch in reference: nvme_rdma_init (section: .init.text) -> x (section: .exit.text)"
expect "modpost ERROR fails" fail 'ERROR: modpost: "ib_foo" [/build/host/nvme-rdma.ko] undefined!'
