# SPDX-License-Identifier: GPL-2.0
# deb-guest: the Debian package installed the Debian way on a running
# Debian system. The guest's root for it is this machine's Debian 12
# (read-only over virtio-9p, writes kept in the guest's memory: an overlay),
# with only the running kernel's headers; on the oldest of Debian 13's
# kernels, the Debian 13 root (scripts/debian13-root.sh: trixie's
# userland), with the running kernel's headers and those of its newest
# backport kernel. tests/run built the .deb from the tree. apt-get install
# of it has DKMS build both modules for each of those kernels (for the
# backport kernel: installed, our version, not loaded); modprobe loads the
# running kernel's build (its build ID), the nvmet
# RDMA transport autoloads it when a port is enabled (the kernel's
# request_module through that root's modprobe), and verified I/O runs
# through both; apt-get remove brings the in-tree modules back, loaded by
# the same modprobe and autoload. (tests/host/deb-roundtrip.sh checks the
# same package on the build machine for every Debian kernel, without
# loading anything.) Under TCG, DKMS's build in the guest takes 9-11
# minutes a kernel (and depmod, which on Debian 13 unpacks every module,
# minutes more): it runs on the oldest Debian kernel of each userland
# alone; deb-roundtrip builds the package for Debian 12's others.
# covers: the .deb on a running Debian system (12 and 13): DKMS builds, modprobe and autoload resolve to ours, removal brings stock back
# rig: pairs=ours/ours kernels=oldest,trixie-oldest rdma=rxe hostroot=yes timeout=2700 fast=none

D=/mnt/debian
KMOD=/proc/sys/kernel/modprobe

# in_debian CMD... - CMD in the Debian root
in_debian() { chroot $D /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	DEBIAN_FRONTEND=noninteractive LANG=C "$@"; }

# debian_root - this machine's root over 9p, an overlay on it in memory,
# the guest's /proc, /sys and /dev in it
debian_root() {
	local m
	for m in virtio_pci 9pnet_virtio 9p overlay; do $MODPROBE $m || return 1; done
	mkdir -p /mnt/lower /mnt/rw $D &&
		mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=524288,cache=loose \
			hostroot /mnt/lower &&
		mount -t tmpfs -o size=1200m rw /mnt/rw &&
		mkdir /mnt/rw/upper /mnt/rw/work &&
		mount -t overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work \
			debian $D || return 1
	for m in proc sys dev; do mount -o bind /$m $D/$m || return 1; done
	# the Debian 13 root has not the tree (run-guest.sh shares it apart)
	if [ ! -d "$D$RIG_HOSTROOT/build" ]; then
		mkdir -p "$D$RIG_HOSTROOT" &&
			mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=524288,cache=loose \
				hosttree "$D$RIG_HOSTROOT" || return 1
	fi
	# what udev makes on a Debian system (DKMS's bash reads <(...) there)
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	# /run the guest's own (this machine's has its daemons' state); /tmp
	# the overlay's, where the tree may be
	mount -t tmpfs run $D/run
}
# debian_root_end - the kernel's module loads back to the guest's own
# modprobe, the Debian root unmounted (its 9p and overlay modules must
# unload after the scenario)
debian_root_end() {
	local m
	[ -z "${old_kmod:-}" ] || echo "$old_kmod" > $KMOD
	for m in run dev sys proc; do umount $D/$m 2> /dev/null; done
	umount "$D$RIG_HOSTROOT" 2> /dev/null
	umount $D 2> /dev/null
	umount /mnt/rw 2> /dev/null
	umount /mnt/lower 2> /dev/null
}
trap debian_root_end EXIT

# resolves MODULE [KERNEL] - the file the Debian root's modprobe loads for
# MODULE on KERNEL (default the running one)
resolves() { in_debian modprobe ${2:+-S "$2"} --show-depends "$1" | tail -1 | awk '{ print $2 }'; }
# resolves_to MODULE DIR [KERNEL] - ... is a file under /lib/modules/KERNEL/DIR/
resolves_to() {
	case $(resolves "$1" "${3:-}") in
	/lib/modules/${3:-$KVER}/$2/*) ;;
	*) rig_log "modprobe $1 resolves to '$(resolves "$1" "${3:-}")'"; return 1 ;;
	esac
}
# build_id FILE - a module file's build ID (the Debian root's readelf; a
# compressed module, as Debian's 6.12 has them, unpacked first)
build_id() {
	case $1 in
	*.xz) in_debian sh -c "xz -dc '$1' > /tmp/build-id.ko" &&
	      in_debian readelf -n /tmp/build-id.ko ;;
	*) in_debian readelf -n "$1" ;;
	esac | awk '/Build ID:/ { print $3 }'
}
# loaded_is MODULE FILE - the loaded MODULE is FILE (by build ID)
loaded_is() {
	local have want
	have=$(rig_build_id_loaded "$1") want=$(build_id "$2")
	[ -n "$want" ] && [ "$have" = "$want" ] ||
		{ rig_log "$1 loaded: build ID '$have', $2: '$want'"; return 1; }
}
# io_through_both - export, autoload the transport, connect, verified I/O,
# disconnect, unexport, both modules unloaded
io_through_both() {
	local ns
	rig_export "$RIG_DEV" || return 1
	ns=$(rig_connect) && test -b "$ns" &&
		rig_fio_verify "$ns" randrw 16k 8 1 2M &&
		rig_disconnect && rig_wait 20 rig_no_controllers || return 1
}

rig_must "this machine's Debian root, an overlay in memory" debian_root
deb=$(ls "$D$RIG_HOSTROOT"/build/rig/deb/nvmeof-rdma-dkms_*_all.deb 2> /dev/null | head -1)
rig_must "the package tests/run built" test -f "$deb"
deb=${deb#$D}
# the other kernels' headers out of sight (their build links: a whole
# tree removed through the overlay takes minutes), so DKMS builds once; on
# Debian 13 twice: the newest kernel with headers, a backport, stays too
other=
case $KVER in
*+deb13-*)
	for k in "$D"/lib/modules/*; do
		[ -e "$k/build/Makefile" ] && [ "${k##*/}" != "$KVER" ] && other=${k##*/}
	done
	rig_must "a backport kernel's headers beside the running kernel's" test -n "$other" ;;
