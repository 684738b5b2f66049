#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The capabilities kselftests as a conformance test of another
# implementation of the Linux ABI: run the suite's static binaries under a
# runtime and tabulate each test's rule and result beside stock's.
#
#   conformance.sh [RUNTIME]     (default: $RUNTIME, else gvisor)
#     gvisor    every runsc build of GVISOR_BUILDS (lib.sh), Debian's
#               bookworm and unstable builds, fetched with apt-get download
#               into build/debian/runsc-NAME and never installed
#     qemu      the kernel flavour $KERNEL (default ambient), booted in QEMU
#     'CMD ...' any command prefix that runs a program in the runtime; the
#               program runs as root from the suite's directory
#   SMOKE=1     the first gvisor build, a few tests (make check); its
#               files go to build/conformance/smoke/
#
# A runtime without the ambient set (prctl(PR_CAP_AMBIENT) fails with
# EINVAL) gets one line saying so; its results are then judged on the
# tests of the other sets' rules alone ($OTHER_SETS). A test SKIPs,
# naming the facility, where the runtime lacks what the test needs; a
# FAIL means a rule is broken.
#
# Writes build/conformance/: NAME.log (the runner's output), NAME.tsv (as
# build/results/), NAME.abi, NAME.repro (the reproducers of
# tests/guest/repro-*.c, as docs/conformance.md shows them) and
# table-RUNTIME.md (RUNTIME: gvisor, qemu-KERNEL or custom).
# Each test gets CONFORMANCE_TIMEOUT seconds (default 120). Exits
# non-zero when a runtime could not run the suite to its end: a test with
# no result (the runtime crashed or hung), no judged test that passes, or
# a reproducer that fails on stock.
. "$(dirname "$0")/lib.sh"

runtime=${1:-${RUNTIME:-gvisor}}
OUT=$BUILD/conformance${SMOKE:+/smoke}
STATE=$BUILD/conformance/runsc-state
PAYLOAD=$BUILD/payload
SUITE_DIR=$PAYLOAD/root/kselftest
GUEST_BIN=$PAYLOAD/root/usr/libexec/ambient
TIMEOUT=${CONFORMANCE_TIMEOUT:-120}
lock conformance
mkdir -p "$OUT"
command -v timeout >/dev/null || die "timeout is missing" "run make deps (package coreutils)"

# A command prefix is checked before anything runs; the tests run from
# another directory, so its command is named absolutely.
case $runtime in
gvisor | qemu) ;;
*)
	read -ra words <<<"$runtime"
	words[0]=$(command -v "${words[0]}") && [ "${words[0]#/}" != "${words[0]}" ] ||
		die "no command '${runtime%% *}'" "give RUNTIME as a command prefix, such as '/usr/bin/runsc do'"
	;;
esac

# The suite, the probe and the reproducers, built once for every runtime.
phase payload "$TOP/scripts/payload.sh" || die "building the payload failed" "read the lines above"
repros=$(cd "$GUEST_BIN" && ls repro-* 2>/dev/null) ||
	die "no reproducers in the payload" "check tests/guest/repro-*.c, then run make payload"

# Stock's results and reproducer output are the reference.
stock_reference() {
	local r
	if [ ! -s "$BUILD/results/stock.tsv" ] ||
	   [ "$BUILD/results/stock.tsv" -ot "$PAYLOAD/initramfs.cpio.gz" ]; then
		"$TOP/scripts/kselftest.sh" stock >"$OUT/stock.kselftest.log" 2>&1 || true
	fi
	[ -s "$BUILD/results/stock.tsv" ] ||
		die "no results of stock (log: $OUT/stock.kselftest.log)" "run make kselftest KERNEL=stock"
	cp "$BUILD/results/stock.tsv" "$OUT/stock.tsv"
	grep '^@@ abi:' "$LOGS/vm-stock.log" | sed 's/^@@ abi: //' >"$OUT/stock.abi" || true
	: >"$OUT/stock.repro"
	for r in $repros; do
		rm -f "$LOGS/vm-conformance-$r.log"
		VM_MODE=run VM_APPEND="ambient.run=$r" "$TOP/scripts/vm.sh" "conformance-$r" \
			"$OBJ/stock/arch/x86/boot/bzImage" "$PAYLOAD/initramfs.cpio.gz" \
			>/dev/null 2>&1 || true
		refuse_unproven "conformance-$r"
		{
			echo "\$ ./$r"
			sed -n '/^@@ guest-ready/,/^@@ run-exit/p' "$LOGS/vm-conformance-$r.log" |
				sed '1d;$d'
			echo "exit status $(sed -n 's/^@@ run-exit //p' "$LOGS/vm-conformance-$r.log")"
		} >>"$OUT/stock.repro"
	done
}

