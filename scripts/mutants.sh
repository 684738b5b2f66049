#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Mutation testing of the capabilities kselftests: apply each small,
# plausible bug of tests/mutants/ to the ambient branch, rebuild, boot the
# mutant with the usual test initramfs and check that the suite notices.
#
#   mutants.sh [NAME...]        (default: every tests/mutants/*.patch)
#   mutants.sh --check          the set make check plants (MUTANTS_CHECK_SET in lib.sh)
#
# A mutant is killed when a test fails or the guest does not finish
# cleanly (a WARN from the kernel's invariant checks panics the guest under
# panic_on_warn=1: the line says so), and survives when the suite passes.
# The unmutated tree must pass first, else the score means nothing.
#
# The mutants are built in their own worktree, build/src/mutant (detached,
# reset to the ambient branch before each mutant and afterwards), and their
# own object directory, build/obj/mutant (configured from build/obj/ambient).
# Logs: build/logs/mutants/, build/logs/vm-mutant-NAME.log; results:
# build/results/mutant-NAME.tsv and the summary build/results/mutants.tsv.
# Each mutant's bzImage (and the unmutated one, baseline) stays in
# build/mutant-images/NAME.bzImage, for scripts/kunit-mutants.sh --check.
#
# Exits non-zero if any mutant survives, or does not apply or build.
#
# MUTANTS_GENERATED=DIR runs the mutants of DIR instead, as
# scripts/mutants-generated.sh writes them: no rule of tests/rules.md
# names them and no image is kept; one that does not build is stillborn
# (a line "stillborn", not an error); the summary is
# build/results/mutants-generated.tsv, which that script scores.
. "$(dirname "$0")/lib.sh"

MUTDIR=${MUTANTS_GENERATED:-$TOP/tests/mutants}
wt=$SRC/mutant
obj=$OBJ/mutant
mlogs=$LOGS/mutants
summary=$BUILD/results/mutants${MUTANTS_GENERATED:+-generated}.tsv
initrd=$BUILD/payload/initramfs.cpio.gz
image=$obj/arch/x86/boot/bzImage
images=$BUILD/mutant-images
# A sound guest finishes in well under a minute even under TCG; a mutant
# that hangs it should not cost the default 300 s.
export VM_TIMEOUT=${VM_TIMEOUT:-150}

lock obj-mutant
# Only this run's images: scripts/kunit-mutants.sh --check boots them.
[ -n "${MUTANTS_GENERATED:-}" ] || rm -rf "$images"
mkdir -p "$mlogs" "$BUILD/results" "$images"

# shellcheck disable=SC2086 # a list of names
[ "${1:-}" = --check ] && set -- $MUTANTS_CHECK_SET

# The mutants to run, in a stable order.
names=()
if [ $# -eq 0 ]; then
	for p in "$MUTDIR"/*.patch; do
		[ -f "$p" ] && names+=("$(basename "$p" .patch)")
	done
	[ ${#names[@]} -gt 0 ] || die "no mutants in ${MUTDIR#"$TOP"/}" "add NAME.patch files there"
else
	for n in "$@"; do
		n=${n%.patch}
		n=${n##*/}
		[ -f "$MUTDIR/$n.patch" ] ||
			die "no mutant '$n'" "use one of: $(for p in "$MUTDIR"/*.patch; do basename "$p" .patch; done | tr '\n' ' ')"
		names+=("$n")
	done
fi

mutant_worktree
# No console log or result of an earlier run is taken for this run's.
for n in baseline "${names[@]}"; do
	rm -f "$LOGS/vm-mutant-$n.log" "$BUILD/results/mutant-$n.tsv" \
		"$BUILD/results/mutant-$n.status"
done

# Every mutant must apply before any time is spent on builds.
for n in "${names[@]}"; do
	git -C "$wt" apply --check "$MUTDIR/$n.patch" 2>"$mlogs/$n-apply.log" ||
		die_log "$mlogs/$n-apply.log" "mutant $n no longer applies to the ambient branch" \
		    "refresh ${MUTDIR#"$TOP"/}/$n.patch against build/src/ambient (generated ones: run the generator again)"
done

# The mutant tree is configured from ambient's build, and starts from its
# objects: build it first (on a fresh checkout there is none).
kernel_image ambient ||
	die "building the ambient kernel failed (above)" "run make kernel KERNEL=ambient and fix the build"
configure_from ambient "$wt" "$obj" "$mlogs/configure.log"

build() {	# build LOG: incremental bzImage of the worktree as it is
	kmake "$wt" "$obj" bzImage >"$1" 2>&1 || {
		grep -E 'error:|Error [0-9]|undefined reference' "$1" | head -10 >&2
		return 1
	}
}

"$TOP/scripts/payload.sh" >"$mlogs/payload.log" 2>&1 ||
	die_log "$mlogs/payload.log" "building the payload failed" "run make payload"

