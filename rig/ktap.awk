# SPDX-License-Identifier: GPL-2.0
# ktap.awk - turn the KTAP that KUnit logs (kernel log, timestamps stripped)
# into one "PASS|FAIL|SKIP suite.case[.param]" line per leaf test, plus a
# FAIL for a suite whose plan ("1..N") was not fully reported (a crash or
# hang mid-suite), that reported "not ok" itself, or whose own result line
# never came (before the next suite began, or by the log's end).
# 6.1 prints "ok N name" (no dash); newer kernels print "ok N - name".

function leaf(line,    st, name) {
	st = (line ~ /^not ok/) ? "FAIL" : "PASS"
	name = line
	sub(/^(not )?ok [0-9]+ (- )?/, "", name)
	if (name ~ / # SKIP/) { st = "SKIP"; sub(/ # SKIP.*/, "", name) }
	return st " " name
}

/^    # Subtest: /        {
	# the suite before never printed its result: it would be lost here
	if (suite != "")
		print "FAIL " suite " (suite never finished: crash or hang?)"
	suite = substr($0, 16); planned = -1; seen = 0; next
}
/^    1\.\.[0-9]+$/       { planned = substr($0, 8) + 0; next }
/^        # Subtest: /    { parent = substr($0, 20); children = 0; child_fail = 0; next }
/^        (not )?ok [0-9]+/ {
	r = leaf(substr($0, 9))
	split(r, f, " ")
	print f[1] " " suite "." parent "[" substr(r, length(f[1]) + 2) "]"
	children++
	if (f[1] == "FAIL") child_fail++
	next
}
/^    (not )?ok [0-9]+/ {
	seen++
	r = leaf(substr($0, 5))
	split(r, f, " ")
	if (children > 0) {
		# a parameterised test: its params were reported one by one
		if (f[1] == "FAIL" && child_fail == 0)
			print "FAIL " suite "." substr(r, length(f[1]) + 2)
	} else {
		print f[1] " " suite "." substr(r, length(f[1]) + 2)
	}
	children = 0; child_fail = 0; parent = ""
	next
}
/^(not )?ok [0-9]+/ {
	if (planned >= 0 && seen != planned)
		print "FAIL " suite " (planned " planned " tests, " seen " reported)"
	else if ($0 ~ /^not ok/ && $0 !~ / # SKIP/)
		print "FAIL " suite " (suite reported not ok)"
	suite = ""
	next
}
END {
	if (suite != "")
		print "FAIL " suite " (suite never finished: crash or hang?)"
}