# The tests to run: every test of our programs that stock ran (upstream's
# test_execve reports messages, not named tests); SMOKE=1: the other sets'
# tests and the first two of each other program.
tests_to_run() {
	awk -F'\t' -v o="$OTHER_SETS" -v smoke="${SMOKE:-}" '
		$2 != "test_execve" && $3 != "(program exit status)" &&
		(smoke == "" || $2 == o || n[$2]++ < 2) { print $2 "\t" $3 }' "$OUT/stock.tsv"
}

# run_in NAME PREFIX...: the suite, the probe and the reproducers under
# the runtime that PREFIX starts. Each test runs alone (the harness's -r)
# in a runtime of its own, so that a runtime that crashes loses one test:
# a test whose run reports no result is tried three times, then counted
# as a crash of the runtime. Returns non-zero if no test reported.
run_in() {
	local name=$1 prog test out rc r try line why
	shift
	msg "$name: running $(tests_to_run | wc -l) tests, each alone"
	: >"$OUT/$name.log"
	: >"$OUT/$name.tsv"
	while IFS=$'\t' read -r prog test; do
		for try in 1 2 3; do
			rc=0
			# the runtime must not inherit the lock: a process of
			# it that outlives a kill would hold it
			out=$(cd "$SUITE_DIR/capabilities" &&
				timeout -k 10 "$TIMEOUT" "$@" "./$prog" -r "$test" \
					2>&1 </dev/null {lockfd}>&- | cat) || rc=$?
			printf '### %s -r %s (try %d, exit %d)\n%s\n' "$prog" "$test" "$try" "$rc" "$out" \
				>>"$OUT/$name.log"
			line=$(grep -m1 -E '^(not )?ok 1 ' <<<"$out" || true)
			[ -z "$line" ] || break
		done
		case $line in
		"")
			case $rc in
			124 | 137) why="timed out after $TIMEOUT s, 3 times" ;;
			*) why="no result in 3 runs, last exit $rc" ;;
			esac
			printf 'CRASH\t%s\t%s\t%s\n' "$prog" "$test" "$why" ;;
		*"# SKIP"*) printf 'SKIP\t%s\t%s\t%s\n' "$prog" "$test" "${line#*# SKIP }" ;;
		"not ok"*)	# with the first check that failed
			printf 'FAIL\t%s\t%s\t%s\n' "$prog" "$test" \
				"$(grep -m1 -E '^# ([^ ]+\.[ch]:[0-9]+:|.*(terminated|by signal))' <<<"$out" |
					sed 's/^# //' || true)" ;;
		*) printf 'PASS\t%s\t%s\n' "$prog" "$test" ;;
		esac >>"$OUT/$name.tsv"
	done < <(tests_to_run)
	(cd "$GUEST_BIN" && timeout -k 10 60 "$@" ./abi-probe 2>&1 </dev/null {lockfd}>&- | cat) |
		sed -n 's/^abi: //p' >"$OUT/$name.abi" || true
	: >"$OUT/$name.repro"
	for r in $repros; do
		{
			echo "\$ ./$r"
			rc=0
			(cd "$GUEST_BIN" && timeout -k 10 60 "$@" "./$r" 2>&1 </dev/null {lockfd}>&- | cat) || rc=$?
			echo "exit status $rc"
		} >>"$OUT/$name.repro"
	done
	grep -qE '^(PASS|FAIL|SKIP)' "$OUT/$name.tsv" || {
		loud "$name: no test reported a result (log: $OUT/$name.log)" \
		     "run one test by hand as the log shows"
		return 1
	}
}