# results NAME: the per-test results of the last boot of NAME.
res() { cat "$BUILD/results/mutant-$1.tsv" 2>/dev/null || true; }
nfail() { res "$1" | awk -F'\t' '$1 == "FAIL"' | wc -l; }
nres() { res "$1" | wc -l; }
status() { cat "$BUILD/results/mutant-$1.status" 2>/dev/null || echo "no status"; }
failed_tests() {	# the first few failing tests, named (each name once)
	res "$1" | awk -F'\t' '$1 == "FAIL" {
		t = ($2 == "test_execve") ? $2 ": " $3 : $3
		if (!seen[t]++ && n++ < 3) s = s (n > 1 ? ", " : "") t
	} END { if (n > 3) s = s sprintf(", ... (%d in all)", n); print s }'
}
# failed_programs NAME: the test programs that exited non-zero (a program
# can fail without a failing subtest, for instance upstream's test_execve
# when it stops early).
failed_programs() {
	sed -n 's/^not ok [0-9]* selftests: capabilities: \([^ ]*\) # \(exit=[0-9]*\|timeout\).*/\1/p' \
		"$LOGS/vm-mutant-$1.log" 2>/dev/null | paste -sd' ' | sed 's/ /, /g' || true
}
# guest_problem NAME: why the guest did not finish cleanly, or nothing.
guest_problem() {
	local log=$LOGS/vm-mutant-$1.log where
	case $(status "$1") in
	"finished 0") ;;
	finished*) echo "runner exit $(status "$1" | cut -d' ' -f2)" ;;
	splat)
		# file:line of the first WARN, and the function around that
		# line in the mutated tree (the kernel has no kallsyms)
		where=$(sed -n 's/.*WARNING: CPU: .* at \([^ ]*:[0-9]*\) .*/\1/p' "$log" | head -1 || true)
		if [ -n "$where" ]; then
			fn=$(head -n "${where##*:}" "$wt/${where%:*}" 2>/dev/null |
				grep -E '^[a-z_].*\(' | tail -1 | sed -E 's/^[^(]*[ *]([A-Za-z0-9_]+)\(.*/\1/' || true)
			comm=$(sed -n 's/.* Comm: \([^ ]*\) .*/\1/p' "$log" | head -1 || true)
			echo "WARN (panic_on_warn) at $where${fn:+ in $fn()}${comm:+, task $comm}"
		else
			echo "kernel $(grep -m1 -oE 'Kernel panic - [^:]*|BUG: [^,]*|Oops' "$log")"
		fi ;;
	timeout) echo "guest did not finish within $VM_TIMEOUT s" ;;
	*) echo "guest stopped before finishing" ;;
	esac
}
# boot NAME: run the suite on the bzImage just built, and keep it with the
# build ID of its vmlinux (scripts/kunit-mutants.sh --check boots it). A
# boot of another build's kernel stops the run: no verdict would be this
# mutant's.
boot() {
	[ -n "${MUTANTS_GENERATED:-}" ] ||
		{ cp "$image" "$images/$1.bzImage" && built_id "$image" >"$images/$1.bzImage.build-id"; } ||
		die "cannot keep the bzImage of $1 with the build ID of its vmlinux" \
		    "check the free space, and that ${obj#"$TOP"/}/vmlinux exists"
	"$TOP/scripts/vm.sh" "mutant-$1" "$image" "$initrd" >"$mlogs/$1-vm.log" 2>&1 || true
	refuse_unproven "mutant-$1"
}
# own_failures NAME: how many of the failing tests of mutant NAME are
# tests of the rule that tests/rules.md names NAME under (a * there
# stands for the variants of a fixture). A mutant killed by other rules'
# tests alone is suspect: another kernel may have booted, or the rule's
# own tests miss it.
own_failures() {
	local pats t p n=0
	pats=$(awk -F'|' -v m="\`$1\`" 'NF >= 8 && $2 ~ /^ *[0-9]+ *$/ && index($6, m) { print $5 }' \
		"$TOP/tests/rules.md" | { grep -oE '`[^`]+`' || true; } | tr -d '`')
	while read -r t; do
		while read -r p; do
			# shellcheck disable=SC2254 # the table's names are patterns
			case $t in $p) n=$((n + 1)); break ;; esac
		done <<<"$pats"
	done < <(res "$1" | awk -F'\t' '$1 == "FAIL" { print $3 }')
	echo "$n"
}
now() { date +%s.%N; }
secs() { printf '%.0f' "$(echo "$2 - $1" | bc)"; }

# The unmutated tree must pass the whole suite first, on this very build
# directory and payload (an incremental rebuild and one boot).
msg "building and booting the unmutated tree"
t0=$(now)
build "$mlogs/baseline-build.log" ||
	die_log "$mlogs/baseline-build.log" "the unmutated ambient tree does not build" \
	    "run make kernel KERNEL=ambient and fix the build"
