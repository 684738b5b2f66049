#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KUnit cases as a mutation test: plant each mutant of tests/mutants/
# that changes a function the cases call, directly or through another, in
# the 6.12 ambient branch, and run the cases alone.  They must fail on
# every one: a row that expects what the rule's formula gives cannot pass
# on a kernel that breaks the rule.
#
#   kunit-mutants.sh [NAME...]   (default: every mutant in such a function)
#                                each built with kunit.py (scripts/kunit.sh mutant)
#   kunit-mutants.sh --check     those of make check's set (MUTANTS_CHECK_SET
#                                in lib.sh) that are in reach, with no build
#                                of their own: each mutant's bzImage that
#                                scripts/mutants.sh --check built (it must
#                                run first), booted in KUnit mode
#                                (scripts/kunit.sh --boot)
#
# A mutant elsewhere (execve, fork, /proc, audit, keyrings, user namespaces,
# the bounding set) is listed as out of reach and not built: the
# kselftests kill it.
# A mutant is killed when a row fails, or when fewer rows run than on the
# unmutated tree (the guest crashed or hung).
#
# Prints one line per mutant and a summary with the time; writes
# build/results/kunit-mutants.tsv (--check: kunit-mutants-check.tsv;
# mutant, function, killed|survived, passed/ran) and
# build/results/kunit-mutants-in-reach.txt (every mutant of tests/mutants/
# in a function the cases call, whichever are run), and for each mutant
# scripts/kunit.sh's output to build/logs/mutants/kunit-NAME.log and
# kunit.py's to kunit-NAME.kunit.log.  Exits non-zero if one survives, or
# does not apply or build.
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

lock obj-mutant
mkdir -p "$BUILD/results" "$LOGS/mutants"
[ "${1:-}" != --check ] || summary=$BUILD/results/kunit-mutants-check.tsv
rm -f "$summary" "$reach"	# nothing of an earlier run is read as this one's
start=$SECONDS
mutant_worktree

# function_of: for the mutant applied in the worktree, the function of
# security/commoncap.c around the first line it changes (the patches'
# line numbers may be off by some lines; the worktree's are not), or the
# file it changes when that is another.
function_of() {
	local file line
	file=$(git -C "$wt" diff --name-only | head -n 1)
	[ "$file" = security/commoncap.c ] || { echo "$file"; return 0; }
	line=$(git -C "$wt" diff -U0 -- "$file" |
		sed -n 's/^@@ -[0-9,]* +\([0-9]*\).*/\1/p' | sed -n 1p)
	[ -n "$line" ] || die "the mutant changes no line of $file" "check the patch"
	fn=$(head -n "$line" "$wt/$file" |
		{ grep -E '^[a-z].*[ *]([A-Za-z0-9_]+)\(' || true; } | tail -n 1 |
		sed -E 's/^[^(]*[ *]([A-Za-z0-9_]+)\(.*/\1/')
	[ -n "$fn" ] || die "no function of $file encloses line $line that a mutant changes" \
		"check the mutant's patch"
	echo "$fn"
}
in_reach() { grep -qw -- "$1" <<<"$REACHED"; }

names=()
check=
if [ "${1:-}" = --check ]; then
	check=1
	set --	# the set's mutants in reach, once the reach is known
