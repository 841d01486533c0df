# SPDX-License-Identifier: GPL-2.0
# verdict.sh - judging a guest's console log on the host side, for the test
# runner, `make demo` and `make bench`. Source, do not execute (needs
# scripts/lib.sh for NVMEOF_ROOT).

# rig_verdict LOG - prints PASS only if the guest finished, its job passed
# and its kernel log is clean, else "FAIL <why>". Splat details go to stderr.
rig_verdict() {
	local log=$1 res splat splat_rc
	res=$(tr -d '\r' < "$log" | grep -m1 '^RIG-RESULT ' | cut -d' ' -f2-)
	splat=$("$NVMEOF_ROOT/rig/splat.sh" "$log")
	splat_rc=$?
	[ -n "$splat" ] && printf '%s\n' "$splat" | sed 's/^/    /' >&2
	if grep -q '^RIG-NOT-RUN' "$log"; then
		echo "FAIL not run: an earlier scenario of its guest did not finish"
	elif ! grep -q '^RIG-END' "$log"; then
		echo "FAIL guest did not finish$(grep -q RIG-TIMEOUT "$log" && echo ' (timeout)')"
	elif [ $splat_rc -ne 0 ]; then
		echo "FAIL kernel splat: $(printf '%s\n' "$splat" | grep '^splat' | head -1)"
	elif [ "${res%% *}" = PASS ]; then
		echo PASS
	else
		echo "FAIL ${res#FAIL }"
	fi
}