esac
for k in "$D"/lib/modules/*; do
	[ "${k##*/}" = "$KVER" ] || [ "${k##*/}" = "$other" ] || rm -f "$k/build" "$k/source"
done
rig_must "the running kernel's headers" in_debian test -d "/lib/modules/$KVER/build/"
rig_must "before: modprobe resolves nvme-rdma to the in-tree module" \
	resolves_to nvme-rdma kernel/drivers/nvme/host

t0=$(rig_t)
rig_must "apt-get install ./$(basename "$deb")" in_debian apt-get install -y --no-install-recommends "$deb"
rig_figure "apt-get install (DKMS building both modules) took $(rig_since "$t0") s"
in_debian dkms status | while read -r l; do rig_log "dkms status: $l"; done
dkms_installed() { in_debian dkms status -k "$1" | grep -q '^nvmeof-rdma/.*: installed'; }
rig_check "DKMS installed nvmeof-rdma for $KVER" dkms_installed "$KVER"
if [ -n "$other" ]; then
	rig_check "... and for $other" dkms_installed "$other"
	other_is_ours() {
		resolves_to nvme-rdma updates/dkms "$other" &&
			in_debian modinfo -F description "$(resolves nvme-rdma "$other")" |
			grep -q '^nvmeof-rdma '
	}
	rig_check "... its nvme-rdma in updates/dkms/, ours" other_is_ours
fi
rig_check "modprobe resolves nvme-rdma to updates/dkms/" resolves_to nvme-rdma updates/dkms
rig_check "... and the nvmet RDMA transport alias" resolves_to nvmet-transport-1 updates/dkms
host_ko=$(resolves nvme-rdma) target_ko=$(resolves nvmet-transport-1)
rig_check "the nvmeof-rdma tool in /usr/sbin" test -x $D/usr/sbin/nvmeof-rdma

# the kernel's own module loads (request_module) go through the Debian
# root's modprobe from here on
old_kmod=$(cat $KMOD)
printf '#!/bin/sh\nexec chroot %s /sbin/modprobe "$@"\n' $D > /tmp/debian-modprobe
chmod +x /tmp/debian-modprobe
echo /tmp/debian-modprobe > $KMOD

rig_setup_rdma
RIG_DEV=$(rig_backing ram 64)
rig_must "brd backing device" test -b "$RIG_DEV"
rig_must "modprobe nvme-rdma" in_debian modprobe nvme-rdma
rig_check "nvme-rdma loaded is DKMS's build" loaded_is nvme-rdma "$host_ko"
says_ours() { grep -q . /sys/module/nvme_rdma/version && in_debian modinfo -F description "$host_ko" | grep -q '^nvmeof-rdma '; }
rig_check "nvme-rdma says it is ours (version, description)" says_ours
rig_check "export (the port's transport autoloaded), connect, verified I/O" io_through_both
rig_check "nvmet-rdma autoloaded is DKMS's build" loaded_is nvmet-rdma "$target_ko"
rig_check "unexport" rig_unexport
rig_check "both unload" $RMMOD nvme-rdma nvmet-rdma

t0=$(rig_t)
rig_check "apt-get remove nvmeof-rdma-dkms" in_debian apt-get remove -y nvmeof-rdma-dkms
rig_figure "apt-get remove took $(rig_since "$t0") s"
in_debian dkms status | while read -r l; do rig_log "dkms status after: $l"; done
rig_check "after: modprobe resolves nvme-rdma to the in-tree module" \
	resolves_to nvme-rdma kernel/drivers/nvme/host
rig_check "... and the nvmet RDMA transport alias" \
	resolves_to nvmet-transport-1 kernel/drivers/nvme/target
stock_ko=$(resolves nvme-rdma)
rig_check "modprobe nvme-rdma" in_debian modprobe nvme-rdma
rig_check "nvme-rdma loaded is the in-tree one" loaded_is nvme-rdma "$stock_ko"
rig_check "export (stock's transport autoloaded), connect, verified I/O" io_through_both
rig_check "nvmet-rdma autoloaded is the in-tree one" \
	loaded_is nvmet-rdma "$(resolves nvmet-transport-1)"
rig_check "the tool gone" test ! -e $D/usr/sbin/nvmeof-rdma
rig_check "unexport" rig_unexport
rig_check "both unload" $RMMOD nvme-rdma nvmet-rdma
