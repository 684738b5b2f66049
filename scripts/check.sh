#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Everything the package verifies. One line per check, then the phase
# times, then exactly one line "check: N passed, N failed".
#
#   check.sh          make check: every flavour's build and suite, every
#                     check of the patches, the differential tester, a
#                     third of the mutants, the KUnit cases on 6.12 and
#                     7.2 as they run at boot of the flavour kernels, the
#                     alternative design, the set-up logic
#   check.sh --full   make check-full: also the debug kernel's suite, the
#                     tinyconfig and allnoconfig kernels (make check
#                     compiles the touched directories under allnoconfig)
#                     and the KUnit cases through kunit.py on ambient,
#                     stock and upstream (each a full build of its own)
. "$(dirname "$0")/lib.sh"

tier=${1:-}
case $tier in
"" | --full) ;;
*) die "unknown option '$tier'" "use check.sh or check.sh --full" ;;
esac

CHECKLOGS=$LOGS/check
rm -rf "$CHECKLOGS"
mkdir -p "$CHECKLOGS"
: >"$LOGS/phases.tsv"
RESULTS=$CHECKLOGS/results.tsv	# PASS|FAIL <tab> NAME, a line per check
: >"$RESULTS"

# check NAME CMD...: run CMD (output to its own log), report and record its
# result. The checks run in two lanes at once (lanes below), so results go
# to a file, not to variables.
check() {
	local name=$1 log=$CHECKLOGS/$1.log
	shift
	if phase "check $name" "$@" >"$log" 2>&1; then
		printf 'PASS\t%s\n' "$name" >>"$RESULTS"
		printf 'PASS %s\n' "$name"
	else
		printf 'FAIL\t%s\n' "$name" >>"$RESULTS"
		printf 'FAIL %s (log: %s)\n' "$name" "${log#"$TOP"/}"
	fi
}
passed() { grep -qxF "PASS	$1" "$RESULTS"; }

# lanes A B: run the functions A and B at once and wait for both. Each
# lane runs its checks in order, then takes queued ones (queue, below)
# until none is left. The machine has two CPUs: a kernel build uses both
# but for its serial steps (configuration, links), a Sphinx, b4,
# checkpatch or TCG guest run uses one, so a lane of builds beside a
# lane of single-threaded checks keeps both busy. Two lanes never share
# a tree or an object directory that one of them changes. Each lane's
# time from start to end is a phase of its own ("lane NAME").
lanes() {
	local a b f
	phase "lane $1" lane "$1" & a=$!
	phase "lane $2" lane "$2" & b=$!
	wait "$a" || true
	wait "$b" || true
	# a queued function that no lane ran is a failure, not a silence
	while read -r f; do
		printf 'FAIL\tqueued %s (not run)\n' "$f" >>"$RESULTS"
		printf 'FAIL queued %s: no lane ran it\n' "$f"
	done <"$QUEUE"
	: >"$QUEUE"
}
lane() {
	local f
	"$1" || true
	while f=$(take) && [ -n "$f" ]; do
		echo "lane $1 takes $f"
		"$f" || true
	done
}

# queue F...: the functions (each a check or two) that the lane that
# ends its own checks first takes, in this order. Which lane is longer
# depends on the machine and the hour: one morning a kernel build took
# 2.25 times as long as that afternoon, the differential tester 1.3
# times; the queue keeps the two lanes' ends close on both.
QUEUE=$CHECKLOGS/queue
queue() {
	local f
	for f; do
		declare -F "$f" >/dev/null || die "queue: no function '$f'" "define it in scripts/check.sh"
	done
	printf '%s\n' "$@" >"$QUEUE"
}
take() {	# print the next queued function and drop it from the queue
	{
		flock 9 &&
			sed -n 1p "$QUEUE" &&
			sed -i 1d "$QUEUE"
	} 9>>"$QUEUE.lock" || { echo "error: cannot take from ${QUEUE#"$TOP"/}" >&2; return 1; }
}
: >"$QUEUE"