stock_reference
runtimes=
failed=0
case $runtime in
gvisor)
	[ "$(id -u)" = 0 ] || die "runsc do runs sandboxes as root only" "run make conformance as root"
	while read -r bname pin suites platform; do
		[ -n "$bname" ] || continue
		# shellcheck disable=SC2086 # the suites are words
		PKG_DIR=runsc-$bname "$TOP/scripts/debian-pkg.sh" runsc "$pin" ${suites//,/ } </dev/null ||
			die "cannot fetch runsc $pin from $suites" "read the lines above"
		runsc=$BUILD/debian/runsc-$bname/root/usr/bin/runsc
		[ -x "$runsc" ] || die "runsc-$bname has no usr/bin/runsc" "look into build/debian/runsc-$bname"
		mkdir -p "$STATE/$bname"
		name="gvisor-$bname"
		echo "$name: runsc $(cat "$BUILD/debian/runsc-$bname/VERSION"), platform $platform" \
			>"$OUT/$name.about"
		run_in "$name" "$runsc" --root="$STATE/$bname" --network=none --net-raw \
			--platform="$platform" do || failed=$((failed + 1))
		runtimes="$runtimes $name"
		[ -z "${SMOKE:-}" ] || break
	done <<<"$GVISOR_BUILDS"
	label=gvisor
	;;
qemu)
	k=${KERNEL:-ambient}
	name=qemu-$k
	rm -f "$BUILD/results/$k.tsv"
	"$TOP/scripts/kselftest.sh" "$k" >"$OUT/$name.log" 2>&1 || true
	[ -s "$BUILD/results/$k.tsv" ] || die "no results of $k (log: $OUT/$name.log)" "run make kselftest KERNEL=$k"
	cp "$BUILD/results/$k.tsv" "$OUT/$name.tsv"
	grep '^@@ abi:' "$LOGS/vm-$k.log" | sed 's/^@@ abi: //' >"$OUT/$name.abi" || true
	echo "$name: kernel $k in QEMU" >"$OUT/$name.about"
	runtimes=" $name"
	label=$name
	;;
*)
	name=custom
	echo "$name: ${words[*]}" >"$OUT/$name.about"
	run_in "$name" "${words[@]}" || failed=$((failed + 1))
	runtimes=" $name"
	label=$name
	;;
esac

# The rules of tests/rules.md that name TEST (patterns with * as there).
declare -A rule_of
while IFS='|' read -r _ num _ _ tests _; do
	num=${num// /}
	[[ $num =~ ^[0-9]+$ ]] || continue
	while read -r t; do
		[ -z "$t" ] || rule_of[$t]="${rule_of[$t]:+${rule_of[$t]} }$num"
	done < <(grep -oE '`[^`]+`' <<<"$tests" | tr -d '`' || true)
done <"$TOP/tests/rules.md"
rules_for() {
	local p out=
	for p in "${!rule_of[@]}"; do
		# shellcheck disable=SC2254 # the table's names are patterns
		case $1 in $p) out="$out ${rule_of[$p]}" ;; esac
	done
	tr ' ' '\n' <<<"$out" | sed '/^$/d' | sort -nu | paste -sd, -
}

# result NAME PROGRAM TEST: the result of TEST on NAME, lower case, with
# the SKIP reason.
result() {
	awk -F'\t' -v p="$2" -v t="$3" '$2 == p && $3 == t {
		r = tolower($1); if ($1 == "SKIP") r = r " (" $4 ")"; print r; exit }' "$OUT/$1.tsv"
}
# ambient NAME: whether the runtime has the ambient set: yes, no (the
# probe saw EINVAL), or unknown (the probe gave no answer)
ambient() {
	case $(sed -n 's/^prctl_cap_ambient=//p' "$OUT/$1.abi" 2>/dev/null) in
	ok) echo yes ;;
	EINVAL) echo no ;;
	*) echo unknown ;;
	esac
}

