#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian13-root.sh - the Debian 13 (trixie) root that Debian 13's kernels
# are built for and booted from: its own compiler (gcc-14, as Debian built
# those kernels), trixie's 6.12 and the newest 7.2 and 7.3 of
# trixie-backports, each with its headers and its linux-source. Made with
# debootstrap from Debian's registry once, kept in the cache outside the
# repository and named by its recipe: another recipe makes a new root.
#
# Usage: scripts/debian13-root.sh path         make it if need be; print its path
#        scripts/debian13-root.sh kvers        its kernels, one release a line
#        scripts/debian13-root.sh run CMD...   run CMD in it as root, with the
#                                              repository at its own path
#
# `make KVER=<a +deb13 release>` builds in it by itself (see the Makefile).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MIRROR=http://deb.debian.org/debian
SECURITY=http://deb.debian.org/debian-security
# the 7.x series taken from trixie-backports: each one's newest release
BACKPORT_SERIES="7.2 7.3"
# dkms: the .deb installed on this userland in a guest (tests/deb-guest.sh)
PKGS="build-essential bc bison flex libelf-dev libssl-dev dwarves sparse
	kmod xz-utils rsync dkms linux-image-amd64 linux-headers-amd64"

root=

# in_root DIR CMD... - CMD in DIR as root, in a mount namespace of its own
# (the mounts end with it): /proc, /dev and the repository at its own path
in_root() {
	local dir=$1
	shift
	unshare -m --propagation private /bin/bash -c '
		dir=$1 repo=$2; shift 2
		mount -t proc proc "$dir/proc" &&
		mount --rbind /dev "$dir/dev" &&
		mkdir -p "$dir$repo" && mount --bind "$repo" "$dir$repo" &&
		exec chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive "$@"' \
		in_root "$dir" "$NVMEOF_ROOT" "$@"
}

# quietly WHAT CMD... - CMD, its output in the root's log; on a failure the
# log's end and WHAT failed
quietly() {
	local what=$1
	shift
	"$@" >> "$tmp.log" 2>&1 ||
		{ tail -20 "$tmp.log" >&2; die "Debian 13 root: $what failed (log: $tmp.log)"; }
}

# pin PKG META - install linux-source's PKG at the very version of META
# (the image's or headers' package): the archive may carry a newer source
# than image while an upload is published (scripts/install-deps.sh)
pin() {
	local v
	v=$(in_root "$tmp" dpkg-query -W -f='${Version}' "$2")
	quietly "installing $1=$v" in_root "$tmp" apt-get install -y -q \
		--no-install-recommends "$1=$v"
}

make_root() {
	local bp
	command -v debootstrap > /dev/null ||
		die "no debootstrap: run scripts/install-deps.sh (or apt-get install debootstrap)"
	tmp=$root.tmp
	rm -rf "$tmp"
	mkdir -p "$(dirname "$root")"
	log "making the Debian 13 root (debootstrap trixie, then its kernels): $root"
	rm -f "$tmp.log"
	quietly "debootstrap trixie" debootstrap --variant=buildd trixie "$tmp" "$MIRROR"
	rm -f "$tmp/etc/apt/sources.list"
	cat > "$tmp/etc/apt/sources.list.d/debian.sources" <<-EOF
	Types: deb
	URIs: $MIRROR
	Suites: trixie trixie-updates trixie-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

	Types: deb
	URIs: $SECURITY
	Suites: trixie-security
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	cp /etc/resolv.conf "$tmp/etc/resolv.conf"
	quietly "apt-get update" in_root "$tmp" apt-get update -q
	# shellcheck disable=SC2086
	quietly "installing the build tools and trixie's kernel" \
		in_root "$tmp" apt-get install -y -q --no-install-recommends $PKGS
	pin linux-source-6.12 linux-headers-amd64
	# the newest release of each backported series, image and headers
	# (PKG/trixie-backports: those packages alone from there, not
	# trixie's linux-image-amd64 upgraded to backports' newest)
	for s in $BACKPORT_SERIES; do
		bp=$(in_root "$tmp" apt-cache search --names-only \
			"^linux-image-$s\.[0-9]+\+deb13-amd64\$" |
			cut -d' ' -f1 | sort -V | tail -1)
		[ -n "$bp" ] || die "trixie-backports has no linux-image-$s.*+deb13-amd64"
		quietly "installing $bp" in_root "$tmp" apt-get install -y -q \
			--no-install-recommends "$bp/trixie-backports" \
			"${bp/image/headers}/trixie-backports"
		pin "linux-source-$s" "$bp"
	done
	quietly "apt-get clean" in_root "$tmp" apt-get clean
	# roots made by another version of this script are stale, unless
	# another clone of the tree used one in the last 12 hours (its
	# .used stamp: a make faults there runs for two hours)
	for d in "$NVMEOF_CACHE"/roots/trixie-*/; do
		d=${d%/}
		[ "$d" != "$tmp" ] || continue
		[ -n "$(find "$d.used" -mmin -720 2> /dev/null)" ] && continue
		rm -rf "$d" "$d.used"
	done
	rm -f "$tmp.log"
	mv "$tmp" "$root"
}

# kvers - the root's kernels that have an image and headers, oldest first
kvers() {
	local d
	for d in "$root"/lib/modules/*/build; do
		[ -e "$d/Makefile" ] || continue
		d=${d%/build}; d=${d##*/}
		[ -e "$root/boot/vmlinuz-$d" ] && printf '%s\n' "$d"
	done | sort -V
}

# named by what makes it (the recipe above, not the comments): another
# recipe, another root
root=$NVMEOF_CACHE/roots/trixie-$( (declare -f make_root pin in_root;
	echo "$MIRROR $SECURITY $BACKPORT_SERIES $PKGS") | sha256sum | cut -c1-12)

[ "$(id -u)" -eq 0 ] || die "the Debian 13 root needs root (debootstrap, chroot)"
case ${1:-} in
path|run)
	# one maker at a time: two builds at once would both debootstrap
	mkdir -p "$NVMEOF_CACHE/roots"
	exec 9> "$NVMEOF_CACHE/roots/trixie.lock"
	flock 9
	[ -e "$root/etc/debian_version" ] || make_root
	touch "$root.used"
	flock -u 9
	if [ "$1" = path ]; then
		printf '%s\n' "$root"
	else
		shift
		in_root "$root" "$@"
	fi
	;;
kvers) [ ! -d "$root" ] || kvers ;;
*) die "usage: $0 path | kvers | run CMD..." ;;
esac