results() { cat "$BUILD/results/$1.tsv"; }
count() {	# count FLAVOUR RESULT [PROGRAM-REGEX]
	awk -F'\t' -v r="$2" -v p="${3:-.}" '$1 == r && $2 ~ p { n++ } END { print n + 0 }' \
		"$BUILD/results/$1.tsv"
}
abi() { grep -m1 "^@@ abi: $2=" "$LOGS/vm-$1.log" | cut -d= -f2; }
expect() {	# expect WHAT GOT WANT
	printf '%s: %s (want %s)\n' "$1" "$2" "$3"
	[ "$2" = "$3" ]
}

# The upstream program and the suite this package adds (every other
# program in the directory is ours); of ours, the program of the other
# sets' rules ($OTHER_SETS, lib.sh) never touches pA.
UPSTREAM=test_execve

# A kernel that implements the ambient ABI: every test passes.
conforms() {
	local k=$1
	expect "guest status" "$(cat "$BUILD/results/$k.status")" "finished 0" &&
	expect "prctl(PR_CAP_AMBIENT)" "$(abi "$k" prctl_cap_ambient)" ok &&
	expect "CapAmb line" "$(abi "$k" capamb_line)" present &&
	expect "failed tests" "$(count "$k" FAIL)" 0 &&
	expect "skipped tests" "$(count "$k" SKIP)" 0 &&
	[ "$(count "$k" PASS "^$UPSTREAM\$")" -ge 21 ] &&
	echo "passed: $(count "$k" PASS) ($(count "$k" PASS "^$UPSTREAM\$") of $UPSTREAM)"
}

# Today's upstream with the standalone series: it conforms, and every test
# has the result it has on ambient (a test whose rule changed upstream
# checks the rule of the kernel it runs on, and says which commit changed it).
same_as_ambient() {
	local k=$1
	conforms "$k" || return 1
	if ! diff <(cut -f1-3 "$BUILD/results/ambient.tsv" | LC_ALL=C sort) \
		  <(cut -f1-3 "$BUILD/results/$k.tsv" | LC_ALL=C sort) | sed 's/^/  /'; then
		echo "results on $k differ from ambient's (above: < ambient, > $k)"
		return 1
	fi
	echo "every result as on ambient: $(count "$k" PASS) passed"
}

# ours FLAVOUR [RESULT]: how many results of our suite's tests of the
# ambient set (every program of the directory but upstream's and
# $OTHER_SETS), or how many with RESULT.
ours() {
	awk -F'\t' -v u="$UPSTREAM" -v o="$OTHER_SETS" -v r="${2:-}" \
		'$2 != u && $2 != o && (r == "" || $1 == r) { n++ } END { print n + 0 }' \
		"$BUILD/results/$1.tsv"
}

# The negative control: the suite runs to its end, every one of our tests
# of the ambient set reports and none passes, upstream's test fails, the
# ABI is gone, and the tests of the other sets' rules all pass.
lacks_ambient() {
	local k=$1
	expect "guest status" "$(cut -d' ' -f1 "$BUILD/results/$k.status")" finished &&
	expect "prctl(PR_CAP_AMBIENT)" "$(abi "$k" prctl_cap_ambient)" EINVAL &&
	expect "CapAmb line" "$(abi "$k" capamb_line)" absent &&
	expect "$UPSTREAM has failures" "$(($(count "$k" FAIL "^$UPSTREAM\$") > 0))" 1 &&
	expect "our suite reported at least 60 results" "$(($(ours "$k") >= 60))" 1 &&
	expect "our tests that pass" "$(ours "$k" PASS)" 0 &&
	expect "$OTHER_SETS has results" "$(($(count "$k" PASS "^$OTHER_SETS\$") > 0))" 1 &&
	expect "$OTHER_SETS tests that do not pass" \
		"$(($(count "$k" FAIL "^$OTHER_SETS\$") + $(count "$k" SKIP "^$OTHER_SETS\$")))" 0 &&
	echo "our suite: $(ours "$k" FAIL) failed, $(ours "$k" SKIP) skipped, 0 passed;" \
		"$OTHER_SETS: $(count "$k" PASS "^$OTHER_SETS\$") passed"
}

