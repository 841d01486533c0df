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

# the Debian release this machine runs: its kernels' package names
. /etc/os-release
case ${VERSION_CODENAME:-} in
bookworm)
	# the kernels we build for and boot in the guest, their headers, and
	# their source (for the private nvme headers; 6.1's for the debug
	# kernel): Debian 12's own 6.1 and the 6.12 it carries for Debian 13;
	# Debian 13's kernels come in the Debian 13 root (debootstrap)
	KERNEL_PKGS=(linux-image-amd64 linux-headers-amd64 linux-source-6.1
		linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
		debootstrap)
	;;
trixie)
	# Debian 13's own 6.12 (the test rig's debug kernel, built from 6.1's
	# source, needs Debian 12)
	KERNEL_PKGS=(linux-image-amd64 linux-headers-amd64 linux-source-6.12)
	;;
*)
	echo "[nvmeof-rdma] Debian ${VERSION_CODENAME:-?} is not supported: Debian 12 (bookworm) or 13 (trixie)" >&2
	exit 1
	;;
esac

PKGS=(
	"${KERNEL_PKGS[@]}"
	# out-of-tree and kernel builds
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio
	xz-utils zstd kmod sparse python3 dkms rsync git
	# the test rig: guest, userspace inside the guest
	qemu-system-x86 busybox-static nvme-cli fio rdma-core ibverbs-providers
	perftest iproute2 e2fsprogs ibverbs-utils
	# two guests on a wire (rig/run-pair.sh): their QEMU monitors and
	# control lines are unix sockets
	socat
	# scenario helpers in C that speak RDMA CM and verbs (tests/tools/)
	librdmacm-dev libibverbs-dev
	# `make bench` draws its chart with matplotlib; BENCH_PROFILE uses perf
	python3-matplotlib linux-perf
)

# Each linux-source must be the very version of the kernel it stands for
# (its headers' meta-package, built from the same Debian source): the
# archive can carry a newer source than image while an upload is published
# (seen 2026-12-02: linux-source-6.12 6.12.118 with linux-image-6.12-amd64
# still 6.12.117), and the build then refuses the mismatch.
declare -A SOURCE_OF=([linux-source-6.1]=linux-headers-amd64
	[linux-source-6.12]=linux-headers-6.12-amd64)
[ "$VERSION_CODENAME" = bookworm ] ||
	SOURCE_OF=([linux-source-6.12]=linux-headers-amd64)

installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

missing=()
for p in "${PKGS[@]}"; do
	installed "$p" || missing+=("$p")
done
# a source whose kernel is installed: the kernel's version, exactly
wrong=()
for p in "${!SOURCE_OF[@]}"; do
	installed "$p" && installed "${SOURCE_OF[$p]}" || continue
	want=$(dpkg-query -W -f='${Version}' "${SOURCE_OF[$p]}")
	[ "$(dpkg-query -W -f='${Version}' "$p")" = "$want" ] || wrong+=("$p=$want")
done

if [ ${#missing[@]} -eq 0 ] && [ ${#wrong[@]} -eq 0 ]; then
	exit 0
fi
if [ "${1:-}" = --check ]; then
	[ ${#missing[@]} -eq 0 ] || echo "missing Debian packages: ${missing[*]}" >&2
	[ ${#wrong[@]} -eq 0 ] || echo "kernel source not its kernel's version: ${wrong[*]}" >&2
	exit 1
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
	echo "[nvmeof-rdma] installing: ${missing[*]}" >&2
	$SUDO apt-get update -q
	$SUDO apt-get install -y -q "${missing[@]}"
fi
# again, now that the kernels are installed too
for p in "${!SOURCE_OF[@]}"; do
	want=$(dpkg-query -W -f='${Version}' "${SOURCE_OF[$p]}")
	if [ "$(dpkg-query -W -f='${Version}' "$p")" != "$want" ]; then
		echo "[nvmeof-rdma] $p: installing $want, the version of its kernel" >&2
		$SUDO apt-get install -y -q --allow-downgrades "$p=$want"
	fi
done
