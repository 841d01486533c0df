#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# version.sh - the MODULE_VERSION string: VERSION plus `git describe` when
# built from a git checkout (a DKMS source tree has no .git: VERSION alone).
root=$(cd "$(dirname "$0")/.." && pwd)
v=$(cat "$root/VERSION")
if g=$(git -C "$root" describe --always --dirty --abbrev=12 2>/dev/null); then
	v="$v-g${g#g}"
fi
printf '%s\n' "$v"
