#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh - install every Debian package the build, the test rig and
# the benchmark need. Idempotent: does nothing (and needs no network) when
# everything is present. Every make target calls it first.
#
# Usage: scripts/install-deps.sh [--check]
#   --check   only report what is missing; exit 1 if anything is.
set -euo pipefail

PKGS=(
	# the kernels we build for and boot in the guest, their headers, and
	# their source (for the private nvme headers; 6.1's for the debug
	# kernel): Debian 12's own 6.1 and the 6.12 it carries for Debian 13
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
	# out-of-tree and kernel builds
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio
	xz-utils zstd kmod sparse python3 dkms rsync git
	# the test rig: guest, userspace inside the guest
	qemu-system-x86 busybox-static nvme-cli fio rdma-core ibverbs-providers
	perftest iproute2
	# scenario helpers in C that speak RDMA CM and verbs (tests/tools/)
	librdmacm-dev libibverbs-dev
	# `make bench` draws its chart with matplotlib; BENCH_PROFILE uses perf
	python3-matplotlib linux-perf
)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "${1:-}" = --check ]; then
	echo "missing Debian packages: ${missing[*]}" >&2
	exit 1
fi

echo "[nvmeof-rdma] installing: ${missing[*]}" >&2
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q "${missing[@]}"
