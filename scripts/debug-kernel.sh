#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - build (once) and print the location of the rig's debug
# kernel: the same linux-source as Debian's kernel, with KUnit, KASAN,
# lockdep, rxe and siw, and a patch (scripts/debug-kernel.patch): kmemleak
# does not scan KASAN's shadow, an eighth of the guest's memory, which made each
# leak scan ~10 s per GiB under TCG; and nvme-core's multipath flushes its
# partition scan work when the last path goes, not in the disk's release
# under open_mutex, which the work takes too (lockdep's report of that,
# nvme-core's own, switched lockdep off for the rest of any scenario that
# deletes a controller under an opener: Documentation/testing.md). The result is cached outside the
# repository, keyed by the config fragment, the patch, the build recipe and
# the source version, so it is rebuilt only when one of them changes.
#
# Usage: scripts/debug-kernel.sh [SERIES]     (default: 6.1)
# Prints: the cache directory, holding bzImage, build/ (a module build tree,
#         usable as KDIR) and modules/lib/modules/<kver>/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

series=${1:-6.1}
src=$(source_tree "$series")
version=$(kernel_version "$src")
# Bump RECIPE when a change below alters what gets built; the options of the
# config fragment (not its comments) and the patch are part of the key by
# themselves.
RECIPE=3
key=$( (grep -v '^[[:space:]]*\(#\|$\)' "$NVMEOF_ROOT/scripts/debug-kernel.config"
	cat "$NVMEOF_ROOT/scripts/debug-kernel.patch"; echo "recipe=$RECIPE") |
	sha256sum | cut -c1-12)
out=$NVMEOF_CACHE/debug-kernel/$version-$key

if [ -e "$out/.done" ]; then
	printf '%s\n' "$out"
	exit 0
fi

log "building debug kernel $version ($key) into $out; a cold build takes about 15-20 minutes on 2 cores"
rm -rf "$out"
mkdir -p "$out/build"
start=$(date +%s)
(
	# The build's own source: hard links to the shared tree, so that the
	# rig's patch (scripts/debug-kernel.patch) changes only this kernel.
	# patch writes a new file rather than through the link.
	cp -al "$src" "$out/src"
	patch -d "$out/src" -p1 < "$NVMEOF_ROOT/scripts/debug-kernel.patch"
	src=$out/src
	make -C "$src" O="$out/build" x86_64_defconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out/build" \
		"$out/build/.config" "$NVMEOF_ROOT/scripts/debug-kernel.config"
	make -C "$src" O="$out/build" olddefconfig
	# every requested option must have survived olddefconfig
	missing=0
	while IFS= read -r line; do
		case $line in ''|'#'*) continue ;; esac
		opt=${line%%=*}; val=${line#*=}
		# from 6.6 on the microcode loader has no prompt: always built
		[ "$opt=$val" = CONFIG_MICROCODE=n ] && [ "$series" != 6.1 ] && continue
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$out/build/.config" && { echo "not disabled: $opt"; missing=1; }
		else
			grep -qx "$opt=$val" "$out/build/.config" || { echo "not set: $line"; missing=1; }
		fi
	done < "$NVMEOF_ROOT/scripts/debug-kernel.config"
	[ $missing -eq 0 ] || exit 1
	make -C "$src" O="$out/build" -j"$(nproc)" bzImage modules
	make -C "$src" O="$out/build" INSTALL_MOD_PATH="$out/modules" \
		INSTALL_MOD_STRIP=1 modules_install
) > "$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	die "debug kernel build failed; full log: $out/build.log"
}
cp "$out/build/arch/x86/boot/bzImage" "$out/bzImage"
log "debug kernel built in $(( $(date +%s) - start )) s"
touch "$out/.done"
printf '%s\n' "$out"
