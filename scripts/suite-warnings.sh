#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compile the capabilities selftests of each tree given (default: the
# ambient and upstream flavours) with gcc and with clang at -Wall -Wextra
# and count the warnings located in the suite's own files; the harness
# header's own warnings are not the suite's.  Exits 1 if any is found, or
# if gcc is missing.  clang is optional: without it, one line says so.
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || set -- "$SRC/ambient" "$SRC/upstream"
out=$BUILD/suite-warnings
mkdir -p "$out"
command -v gcc >/dev/null || die "gcc is not installed" "run make deps"
compilers=gcc
if command -v clang >/dev/null; then
	compilers="gcc clang"
else
	echo "clang: not installed, not checked (apt-get install clang to check it too)"
fi

total=0
for tree in "$@"; do
	dir=$tree/tools/testing/selftests/capabilities
	[ -f "$dir/ambient_test.c" ] ||
		die "no ambient selftests in ${dir#"$TOP"/}" "run make tree"
	for cc in $compilers; do
		n=0
		for c in "$dir"/ambient_test.c "$dir"/ambient_exec_test.c "$dir"/cap_sets_test.c \
			 "$dir"/cap_dump.c; do
			log=$out/$(basename "$tree")-$cc-$(basename "$c" .c).log
			(cd "$dir" && "$cc" -std=gnu99 -Wall -Wextra -O2 -c -o /dev/null \
				"$(basename "$c")") >"$log" 2>&1 ||
				die_log "$log" "$cc cannot compile ${c#"$TOP"/}"
			# Only warnings whose location is one of the suite's files.
			ours=$({ grep -E '^(ambient_test\.c|ambient_exec_test\.c|cap_sets_test\.c|cap_dump\.c|common\.h):[0-9]+:[0-9]+: warning' "$log" || true; })
			[ -z "$ours" ] || { printf '%s\n' "$ours" | sed 's/^/  /'; }
			n=$((n + $(printf '%s' "$ours" | grep -c . || true)))
		done
		echo "$(basename "$tree"), $cc -Wall -Wextra: $n warnings in the suite's files"
		total=$((total + n))
	done
done
[ "$total" -eq 0 ] || die "$total warnings in the suite (above)" "fix them in the ambient branch, then make series"
