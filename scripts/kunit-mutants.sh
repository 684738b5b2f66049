#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KUnit cases as a mutation test: plant each mutant of tests/mutants/
# that changes a function the cases call, directly or through another, in
# the 6.12 ambient branch, and run the cases alone (scripts/kunit.sh
# mutant).  They must fail on every one: a row that expects what the
# rule's formula gives cannot pass on a kernel that breaks the rule.
#
#   kunit-mutants.sh [NAME...]   (default: every mutant in such a function)
#   kunit-mutants.sh --check     the ones of them that make check plants
#
# A mutant elsewhere (execve, /proc, audit, user namespaces) is listed as
# out of reach and not built: the kselftests are what kill it.
#
# Prints one line per mutant and a summary; writes
# build/results/kunit-mutants.tsv (mutant, function, killed|survived,
# passed/ran) and build/results/kunit-mutants-in-reach.txt (every mutant
# of tests/mutants/ in a function the cases call, whichever are run).
# Exits non-zero if one survives, or does not apply or build.
. "$(dirname "$0")/lib.sh"

MUTDIR=$TOP/tests/mutants
wt=$SRC/mutant
summary=$BUILD/results/kunit-mutants.tsv
reach=$BUILD/results/kunit-mutants-in-reach.txt

# The functions of security/commoncap.c that the KUnit cases reach:
# test_setid_fixup calls cap_task_fix_setuid() (which calls
# cap_emulate_setxuid()) and cap_emulate_setxuid(); test_capset_ambient
# cap_capset() (cap_inh_is_capped()); test_prctl_ambient cap_task_prctl()
# with PR_CAP_AMBIENT (cap_prctl_ambient()).
REACHED="cap_task_fix_setuid cap_emulate_setxuid cap_capset cap_inh_is_capped
	cap_task_prctl cap_prctl_ambient"
# What make check plants: those of mutants.sh's CHECK_SET that are in reach.
CHECK_SET="raise-ignores-inheritable capset-keeps-ambient
	setuid-from-root-keeps-ambient no-setuid-fixup-ignored"

lock obj-mutant
mkdir -p "$BUILD/results" "$LOGS/mutants"
git -C "$SRC/ambient" rev-parse -q --verify ambient >/dev/null ||
	die "no ambient branch" "run make tree"
add_worktree "$wt" ambient
reset_tree() {
	git -C "$wt" reset -q --hard ambient && git -C "$wt" clean -q -fd
}
trap 'reset_tree || loud "could not reset build/src/mutant to the ambient branch"' EXIT
reset_tree

# function_of: for the mutant applied in the worktree, the function of
# security/commoncap.c around the first line it changes (the patches'
# line numbers may be off by some lines; the worktree's are not), or the
# file it changes when that is another.
function_of() {
	local file line
	file=$(git -C "$wt" diff --name-only | head -n 1)
	[ "$file" = security/commoncap.c ] || { echo "$file"; return 0; }
	line=$(git -C "$wt" diff -U0 -- "$file" |
		sed -n 's/^@@ -[0-9,]* +\([0-9]*\).*/\1/p' | head -n 1)
	[ -n "$line" ] || die "the mutant changes no line of $file" "check the patch"
	head -n "$line" "$wt/$file" |
		grep -E '^[a-z].*[ *]([A-Za-z0-9_]+)\(' | tail -n 1 |
		sed -E 's/^[^(]*[ *]([A-Za-z0-9_]+)\(.*/\1/'
}
in_reach() { grep -qw -- "$1" <<<"$REACHED"; }

names=()
if [ "${1:-}" = --check ]; then
	# shellcheck disable=SC2086 # a list of names
	set -- $CHECK_SET
fi
if [ $# -eq 0 ]; then
	for p in "$MUTDIR"/*.patch; do names+=("$(basename "$p" .patch)"); done
else
	for n in "$@"; do
		[ -f "$MUTDIR/$n.patch" ] || die "no mutant '$n'" "see tests/mutants/"
		names+=("$n")
	done
fi

# Which mutants are in reach (applied in turn, nothing built).
: >"$reach"
for p in "$MUTDIR"/*.patch; do
	reset_tree
	git -C "$wt" apply "$p" 2>/dev/null || continue	# reported below if run
	fn=$(function_of)
	! in_reach "$fn" || basename "$p" .patch >>"$reach"
done
reset_tree
echo "in reach of the KUnit cases: $(wc -l <"$reach") of $(ls "$MUTDIR"/*.patch | wc -l) mutants"

# The unmutated cases must pass first, on this very tree.
"$TOP/scripts/kunit.sh" mutant >"$LOGS/mutants/kunit-unmutated.log" 2>&1 ||
	die_log "$LOGS/mutants/kunit-unmutated.log" "the KUnit cases fail on the unmutated ambient branch" \
		"make kunit KERNEL=ambient, and fix that first"
read -r ran _ <"$BUILD/kunit/mutant.result"
echo "unmutated: $ran of $ran KUnit results pass"

: >"$summary"
killed=0 survived=0 out=0 broken=0
for n in "${names[@]}"; do
	reset_tree
	if ! git -C "$wt" apply "$MUTDIR/$n.patch" 2>"$LOGS/mutants/$n-apply.log"; then
		printf '%-45s DOES NOT APPLY (%s)\n' "$n" "build/logs/mutants/$n-apply.log"
		broken=$((broken + 1))
		continue
	fi
	fn=$(function_of)
	if ! in_reach "$fn"; then
		printf '%-45s %-28s out of reach\n' "$n" "$fn"
		out=$((out + 1))
		continue
	fi
	log=$LOGS/mutants/kunit-$n.log
	rm -f "$BUILD/kunit/mutant.result"
	"$TOP/scripts/kunit.sh" mutant >"$log" 2>&1 || true
	if [ ! -f "$BUILD/kunit/mutant.result" ]; then
		printf '%-45s %-28s NO RESULT (build or boot; %s)\n' "$n" "$fn" "${log#"$TOP"/}"
		broken=$((broken + 1))
		continue
	fi
	read -r ran pass fail _ crash <"$BUILD/kunit/mutant.result"
	if [ "$pass" -lt "$ran" ]; then
		killed=$((killed + 1))
		verdict=killed
		why=$(sed -n 's/^FAIL  *//p' "$log" | head -n 2 | paste -sd';' || true)
	else
		survived=$((survived + 1))
		verdict=SURVIVED
		why=
	fi
	printf '%-45s %-28s %-8s %3d of %d pass%s\n' "$n" "$fn" "$verdict" "$pass" "$ran" \
		"${why:+ (fails: $why)}"
	printf '%s\t%s\t%s\t%d/%d\n' "$n" "$fn" "$verdict" "$pass" "$ran" >>"$summary"
done
echo "kunit-mutants: $killed killed, $survived survived, $broken did not apply or build, $out out of reach"
[ $((survived + broken)) -eq 0 ] && [ $killed -gt 0 ]