# The counts the cover letter states are the counts measured now.
cover_figures() {
	local k stated
	for k in $FLAVOURS; do
		stated=$({ grep -oE "KERNEL=$k +[0-9]+ passed, [0-9]+ failed" "$TOP/cover-letter.txt" || true; } |
			awk '{ print $2 " " $4 }')
		expect "cover letter, $k" "$stated" "$(count "$k" PASS) $(count "$k" FAIL)" || return 1
	done
}

# The cover letter leads with what the series is: the set is upstream
# since v4.3 (58319057b784), said in its first 15 lines; and it is short:
# at most 80 lines of prose (the text b4 adds after it not counted).
cover_form() {
	local f=$TOP/cover-letter.txt lines
	lines=$(($(wc -l <"$f") - 2))	# the subject line and the blank after it
	expect "lines of prose" "$((lines <= 80))" 1 && echo "  ($lines)" &&
	expect "v4.3 in the first 15 lines" "$(grep -q 'v4\.3' <(head -n 16 "$f") && echo yes || echo no)" yes &&
	expect "58319057b784 in the first 15 lines" "$(grep -q 58319057b784 <(head -n 16 "$f") && echo yes || echo no)" yes
}

# The KUnit figures the cover letter states are those just measured: the
# rows of the three cases of its KUnit patch that pass on ambient and on
# upstream (where mainline's own cases run beside them), at boot, and the
# mutants in their reach; with --full, on stock as well (kunit.py).
kunit_rows_passed() {	# kunit_rows_passed NAME: NAME's rows (build/kunit/NAME.cases) that pass
	[ -f "$BUILD/kunit/$1.cases" ] || { echo "none ($1 did not run)"; return 0; }
	grep -cE '^PASS +commoncap: test_(setid_fixup|capset_ambient|prctl_ambient): ' \
		"$BUILD/kunit/$1.cases" || true
}
cover_kunit() {
	local f=$TOP/cover-letter.txt rows reach
	rows=$(sed -n "s/.*Patch 6's \([0-9]*\) KUnit rows.*/\1/p" "$f")
	reach=$(sed -n 's/.*the KUnit rows alone the \([0-9]*\) in the functions.*/\1/p' "$f")
	[[ $rows =~ ^[0-9]+$ && $reach =~ ^[0-9]+$ ]] ||
		{ echo "cover letter: no \"Patch 6's N KUnit rows\" or \"the KUnit rows alone the N\""; return 1; }
	expect "cover letter, KUnit rows passed on ambient" "$rows" "$(kunit_rows_passed boot-ambient)" &&
	expect "cover letter, KUnit rows passed on upstream" "$rows" "$(kunit_rows_passed boot-upstream)" &&
	if [ "$tier" = --full ]; then
		expect "cover letter, KUnit rows passed on stock (kunit.py)" "$rows" "$(kunit_rows_passed stock)"
	else
		echo "cover letter, KUnit rows on stock: checked by make check-full (kunit.py)"
	fi &&
	expect "cover letter, mutants in reach of the KUnit rows" "$reach" \
		"$(wc -l <"$BUILD/results/kunit-mutants-in-reach.txt" || echo none)"
}

suite_results() {
	echo "our suite on $1: $(ours "$1") results, $(ours "$1" PASS) passed"
	[ "$(ours "$1")" -ge 60 ]
}

# A run that would fill the disk half-way stops now, naming the cause: a
# cold run (no kernel tree yet) grows build/ by about 16 GB, a warm one by
# a few (docs/setup.md, "Disk").
if [ -d "$SRC/stock" ]; then need_space 4000; else need_space 17000; fi

