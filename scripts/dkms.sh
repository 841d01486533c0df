#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh - register, build and install nvmeof-rdma with DKMS, or remove it.
#
# Usage: scripts/dkms.sh install [KVER] | remove
# install  copies the tracked sources to /usr/src/nvmeof-rdma-<version>,
#          stamps the version (there is no .git there) and runs dkms
#          add/build/install for KVER (default: the running kernel).
# remove   dkms remove --all and deletes the source copy: stock is back.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$NVMEOF_ROOT"

version=$(scripts/version.sh)
case ${1:-} in
install)
	kver=${2:-$(uname -r)}
	dst=/usr/src/nvmeof-rdma-$version
	# a half-done earlier attempt of this same version would make `dkms add` fail
	dkms remove -m nvmeof-rdma -v "$version" --all > /dev/null 2>&1 || true
	rm -rf "$dst"
	mkdir -p "$dst"
	git ls-files -z | xargs -0 cp --parents -t "$dst"
	printf '%s\n' "$version" > "$dst/VERSION"
	sed -i "s/@VERSION@/$version/" "$dst/dkms.conf"
	dkms add -m nvmeof-rdma -v "$version"
	dkms build -m nvmeof-rdma -v "$version" -k "$kver"
	dkms install -m nvmeof-rdma -v "$version" -k "$kver" --force
	;;
remove)
	for v in $(dkms status nvmeof-rdma 2>/dev/null | sed -n 's|^nvmeof-rdma/\([^,:]*\)[,:].*|\1|p' | sort -u); do
		dkms remove -m nvmeof-rdma -v "$v" --all
		rm -rf "/usr/src/nvmeof-rdma-$v"
	done
	;;
*)
	die "usage: $0 install [KVER] | remove"
	;;
esac
