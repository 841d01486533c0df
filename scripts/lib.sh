# SPDX-License-Identifier: GPL-2.0
# Shared shell helpers for nvmeof-rdma scripts. Source, do not execute.
#
# Everything that is derived from a kernel (extracted source, private nvme
# headers, the debug kernel, initramfs images) lives in a cache outside the
# repository so a clean clone stays clean and warm CI runs stay fast.

NVMEOF_CACHE=${NVMEOF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nvmeof-rdma}
NVMEOF_ROOT=${NVMEOF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

log() { printf '[nvmeof-rdma] %s\n' "$*" >&2; }
die() { printf '[nvmeof-rdma] error: %s\n' "$*" >&2; exit 1; }

# debian_kvers - every installed Debian kernel that has headers, oldest
# first, one per line.
debian_kvers() {
	local d
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] || continue
		d=${d%/build}; d=${d##*/}
		case $d in *-nvmeof-debug) continue ;; esac
		[ -e "/boot/vmlinuz-$d" ] || continue
		printf '%s\n' "$d"
	done | sort -V
}

# debian_kernel_mismatches [ROOT] - one line for each Debian kernel that has
# an image but no headers, or headers but no image: debian_kvers leaves it
# out, so the rig would silently not test it. ROOT (default /) is where
# boot/ and lib/modules/ are looked for (tests/host/runner-verdicts.sh).
debian_kernel_mismatches() {
	local r=${1:-} f v
	for f in "$r"/boot/vmlinuz-* "$r"/lib/modules/*/build; do
		[ -e "$f" ] || continue
		case $f in
		"$r"/boot/*) v=${f#"$r"/boot/vmlinuz-} ;;
		*) v=${f#"$r"/lib/modules/}; v=${v%/build} ;;
		esac
		case $v in *-nvmeof-debug) continue ;; esac
		if [ ! -e "$r/lib/modules/$v/build/Makefile" ]; then
			echo "$v has an image but no headers: apt-get install linux-headers-$v"
		elif [ ! -e "$r/boot/vmlinuz-$v" ]; then
			echo "$v has headers but no image: apt-get install linux-image-$v"
		fi
	done | sort -u
}

# in_debian13_root KVER - is KVER a Debian 13 kernel this machine lacks:
# one built in, and booted from, the Debian 13 root (scripts/debian13-root.sh)?
in_debian13_root() {
	[ ! -e "/lib/modules/$1/build/Makefile" ] && [[ $1 == *+deb13-* ]]
}

# newest_debian_kver - newest installed Debian kernel that has headers.
newest_debian_kver() {
	debian_kvers | tail -1
}

# default_kver - the running kernel if it has a build dir, else the newest
# installed Debian kernel with headers.
default_kver() {
	if [ -e "/lib/modules/$(uname -r)/build/Makefile" ]; then
		uname -r
	else
		newest_debian_kver
	fi
}

# kernel_version KDIR - "6.1.192" as the build tree reports it.
kernel_version() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory -C "$1" kernelversion 2>/dev/null | tail -1
}

# source_series VERSION - "6.1" for "6.1.192".
source_series() {
	printf '%s\n' "$1" | cut -d. -f1,2
}

# source_tree SERIES - extract Debian's linux-source-SERIES tarball into the
# cache (once) and print the tree's path.
source_tree() {
	local series=$1 tarball=/usr/src/linux-source-$1.tar.xz
	local dir=$NVMEOF_CACHE/src/linux-source-$series
	local stamp=$dir/.extracted-$(stat -c %Y "$tarball" 2>/dev/null)
	if [ ! -e "$stamp" ]; then
		[ -e "$tarball" ] || die "no $tarball: install it with 'apt-get install linux-source-$series'"
		log "extracting $tarball into $NVMEOF_CACHE/src"
		rm -rf "$dir"
		mkdir -p "$NVMEOF_CACHE/src"
		tar -C "$NVMEOF_CACHE/src" -xJf "$tarball"
		touch "$stamp"
	fi
	printf '%s\n' "$dir"
}