fi
if [ $# -eq 0 ]; then
	for p in "$MUTDIR"/*.patch; do names+=("$(basename "$p" .patch)"); done
else
	for n in "$@"; do
		[ -f "$MUTDIR/$n.patch" ] || die "no mutant '$n'" "see tests/mutants/"
		names+=("$n")
	done
fi

# Which mutants are in reach (applied in turn, nothing built), and the
# function each one changes.
declare -A fn_of
: >"$reach"
for p in "$MUTDIR"/*.patch; do
	reset_tree
	n=$(basename "$p" .patch)
	git -C "$wt" apply "$p" 2>"$LOGS/mutants/$n-apply.log" ||
		die_log "$LOGS/mutants/$n-apply.log" "mutant $n does not apply to the ambient branch" \
			"rebase tests/mutants/$n.patch (see tests/mutants/README.md)"
	fn_of[$n]=$(function_of)
	! in_reach "${fn_of[$n]}" || echo "$n" >>"$reach"
done
reset_tree
echo "in reach of the KUnit cases: $(wc -l <"$reach") of $(ls "$MUTDIR"/*.patch | wc -l) mutants"
if [ -n "$check" ]; then
	names=()
	for n in $MUTANTS_CHECK_SET; do
		! grep -qx -- "$n" "$reach" || names+=("$n")
	done
	[ ${#names[@]} -gt 0 ] ||
		die "none of make check's mutants (MUTANTS_CHECK_SET in lib.sh) is in the KUnit cases' reach" \
		    "add one that changes a function they call to the set"
	echo "make check's set: ${#names[@]} in reach (${names[*]})"
fi

# run_cases NAME LOG: the cases on the mutant NAME (or the unmutated tree,
# "baseline"): --check, its image; otherwise as the worktree holds it.
# Their result in $res.
export KUNIT_MUTANT_CALLER=1	# kunit.sh mutant: this script holds obj-mutant
run_cases() {
	local name=$1 out=$2 rc=0
	if [ -n "$check" ]; then
		res=$BUILD/kunit/boot-mutant-$name.result
		# nothing of an earlier run counts: booted() reads the new log
		rm -f "$res" "$LOGS/vm-kunit-mutant-$name.log"
		[ -f "$BUILD/mutant-images/$name.bzImage" ] ||
			{ echo "no build/mutant-images/$name.bzImage: scripts/mutants.sh --check did not build it" >"$out"; return 1; }
		KUNIT_LOG=$LOGS/mutants/kunit-$name.kunit.log "$TOP/scripts/kunit.sh" \
			--boot "mutant-$name" "$BUILD/mutant-images/$name.bzImage" >"$out" 2>&1 || rc=$?
		refuse_unproven "kunit-mutant-$name"
	else
		res=$BUILD/kunit/mutant.result
		rm -f "$res"
		KUNIT_LOG=$LOGS/mutants/kunit-$name.kunit.log "$TOP/scripts/kunit.sh" mutant >"$out" 2>&1 || rc=$?
		# a wrong kernel's missing results are no kill
		[ "$(cat "$BUILD/kunit/mutant.status" 2>/dev/null)" != wrong-kernel ] ||
			die "kunit.py booted another build's kernel for $name: $(grep -m1 'kunit.py.s image' "$out")" \
			    "no KUnit verdict counts; read ${out#"$TOP"/}"
	fi
	return $rc
}
# booted NAME: the guest started (this run) and ran the cases, or crashed
# while they ran, as opposed to a mutant that never built.
booted() {
	if [ -n "$check" ]; then
		[ -f "$LOGS/vm-kunit-mutant-$1.log" ]
	else
		grep -q 'Running tests with' "$LOGS/mutants/kunit-$1.kunit.log" 2>/dev/null
	fi
}

# The unmutated cases must pass first, on this very tree.
run_cases baseline "$LOGS/mutants/kunit-unmutated.log" ||
	die_log "$LOGS/mutants/kunit-unmutated.log" "the KUnit cases fail on the unmutated ambient branch" \
		"make kunit KERNEL=ambient, and fix that first${check:+ (--check boots the images scripts/mutants.sh --check built: run it first)}"
read -r ran0 _ <"$res"
echo "unmutated: $ran0 of $ran0 KUnit results pass"

: >"$summary"
killed=0 survived=0 out=0 broken=0 step=build
[ -z "$check" ] || step="build in mutants.sh --check"
for n in "${names[@]}"; do
	fn=${fn_of[$n]}
	if ! in_reach "$fn"; then
		printf '%-45s %-28s out of reach\n' "$n" "$fn"
		out=$((out + 1))
		continue
	fi
	# (--check boots the image mutants.sh built; the worktree is not used)
	[ -n "$check" ] || { reset_tree && git -C "$wt" apply "$MUTDIR/$n.patch"; }	# it applied in the scan above
	log=$LOGS/mutants/kunit-$n.log
	run_cases "$n" "$log" || true
	if [ ! -f "$res" ]; then
		if booted "$n"; then
			# built and booted, but no result: the guest crashed or hung
			ran=0 pass=0
		else
			printf '%-45s %-28s NO RESULT (did not %s; %s)\n' "$n" "$fn" "$step" "${log#"$TOP"/}"
			broken=$((broken + 1))
			continue
		fi
	else
		read -r ran pass _ <"$res"
	fi
	if [ "$pass" -lt "$ran0" ]; then
		killed=$((killed + 1))
		verdict=killed
		if [ "$ran" -lt "$ran0" ]; then
			why="only $ran of $ran0 ran: the guest crashed or hung"
		else
			why="fails: $(sed -n 's/^FAIL  *//p' "$log" | sed -n 1,2p | paste -sd';')"
		fi
	else
		survived=$((survived + 1))
		verdict=SURVIVED
		why=
	fi
	printf '%-45s %-28s %-8s %3d of %d pass%s\n' "$n" "$fn" "$verdict" "$pass" "$ran0" \
		"${why:+ ($why)}"
	printf '%s\t%s\t%s\t%d/%d\n' "$n" "$fn" "$verdict" "$pass" "$ran0" >>"$summary"
done
echo "kunit-mutants: $killed killed, $survived survived, $broken did not $step, $out out of reach ($((SECONDS - start)) s)"
[ "$survived" -eq 0 ] ||
	die "$survived mutant(s) survived the KUnit cases (table above)" \
	    "a survivor in a function the cases call names a rule no row pins: add a row"
[ "$broken" -eq 0 ] ||
	die "$broken mutant(s) did not $step (table above)" \
	    "read build/logs/mutants/kunit-NAME.log; rebase the mutant or fix the build${check:+, and run scripts/mutants.sh --check again}"
[ $killed -gt 0 ] || die "no mutant was run against the KUnit cases" "name mutants in reach (build/results/kunit-mutants-in-reach.txt)"
