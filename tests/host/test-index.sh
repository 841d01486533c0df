#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-index: Documentation/testing.md's index of the tests is the one their
# headers make (scripts/test-index.sh), but for the guest times of the run
# it was written after: a test added, moved to another tier or given another
# "# covers:" line without the index following fails.
# covers: testing.md's index of the tests follows their headers
# rig: once fast=once
#
# Usage: tests/host/test-index.sh    prints RESULT PASS|FAIL <why>
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
want=$("$root/scripts/test-index.sh" --no-times)
# the index in testing.md, its last column (the guest times) left out
have=$(sed -n '/^<!-- index: scripts\/test-index.sh -->$/,/^<!-- end of index -->$/p' \
	"$root/Documentation/testing.md" | grep '^|' | sed 's/[^|]*|$//')
if [ -z "$have" ]; then
	echo "RESULT FAIL no index in Documentation/testing.md"
elif [ "$have" = "$want" ]; then
	echo "RESULT PASS"
else
	echo "RESULT FAIL testing.md's index differs from scripts/test-index.sh's (run it and paste): $(diff <(echo "$have") <(echo "$want") | grep '^[<>]' | head -4 | tr '\n' ' ')"
fi
