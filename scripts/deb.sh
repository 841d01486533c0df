#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh - build the Debian package of nvmeof-rdma: the module sources for
# DKMS, installed the Debian way (apt-get install ./FILE.deb).
#
# Usage: scripts/deb.sh [OUTDIR]    prints the path of the .deb it wrote
#
# nvmeof-rdma-dkms_<version>_all.deb holds the tracked sources under
# /usr/src/nvmeof-rdma-<version>/ (dkms.conf stamped with the version), the
# nvmeof-rdma tool in /usr/sbin, the README and Documentation/ under
# /usr/share/doc/nvmeof-rdma-dkms/, and
# maintainer scripts: postinst registers the sources with DKMS and builds
# and installs the modules for every installed kernel that has headers (DKMS
# skips the kernels dkms.conf does not build for), prerm removes them from
# every kernel, which brings the in-tree modules back. The package version
# is the module version with its git suffix made a Debian one (0.1.0-gHASH
# -> 0.1.0+gHASH), so an upgrade from one commit's package to another's is
# seen as one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$NVMEOF_ROOT"

out=${1:-$NVMEOF_ROOT/build/deb}
version=$(scripts/version.sh)
debver=${version/-/+}
debver=${debver//-/.}
pkg=nvmeof-rdma-dkms
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"	# the package's root directory

src=$stage/usr/src/nvmeof-rdma-$version
mkdir -p "$src" "$stage/DEBIAN" "$stage/usr/share/doc/$pkg"
git ls-files -z | xargs -0 cp --parents -t "$src"
printf '%s\n' "$version" > "$src/VERSION"
sed -i "s/@VERSION@/$version/" "$src/dkms.conf"
install -D -m 755 tools/nvmeof-rdma "$stage/usr/sbin/nvmeof-rdma"
cp README.md "$stage/usr/share/doc/$pkg/"
cp -r Documentation "$stage/usr/share/doc/$pkg/"
cat > "$stage/usr/share/doc/$pkg/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: nvmeof-rdma
Files: *
License: GPL-2.0
 On Debian systems the full text of the GNU General Public License
 version 2 is in /usr/share/common-licenses/GPL-2.
EOF

cat > "$stage/DEBIAN/control" <<EOF
Package: $pkg
Version: $debver
Architecture: all
Section: kernel
Priority: optional
Maintainer: nvmeof-rdma developers <nvmeof-rdma@localhost>
Depends: dkms (>= 3.0), linux-headers-amd64 | linux-headers, linux-source-6.1 | linux-source-6.12 | linux-source-7.2 | linux-source-7.3, dwarves, xz-utils
Installed-Size: $(du -sk "$stage/usr" | cut -f1)
Description: NVMe over Fabrics RDMA host and target transports (DKMS)
 Replacements for the in-tree nvme-rdma (host) and nvmet-rdma (target)
 modules, with the same names and the same NVMe/RDMA wire protocol, built
 by DKMS for each installed kernel and installed under updates/, which
 modprobe prefers. Removing the package brings the in-tree modules back.
 The nvmeof-rdma tool shows their statistics (nvmeof-rdma stat).
EOF

cat > "$stage/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
# register the sources and build for every kernel with headers; a kernel
# dkms.conf does not build for (BUILD_EXCLUSIVE_*) is skipped by DKMS
if [ "\$1" = configure ]; then
	dkms add -m nvmeof-rdma -v $version > /dev/null 2>&1 || true
	for d in /lib/modules/*/build; do
		[ -e "\$d/Makefile" ] || continue
		k=\${d%/build}; k=\${k##*/}
		dkms install -m nvmeof-rdma -v $version -k "\$k" ||
			echo "nvmeof-rdma: not built for \$k (see 'dkms status' and /var/lib/dkms/nvmeof-rdma/$version/build/make.log)" >&2
	done
fi
exit 0
EOF
cat > "$stage/DEBIAN/prerm" <<EOF
#!/bin/sh
set -e
# out of every kernel: the in-tree modules are modprobe's choice again;
# what DKMS says goes to the terminal (a removal that fails must be seen)
if dkms status -m nvmeof-rdma -v $version | grep -q .; then
	dkms remove -m nvmeof-rdma -v $version --all ||
		echo "nvmeof-rdma: 'dkms remove -m nvmeof-rdma -v $version --all' failed: our modules may still be modprobe's choice" >&2
fi
exit 0
EOF
chmod 755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm"

mkdir -p "$out"
deb=$out/${pkg}_${debver}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" > /dev/null
printf '%s\n' "$deb"