t1=$(now)
boot baseline
t2=$(now)
problem=$(guest_problem baseline)
if [ "$(nfail baseline)" -ne 0 ] || [ -n "$problem" ] || [ -n "$(failed_programs baseline)" ] ||
   [ "$(nres baseline)" -lt 60 ]; then
	why="$(nfail baseline) of $(nres baseline) tests failed"
	[ "$(nfail baseline)" -eq 0 ] || why="$why: $(failed_tests baseline)"
	[ -z "$(failed_programs baseline)" ] || why="$why; programs failing: $(failed_programs baseline)"
	[ -z "$problem" ] || why="$why; $problem"
	die "the unmutated ambient tree does not pass the suite ($why), so a mutation score would mean nothing" \
	    "read $LOGS/vm-mutant-baseline.log and get make kselftest passing first"
fi
baseline=$(nres baseline)
msg "unmutated tree: all $baseline tests pass (build $(secs "$t0" "$t1") s, boot $(secs "$t1" "$t2") s)"

killed=0
survived=0
broken=0
by_rule=0	# killed with a failing test of the mutant's own rule
foreign=	# killed by other rules' tests alone
: >"$summary"
start=$(now)
for n in "${names[@]}"; do
	reset_tree
	git -C "$wt" apply "$MUTDIR/$n.patch" 2>"$mlogs/$n-apply.log" || {
		printf 'error    %-32s does not apply (log: %s)\n' "$n" "$mlogs/$n-apply.log"
		broken=$((broken + 1))
		continue
	}
	t0=$(now)
	if ! build "$mlogs/$n-build.log"; then
		if [ -n "${MUTANTS_GENERATED:-}" ]; then
			printf 'stillborn %-31s does not build (log: %s)\n' "$n" "$mlogs/$n-build.log"
			printf '%s\tstillborn\tdoes not build\t%s\t\n' "$n" "$(secs "$t0" "$(now)")" >>"$summary"
			continue
		fi
		printf 'error    %-32s does not build (log: %s)\n' "$n" "$mlogs/$n-build.log"
		printf '%s\terror\tdoes not build\t%s\t\t\n' "$n" "$(secs "$t0" "$(now)")" >>"$summary"
		broken=$((broken + 1))
		continue
	fi
	t1=$(now)
	boot "$n"
	t2=$(now)
	tb=$(secs "$t0" "$t1")
	tv=$(secs "$t1" "$t2")
	problem=$(guest_problem "$n")
	f=$(nfail "$n")
	progs=$(failed_programs "$n")
	missing=$((baseline - $(nres "$n")))
	if [ "$f" -eq 0 ] && [ -z "$problem" ] && [ -z "$progs" ] && [ "$missing" -le 0 ]; then
		verdict=survived
		how="all $(nres "$n") tests pass"
		survived=$((survived + 1))
	else
		verdict=killed
		how=
		[ "$f" -gt 0 ] && how="$f failed: $(failed_tests "$n")"
		[ -n "$progs" ] && how="$how${how:+; }programs failing: $progs"
		[ -n "$problem" ] && how="$how${how:+; }$problem"
		[ "$missing" -gt 0 ] && how="$how${how:+; }$missing of $baseline results missing"
		killed=$((killed + 1))
		own=0
		[ -n "${MUTANTS_GENERATED:-}" ] || own=$(own_failures "$n")
		if [ -n "${MUTANTS_GENERATED:-}" ]; then
			:	# no rule names a generated mutant
		elif [ "$own" -gt 0 ]; then
			how="$how; $own of its rule's tests fail"
			by_rule=$((by_rule + 1))
		elif [ "$(status "$n")" = splat ]; then
			how="$how; by the kernel's own check, none of its rule's tests fail"
		else
			how="$how; NONE of its rule's tests fail"
			foreign="$foreign $n"
		fi
	fi
	printf '%-8s %-32s build %4s s, boot %4s s: %s\n' "$verdict" "$n" "$tb" "$tv" "$how"
	printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$verdict" "$how" "$tb" "$tv" >>"$summary"
done
reset_tree

total=${#names[@]}
printf 'killed %d of %d%s (%s s)\n' "$killed" "$total" \
	"$([ "$broken" -eq 0 ] || echo ", $broken did not apply or build")" "$(secs "$start" "$(now)")"
[ -z "$foreign" ] || foreign="; by other rules' tests alone:$foreign"
[ -n "${MUTANTS_GENERATED:-}" ] ||
	printf 'killed by a test of their own rule (tests/rules.md): %d of %d%s\n' "$by_rule" "$killed" "$foreign"
# scripts/mutants-generated.sh judges the survivors of generated mutants
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ] || [ -n "${MUTANTS_GENERATED:-}" ] ||
	die "$survived mutant(s) survived, $broken did not apply or build (table above)" \
	    "a survivor names a rule no test pins: add a test; see tests/mutants/README.md"