# summary: the tail of every failed check's log, the phase times, the
# count; exits non-zero on any failure.
summary() {
	local n p f
	while IFS=$'\t' read -r p n; do
		[ "$p" = FAIL ] || continue
		printf '\nFAIL %s: the end of %s\n' "$n" "${CHECKLOGS#"$TOP"/}/$n.log"
		tail -n 15 "$CHECKLOGS/$n.log" | sed 's/^/     | /'
	done <"$RESULTS"
	printf '\nphase times (s):\n'
	awk -F'\t' '{ printf "  %-34s %7.1f\n", $1, $2 }' "$LOGS/phases.tsv"
	# The CPU time of everything the run started, beside its time: how
	# busy it kept the machine, and a figure to compare runs on machines
	# of different speed by.
	# (times in this shell: in a pipe's subshell it would count nothing)
	times >"$CHECKLOGS/times"
	awk -v wall="$SECONDS" 'function s(t) { split(t, a, /[ms]/); return a[1] * 60 + a[2] }
		NR == 2 { u = s($1); k = s($2)
			printf "cpu: %.0f s (user %.0f, system %.0f) in %d s, %.2f CPUs on average\n",
				u + k, u, k, wall, wall ? (u + k) / wall : 0 }' "$CHECKLOGS/times"
	p=$(grep -c '^PASS' "$RESULTS" || true)
	f=$(grep -c '^FAIL' "$RESULTS" || true)
	printf 'check: %d passed, %d failed\n' "$p" "$f"
	[ "$f" -eq 0 ]
}

# The trees, one after the other (they share one git repository).
phase deps "$TOP/scripts/deps.sh" &&
	phase tree "$TOP/scripts/tree.sh" &&
	phase upstream-tree "$TOP/scripts/upstream-tree.sh" || {
	printf 'FAIL\ttrees\n' >>"$RESULTS"
	summary
	exit 1
}

# ---- First pair of lanes: the kernels, and what needs only the trees ----

build_kernels() {
	local k
	# stock first: pre-ambient and ambient start from its objects
	# (scripts/kernel.sh).
	for k in $FLAVOURS; do
		check "kernel-$k" "$TOP/scripts/kernel.sh" "$k"
	done
	check payload "$TOP/scripts/payload.sh"
}

# Linux 7.2 shares no object with the 6.12 kernels: either lane builds it.
kernel_upstream() {
	check kernel-upstream "$TOP/scripts/kernel.sh" upstream
	check payload-upstream "$TOP/scripts/payload.sh" upstream
}

# The series as a submission, the set-up logic, the documents.
check_submission() {
	# The set-up logic, against stub package tools (no network, no root).
	check setup-deps-stubbed "$TOP/tests/setup/deps-test.sh"
	check uapi-matches-stock "$TOP/scripts/abi-check.sh"
	check cover-letter-lede-and-length cover_form
	check series-up-to-date "$TOP/scripts/series.sh" --check
	# Every rule of tests/rules.md has a test, every test and mutant a rule.
	check rules-table "$TOP/scripts/rules-check.sh"
	# The mutant generator on a fixture tree: each operator, stable IDs.
	check mutants-generator-fixtures "$TOP/tests/mutants/generate-test.sh"
	check checkpatch-strict "$TOP/scripts/checkpatch.sh"
	# The suite compiles without warnings with gcc and clang at -Wall -Wextra.
	check suite-no-warnings "$TOP/scripts/suite-warnings.sh"
	check standalone-patches-apply-to-stock "$TOP/scripts/standalone.sh"
	# The messages go out under a sender whose name has quotes, accents,
	# '&' and a backslash: every header and body line must carry it as
	# git format-patch would (scripts/outgoing-identity.py).
	local sender='Zoë "Zed" Tëster & Sons \ Co <zoe.tester@example.net>'
	check b4-send-dry-run env AUTHOR="$sender" DRY_RUN=1 "$TOP/scripts/send.sh"
	check b4-messages-from-sender env AUTHOR="$sender" "$TOP/scripts/outgoing-check.sh"
	# make send twice (v1, v2: same change-id, range-diff), b4 prep --check
	# before each, and make trailers from a saved reply.
	check b4-flow-v1-v2-trailers "$TOP/tests/b4/flow-test.sh"
	# The standalone series on Linux 7.2, checked with 7.2's own tools, and
	# its messages rebuild the branch on a clean 7.2 tree.
	check upstream-series-up-to-date "$TOP/scripts/upstream-series.sh" --check
	check upstream-7.2-tools "$TOP/scripts/upstream-check.sh"
	check upstream-b4-send-dry-run env SERIES=upstream AUTHOR="$sender" DRY_RUN=1 "$TOP/scripts/send.sh"
	check upstream-b4-messages env SERIES=upstream AUTHOR="$sender" "$TOP/scripts/outgoing-check.sh"
	check htmldocs-no-new-warnings "$TOP/scripts/htmldocs-check.sh" build/src/ambient build/src/pre-ambient
}

