#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kver.sh - print the kernel release to build for when KVER is not given:
# the running kernel if it has a build dir, else the newest installed Debian
# kernel with headers (our machines run a kernel without /lib/modules).
. "$(dirname "$0")/lib.sh"
k=$(default_kver)
[ -n "$k" ] || die "no kernel headers found: run scripts/install-deps.sh (installs linux-headers-amd64)"
printf '%s\n' "$k"
