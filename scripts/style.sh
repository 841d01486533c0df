#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# style.sh - the source-level gates, one PASS/FAIL line each:
#   checkpatch --strict    every C file and header we own, zero findings
#   kernel-doc             zero warnings (every non-static function documented)
#   no kernel headers      no committed copy of a kernel header
# The tools come from the kernel source tree (Debian's headers packages do not
# ship them). Exit status 1 if any gate fails.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$NVMEOF_ROOT"

src=$(source_tree 6.1) || exit 1
status=0
gate() {	# gate NAME OUTPUT
	if [ -z "$2" ]; then
		echo "PASS $1"
	else
		echo "FAIL $1"
		printf '%s\n' "$2" | head -40 | sed 's/^/    /'
		status=1
	fi
}

mapfile -t files < <(git ls-files -co --exclude-standard -- \
	'host/*.[ch]' 'target/*.[ch]' 'common/*.[ch]' 'kunit/*.[ch]' 'compat/*.h' 'compat/probes/*.c' \
	'rig/rxe-hw/*.[ch]')
# no file is no check (outside a git work tree git ls-files finds none)
[ ${#files[@]} -gt 0 ] || { echo "FAIL no C file found to check (not a git work tree?)"; exit 1; }

out=$("$src/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
	--ignore FILE_PATH_CHANGES -f "${files[@]}" 2>&1)
gate "checkpatch --strict (${#files[@]} files)" "$out"

out=$("$src/scripts/kernel-doc" -none "${files[@]}" 2>&1)
out+=$(awk -f scripts/kdoc-coverage.awk $(printf '%s\n' "${files[@]}" | grep '\.c$' | grep -v '^compat/probes/'))
gate "kernel-doc (${#files[@]} files)" "$out"

# The private nvme headers come from linux-source at build time, never from
# the repository; nor does any other kernel header.
out=$(git ls-files | grep -E '(^|/)(nvme|fabrics|nvmet)\.h$' ;
      git grep -lE '^#define (_NVME_H|_NVMET_H|_NVME_FABRICS_H)\b' -- '*.h' 2>/dev/null)
gate "no committed kernel headers" "$out"

exit $status