queue kernel_upstream
lanes build_kernels check_submission

# What this run has just built stays as it is until the end: the boots
# below take it as it is (lib.sh, up_to_date) instead of running a make
# that would find nothing to do, a dozen times.
UP_TO_DATE=
for k in $ALL_FLAVOURS payload payload-upstream; do
	case $k in payload*) c=$k ;; *) c=kernel-$k ;; esac
	passed "$c" && UP_TO_DATE="$UP_TO_DATE $k"
done
export UP_TO_DATE

# ---- Second pair of lanes: the guests, and the builds after the kernels ----

boot() { "$TOP/scripts/kselftest.sh" "$1" || true; }

# Every flavour's suite, the KUnit cases at boot, the hostile environments,
# the differential tester, the benchmark's and the conformance mode's
# smoke runs, the man pages' claims: TCG guests, one CPU each.
run_guests() {
	local k
	for k in $ALL_FLAVOURS; do
		boot "$k" >"$CHECKLOGS/boot-$k.log" 2>&1
		sed -n '/^kselftest\[/p;/^vm\[/p' "$CHECKLOGS/boot-$k.log"
	done
	check kselftest-stock-passes conforms stock
	check kselftest-ambient-passes conforms ambient
	check kselftest-pre-ambient-fails lacks_ambient pre-ambient
	check kselftest-upstream-passes-as-ambient same_as_ambient upstream
	check suite-has-60-results suite_results stock
	check cover-letter-figures-measured cover_figures
	# The KUnit cases (the last patch of series/ on 6.12; mainline's and
	# kunit/'s on 7.2), built into those kernels: one more boot each, in
	# KUnit mode (only then do they run, before /init): every row passes.
	check kunit-ambient-passes "$TOP/scripts/kunit.sh" --boot ambient
	check kunit-upstream-passes "$TOP/scripts/kunit.sh" --boot upstream
	grep -h '^kunit: ' "$CHECKLOGS"/kunit-*-passes.log | sed 's/^/     /' || true
	# No test fails for its environment: installed under /tmp,
	# RLIMIT_RTPRIO raised, a securebit set by the parent, no /etc/passwd,
	# an unprivileged user (whose counts are shown: at least half of the
	# tests must pass).
	check hostile-environments "$TOP/scripts/hostile.sh" stock ambient upstream
	grep '^hostile\[.* unprivileged\]: [0-9]' "$CHECKLOGS/hostile-environments.log" |
		sed 's/^/     /' || true
	# The model-based differential tester, with a fixed seed so that a run
	# is reproducible (make difftest explores new seeds).
	check difftest-stock env SEED=20261203 "$TOP/scripts/difftest.sh" stock 100000
	check difftest-ambient env SEED=20261203 "$TOP/scripts/difftest.sh" ambient 100000
	check difftest-pre-ambient-mismatches env SEED=20261203 EXPECT_MISMATCH=1 IGNORE_CAPAMB=1 \
		"$TOP/scripts/difftest.sh" pre-ambient 20000
	check bench-smoke env SMOKE=1 "$TOP/scripts/bench.sh"
	# The suite as a conformance test of another runtime: Debian
	# bookworm's gVisor, a few tests each alone (make conformance runs them
	# all, on both of Debian's builds).
	check conformance-gvisor-smoke env SMOKE=1 "$TOP/scripts/conformance.sh" gvisor
	check man-pages sh -c '"$0"/scripts/man-tree.sh && "$0"/scripts/man-check.sh' "$TOP"
	# No boot counts unless its kernel is the one built: the stale-object
	# mechanism reproduced with the old compiler command and gone with
	# ours; the guard refuses stock's image claimed as ambient's.
	check stale-image-and-boot-guard "$TOP/tests/build/stale-image-test.sh" --guard
}

