#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# layout-guard.sh - refuse modules whose view of nvme-core's, nvme-fabrics'
# and nvmet's private structs differs from the kernel they are for.
#
# Usage: scripts/layout-guard.sh KVER KDIR OBJ...
#
# Our modules are compiled against nvme.h, fabrics.h and nvmet.h taken
# from the kernel's source package (scripts/nvme-private-headers.sh); a
# source that is not the one the kernel was built from (another Debian
# revision, a vendor patch) compiles fine and then reads the wrong field:
# MODVERSIONS does not see struct layouts. So every private struct that
# OBJ's debug info knows (what our code uses) is compared, member by member
# (name, offset, size, and the struct's size), with the BTF of the module
# that defines it, as the kernel's own package installed it
# (/lib/modules/KVER/kernel/drivers/nvme/...). Exit 1 naming the first
# difference of each struct that differs, 0 if none does.
#
# A kernel without module BTF (the rig's debug kernel, which is built from
# the very tree the headers are taken from) is not checked: said, exit 0.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kver=$1 kdir=$2
shift 2

# STRUCT:MODULE - the private structs, each with the module defining it
STRUCTS="nvme_ctrl:host/nvme-core nvme_ns:host/nvme-core
	nvme_ns_head:host/nvme-core nvme_request:host/nvme-core
	nvme_ctrl_ops:host/nvme-core nvme_subsystem:host/nvme-core
	nvmf_ctrl_options:host/nvme-fabrics nvmf_transport_ops:host/nvme-fabrics
	nvmet_req:target/nvmet nvmet_sq:target/nvmet nvmet_cq:target/nvmet
	nvmet_ctrl:target/nvmet nvmet_port:target/nvmet nvmet_ns:target/nvmet
	nvmet_subsys:target/nvmet nvmet_fabrics_ops:target/nvmet"

if ! grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$kdir/.config" 2> /dev/null; then
	log "layout guard: $kver has no module BTF; not checked (its headers must come from its own tree)"
	exit 0
fi
command -v pahole > /dev/null || die "layout guard: no pahole (apt-get install dwarves)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the kernel's own BTF, the base of its modules': the headers' vmlinux
# (Debian 13's ship it), else the image's, decompressed
base=$kdir/vmlinux
if [ ! -e "$base" ]; then
	base=$tmp/vmlinux
	ksrc=$(source_tree "$(source_series "$(kernel_version "$kdir")")")
	"$ksrc/scripts/extract-vmlinux" "/boot/vmlinuz-$kver" > "$base" 2> /dev/null ||
		die "layout guard: cannot extract the kernel's BTF from /boot/vmlinuz-$kver (install linux-image-$kver)"
fi

# module PATH - the kernel's module PATH (host/nvme-core), uncompressed
module() {
	local f=/lib/modules/$kver/kernel/drivers/nvme/$1.ko out=$tmp/${1//\//-}.ko
	if [ ! -e "$out" ]; then
		if [ -e "$f" ]; then
			cp "$f" "$out"
		elif [ -e "$f.xz" ]; then
			xz -dc "$f.xz" > "$out"
		elif [ -e "$f.zst" ]; then
			zstd -qdc "$f.zst" > "$out"
		else
			die "layout guard: no $f (install linux-image-$kver)"
		fi
	fi
	printf '%s\n' "$out"
}

# layout - pahole's struct as "member offset size" lines, nesting kept as
# tabs, and "size N": attributes and type spelling left out, which BTF and
# DWARF print differently
layout() {
	sed 's/ __attribute__((__aligned__([0-9]*)))//g' |
	sed -n 's/^\(\t*\)[^/]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)\(\[[0-9]*\]\)*\( *:[ 0-9]*\)\{0,1\}; *\/\* *\([0-9:]*\) *\([0-9]*\) *\*\/.*/\1\2 \5 \6/p
		s/^\t\/\* size: \([0-9]*\),.*/size \1/p'
}

bad=0
for e in $STRUCTS; do
	s=${e%%:*}
	ours=
	for o in "$@"; do
		ours=$(pahole -C "$s" "$o" 2> /dev/null | layout) || true
		[ -z "$ours" ] || break
	done
	# a struct our code does not use: nothing to compare
	[ -n "$ours" ] || continue
	theirs=$(pahole -C "$s" --btf_base "$base" "$(module "${e#*:}")" 2> /dev/null | layout) || true
	if [ -z "$theirs" ]; then
		echo "layout guard: struct $s is not in the BTF of ${e#*:}.ko of $kver" >&2
		bad=1
		continue
	fi
	[ "$ours" = "$theirs" ] && continue
	# the first line where they part: "member offset size" of each side
	first=$(awk 'NR == FNR { a[FNR] = $0; n = FNR; next }
		a[FNR] != $0 { d = FNR; exit }
		END { if (!d) d = (FNR < n ? FNR + 1 : n + 1)
		      printf "ours \"%s\", the kernel'"'"'s \"%s\"", a[d], $0 }' \
		<(echo "$ours") <(echo "$theirs") | tr -s '\t ' ' ' | sed 's/" /"/g')
	echo "layout guard: struct $s differs from ${e#*:}.ko of $kver (member offset size): $first" >&2
	bad=1
done
if [ $bad -ne 0 ]; then
	echo "layout guard: the private headers (from the kernel's linux-source) are not those $kver was built from; refusing the modules. Install the linux-source of this very kernel, or pass KSRC=<its tree>." >&2
	exit 1
fi
log "layout guard: every private struct ours uses is laid out as in $kver"
