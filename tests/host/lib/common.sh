# SPDX-License-Identifier: GPL-2.0
# common.sh - what the build-machine tests of the rig's judges share: the
# tree's root, scripts/lib.sh, a scratch directory removed at exit ($tmp),
# and case_, which prints one CASE line. Source it first (bash); it lives
# apart from tests/host/*.sh, each of which tests/run runs as a test.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
. "$root/scripts/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# case_ NAME OK [GOT] - one CASE line: PASS if OK is 0, else FAIL and GOT
case_() {
	if [ "$2" = 0 ]; then echo "CASE PASS $1"; else echo "CASE FAIL $1 -- got: $3"; fi
}