# Queued for either lane, each building in a worktree of its own: every
# patch builds on its own; the rejected global-mask design's kernel
# passes its own kselftest, and the comparison table docs/design.md
# carries is measured.
every_patch_builds() { check every-patch-builds "$TOP/scripts/bisect.sh"; }
alternatives() { check alternatives-sysctl "$TOP/scripts/alternatives.sh" --check; }

# The series compiles with everything optional off: under allnoconfig,
# what the configuration enables in the top-level directories of the C
# files it touches (make check-full links the whole allnoconfig kernel).
touched_dirs() { touched_sources | cut -d/ -f1 | sort -u | sed 's|$|/|'; }

# The builds that come after the kernels: sparse, the allnoconfig
# compile, the mutants (each an incremental build and a boot). None
# changes what the guests boot.
build_more() {
	check sparse-w1-nothing-new "$TOP/scripts/sparse.sh"
	# shellcheck disable=SC2046 # one target per directory
	check ambient-allnoconfig-compiles env KCONFIG=allnoconfig "$TOP/scripts/kernel.sh" ambient $(touched_dirs)
	# A third of the plausible bugs of tests/mutants/, planted one at a
	# time, must each fail the suite (make mutants runs all of them).
	check mutants-killed "$TOP/scripts/mutants.sh" --check
	# The KUnit rows alone (read from those mutants' boots) fail on each of
	# them that changes a function the cases call.
	check kunit-mutants-killed "$TOP/scripts/kunit-mutants.sh" --check
}

queue every_patch_builds alternatives
lanes run_guests build_more

# The second tier: each a full build that shares no object with the rest.
if [ "$tier" = --full ]; then
	# The debug flavour: the kernel's own checkers watch the same suite.
	check kernel-ambient-debug env KCONFIG=debug "$TOP/scripts/kernel.sh" ambient
	env KCONFIG=debug "$TOP/scripts/kselftest.sh" ambient >"$CHECKLOGS/boot-ambient-debug.log" 2>&1 || true
	sed -n '/^kselftest\[/p;/^vm\[/p' "$CHECKLOGS/boot-ambient-debug.log"
	check kselftest-ambient-debug-clean conforms ambient-debug
	check ambient-tinyconfig-builds env KCONFIG=tinyconfig "$TOP/scripts/kernel.sh" ambient
	check ambient-allnoconfig-builds env KCONFIG=allnoconfig "$TOP/scripts/kernel.sh" ambient
	# The KUnit cases as their maintainers run them: kunit.py run, with
	# kunit/commoncap.kunitconfig; on stock, with the patch's code alone.
	for k in ambient stock upstream; do
		check "kunit-py-$k-passes" "$TOP/scripts/kunit.sh" "$k"
	done
	grep -h '^kunit: ' "$CHECKLOGS"/kunit-py-*-passes.log | sed 's/^/     /' || true
fi
check cover-letter-kunit-figures cover_kunit

summary
