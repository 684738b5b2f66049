#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the man-pages/ series:
#   apply   the patches apply with git am to the tag base of build/man-pages
#   lint    mandoc -Tlint and groff -ww report nothing new on the patched pages
#   names   every test named in man-pages/README.md exists in the suite source
#   results every named test passed in build/results/stock.tsv
# One line per check; exit status 1 if any failed.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
MAN=$TOP/build/man-pages
WORK=$TOP/build/man-check
README=$TOP/man-pages/README.md
RESULTS=$TOP/build/results/stock.tsv
PAGES="man2/prctl.2 man7/capabilities.7"

failed=0
pass() { printf 'PASS  %-8s %s\n' "$1" "$2"; }
fail() { printf 'FAIL  %-8s %s\n' "$1" "$2"; failed=1; }
detail() { sed 's/^/      /' "$@"; }

[ -d "$MAN/.git" ] || { echo "man-check.sh: build/man-pages is missing; run make man-tree first" >&2; exit 1; }
for tool in mandoc groff; do
	command -v $tool >/dev/null || { echo "man-check.sh: $tool not found; apt-get install $tool" >&2; exit 1; }
done
rm -rf "$WORK"
mkdir -p "$WORK"

# 1. apply, in a scratch clone
patches=$(ls "$TOP"/man-pages/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true)
[ -n "$patches" ] || { echo "man-check.sh: man-pages/ holds no patches; run make man-series" >&2; exit 1; }
git clone -q --no-checkout "$MAN" "$WORK/tree"
git -C "$WORK/tree" checkout -q --detach base
if git -C "$WORK/tree" -c user.name=check -c user.email=check@localhost \
		am -q $patches >"$WORK/am.log" 2>&1; then
	pass apply "$(echo "$patches" | wc -l) patches apply to base ($(paste -sd, "$MAN/VERSIONS"))"
else
	fail apply "git am failed:"
	detail "$WORK/am.log"
	git -C "$WORK/tree" am --abort >/dev/null 2>&1 || true
fi

# 2. lint: warnings of the patched pages that the base pages do not have.
# Line and column numbers are dropped, so moved text compares equal.
lint() {	# lint DIR: print the normalised warnings for the pages in DIR
	(cd "$1" && for p in $PAGES; do
		mandoc -Tlint "$p" 2>&1 || true
		groff -man -ww -z "$p" 2>&1 || true
	done) | sed -E 's/^([^:]+: [^:]+):[0-9]+(:[0-9]+)?:/\1:/' | sort
}
git -C "$WORK/tree" worktree add -q --detach "$WORK/base" base
lint "$WORK/base" >"$WORK/lint.base"
lint "$WORK/tree" >"$WORK/lint.patched"
comm -13 "$WORK/lint.base" "$WORK/lint.patched" >"$WORK/lint.new"
if [ -s "$WORK/lint.new" ]; then
	fail lint "$(wc -l <"$WORK/lint.new") new warnings (mandoc -Tlint, groff -man -ww):"
	detail "$WORK/lint.new"
else
	pass lint "no new mandoc -Tlint or groff -ww warnings ($(wc -l <"$WORK/lint.base") on the base pages as well)"
fi

# 3. names: the suite is the kernel tree's capabilities selftests if they
# use the harness there, else the copy in selftests/.
suite=$TOP/build/src/ambient/tools/testing/selftests/capabilities
grep -qs kselftest_harness.h "$suite"/*.c "$suite"/*.h || suite=$TOP/selftests
# Test names as the harness prints them: global.NAME for TEST(NAME),
# FIXTURE.NAME for TEST_F, FIXTURE.VARIANT.NAME for fixtures with variants.
# A variant may also be added through a helper macro whose body has
# FIXTURE_VARIANT_ADD(FIXTURE, <first macro argument>).
suite_names() {
	cat "$suite"/*.c | tr -d ' \t' | awk -F'[(,)]' '
		/^#define[A-Za-z_0-9]+\(/ { m = substr($1, 8); inmacro = 1 }
		inmacro && /FIXTURE_VARIANT_ADD\(/ {
			split(substr($0, index($0, "FIXTURE_VARIANT_ADD(")), a, "[(,)]")
			helper[m] = a[2]
		}
		inmacro && !/\\$/ { inmacro = 0; next }
		inmacro { next }
		/^FIXTURE_VARIANT_ADD\(/ { var[$2] = var[$2] " " $3; next }
		/^TEST(_SIGNAL)?\(/ { print "global." $2; next }
		/^TEST_F(_SIGNAL|_TIMEOUT)?\(/ { tf[$2] = tf[$2] " " $3; next }
		($1 in helper) { var[helper[$1]] = var[helper[$1]] " " $2 }
		END {
			for (f in tf) {
				n = split(tf[f], t, " ")
				m = split(var[f], v, " ")
				for (i = 1; i <= n; i++)
					if (m == 0) print f "." t[i]
					else for (j = 1; j <= m; j++) print f "." v[j] "." t[i]
			}
		}' | sort -u
}
# Rows of the README table: | claim | page and section | `test`, ... |
table() { awk -F'|' 'NF >= 5 && $4 !~ /^ *(-+|test name) *$/' "$README"; }
named=$(table | awk -F'|' '{ print $4 }' | { grep -oE '`[^`]+`' || true; } | tr -d '`' | sort -u)
untested=$(table | awk -F'|' '$4 !~ /`/ { print $2 }' | sed 's/^ *//; s/ *$//')
suite_names >"$WORK/suite-names"
missing=$(printf '%s\n' "$named" | comm -23 - "$WORK/suite-names")
if [ ! -s "$WORK/suite-names" ]; then
	fail names "no harness tests found in ${suite#"$TOP"/}"
elif [ -n "$missing" ] || [ -n "$untested" ]; then
	fail names "README names tests that ${suite#"$TOP"/} lacks, or claims without a test:"
	[ -z "$missing" ] || printf '%s\n' "$missing" | detail
	[ -z "$untested" ] || printf '%s\n' "$untested" | sed 's/^/no test: /' | detail
else
	pass names "all $(echo "$named" | wc -l) tests named in the README exist in ${suite#"$TOP"/}"
fi

# 4. results
if [ ! -f "$RESULTS" ]; then
	fail results "build/results/stock.tsv not found: run make kselftest KERNEL=stock first"
else
	notpass=$(printf '%s\n' "$named" | while read -r t; do
		r=$(awk -F'\t' -v t="$t" '$3 == t { print $1 }' "$RESULTS" | sort -u | paste -sd/)
		[ "$r" = PASS ] || printf '%s: %s\n' "$t" "${r:-not run}"
	done)
	if [ -n "$notpass" ]; then
		fail results "named tests that did not pass on stock:"
		printf '%s\n' "$notpass" | detail
	else
		pass results "all $(echo "$named" | wc -l) named tests PASS in build/results/stock.tsv"
	fi
fi

exit $failed
