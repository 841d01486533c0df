# SPDX-License-Identifier: GPL-2.0
# kdoc-coverage.awk - print every non-static function definition in a C file
# that has no kernel-doc comment (/** ... */) directly above it. kernel-doc
# itself only checks the comments that exist; this checks that they exist.
# Kernel style makes definitions easy to spot: they start in column 0 and
# their line does not end in ';'.

BEGIN                { last_kdoc_end = -1 }
FNR == 1             { last_kdoc_end = -1 }
/^\/\*\*/            { in_kdoc = 1; last_kdoc_end = 0 }
in_kdoc && /\*\//    { in_kdoc = 0; last_kdoc_end = FNR; next }
in_kdoc              { next }

/^[A-Za-z_][A-Za-z0-9_ \*]*[ \*][A-Za-z_][A-Za-z0-9_]*\(/ &&
!/^(static|typedef|struct [a-z_]+ \{|enum|union|extern|return|if|else|for|while|switch|do|module_|MODULE_|EXPORT_|DEFINE_|DECLARE_|late_initcall|__setup)/ &&
!/;[ \t]*$/ {
	if (last_kdoc_end != FNR - 1) {
		name = $0
		sub(/\(.*/, "", name)
		sub(/.*[ \*]/, "", name)
		printf "%s:%d: %s() has no kernel-doc\n", FILENAME, FNR, name
	}
}