table=$OUT/table-$label.md
{
	printf '| test | rules |'
	printf ' %s |' stock $runtimes
	printf '\n|---|---|'
	printf -- '---|%.0s' stock $runtimes
	printf '\n'
	# our programs' tests, in stock's order (upstream's test_execve
	# reports messages, not named tests)
	awk -F'\t' '$2 != "test_execve" && $3 != "(program exit status)" { print $2 "\t" $3 }' \
		"$OUT/stock.tsv" |
	while IFS=$'\t' read -r prog test; do
		printf '| `%s` | %s |' "$test" "$(rules_for "$test")"
		for n in stock $runtimes; do
			r=$(result "$n" "$prog" "$test")
			if [ -n "$r" ] && [ "$prog" != "$OTHER_SETS" ] && [ "$n" != stock ] &&
			   [ "$(ambient "$n")" = no ]; then
				r="not judged: no pA ($r)"
			fi
			printf ' %s |' "${r:-not run}"
		done
		printf '\n'
	done
} >"$table"

# The summary: per runtime, what it lacks and the judged counts (also in
# summary-RUNTIME.txt, beside the table).
summary() {
	local n judge want got crashes fails skips r st bad=0
	for n in $runtimes; do
		cat "$OUT/$n.about"
		case $(ambient "$n") in
		yes)
			judge='$2 != "test_execve"' ;;
		unknown)
			echo "$n: the probe of the ambient set gave no answer (see $n.abi): judging every test"
			judge='$2 != "test_execve"'
			bad=1 ;;
		no)
			echo "$n: no ambient set: prctl(PR_CAP_AMBIENT) $(sed -n 's/^prctl_cap_ambient=//p' "$OUT/$n.abi"), CapAmb line $(sed -n 's/^capamb_line=//p' "$OUT/$n.abi"); judged on $OTHER_SETS alone (the other sets' rules)"
			judge="\$2 == \"$OTHER_SETS\"" ;;
		esac
		awk -F'\t' -v n="$n" "$judge"' && $3 != "(program exit status)" { c[$1]++ }
			END { printf "%s: %d passed, %d failed, %d skipped, %d crashed the runtime (judged tests)\n",
				n, c["PASS"], c["FAIL"], c["SKIP"], c["CRASH"] }' "$OUT/$n.tsv"
		# every test asked for has a result here
		want=$(tests_to_run | wc -l)
		got=$(awk -F'\t' '$2 != "test_execve" && $3 != "(program exit status)"' "$OUT/$n.tsv" | wc -l)
		if [ "$got" -ne "$want" ]; then
			echo "$n: $got results of $want tests: the suite did not run to its end"
			bad=1
		fi
		crashes=$(awk -F'\t' '$1 == "CRASH"' "$OUT/$n.tsv" | wc -l)
		if [ "$crashes" -ne 0 ]; then
			echo "$n: the runtime crashed or hung 3 times on each of $crashes tests: see $n.log"
			bad=1
		fi
		if [ "$(awk -F'\t' "$judge"' && $1 == "PASS"' "$OUT/$n.tsv" | wc -l)" -eq 0 ]; then
			echo "$n: no judged test passed: the runtime did not run the suite"
			bad=1
		fi
		fails=$(awk -F'\t' "$judge"' && $1 == "FAIL" { print "  " $3 ": " $4 }' "$OUT/$n.tsv")
		[ -z "$fails" ] || { echo "$n: judged FAILs and the first check each failed:"; echo "$fails"; }
		skips=$(awk -F'\t' '$1 == "SKIP" { print "  " $3 ": " $4 }' "$OUT/$n.tsv")
		[ -z "$skips" ] || { echo "$n: SKIPs and the facility each lacks:"; echo "$skips"; }
	done
	# A reproducer states Linux's behaviour: on stock it must exit 0.
	while read -r r st; do
		[ "$st" = 0 ] || { echo "stock: reproducer $r exits with ${st:-nothing}, not 0: it is wrong about Linux"; bad=1; }
	done < <(awk '/^\$ / { r = $2 } /^exit status/ { print r, $3 }' "$OUT/stock.repro")
	[ "$bad" -eq 0 ]
}
bad=0
summary >"$OUT/summary-$label.txt" || bad=1
cat "$OUT/summary-$label.txt"
echo "stock: $(awk -F'\t' '{ c[$1]++ } END { printf "%d passed, %d failed, %d skipped", c["PASS"], c["FAIL"], c["SKIP"] }' "$OUT/stock.tsv")"
echo "table: ${table#"$TOP"/}; reproducers: ${OUT#"$TOP"/}/*.repro"
[ "$failed" -eq 0 ] && [ "$bad" -eq 0 ]
