#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Everything the package verifies. One line per check, then the phase
# times, then exactly one line "check: N passed, N failed".
. "$(dirname "$0")/lib.sh"

CHECKLOGS=$LOGS/check
rm -rf "$CHECKLOGS"
mkdir -p "$CHECKLOGS"
: >"$LOGS/phases.tsv"
passed=0
failed=0

# check NAME CMD...: run CMD (output to its own log), count and report.
check() {
	local name=$1 log=$CHECKLOGS/$1.log
	shift
	if phase "check $name" "$@" >"$log" 2>&1; then
		passed=$((passed + 1))
		printf 'PASS %s\n' "$name"
	else
		failed=$((failed + 1))
		printf 'FAIL %s (log: %s)\n' "$name" "${log#"$TOP"/}"
		tail -n 15 "$log" | sed 's/^/     | /'
	fi
}

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
# program in the directory is ours).
UPSTREAM=test_execve

boot() { "$TOP/scripts/kselftest.sh" "$1" || true; }

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

# The negative control: the suite runs to the end and nothing ambient
# passes; the ABI is gone.
lacks_ambient() {
	local k=$1
	expect "guest status" "$(cat "$BUILD/results/$k.status" | cut -d' ' -f1)" finished &&
	expect "prctl(PR_CAP_AMBIENT)" "$(abi "$k" prctl_cap_ambient)" EINVAL &&
	expect "CapAmb line" "$(abi "$k" capamb_line)" absent &&
	expect "$UPSTREAM fails" "$(count "$k" FAIL "^$UPSTREAM\$" | awk '{ print ($1 > 0) }')" 1 &&
	expect "our tests passing" "$(count "$k" PASS "^$UPSTREAM\$" | awk '{ print 0 }')$(
		count "$k" PASS "^($UPSTREAM|validate_cap)\$" >/dev/null; echo)" "0" &&
	expect "passes outside $UPSTREAM" "$(awk -F'\t' -v u="$UPSTREAM" \
		'$1 == "PASS" && $2 != u { n++ } END { print n + 0 }' "$BUILD/results/$k.tsv")" 0
}

for k in $FLAVOURS; do
	check "kernel-$k" "$TOP/scripts/kernel.sh" "$k"
done
check payload "$TOP/scripts/payload.sh"
for k in $FLAVOURS; do
	boot "$k" >"$CHECKLOGS/boot-$k.log" 2>&1
done
check kselftest-stock-passes conforms stock
check kselftest-ambient-passes conforms ambient
check kselftest-pre-ambient-fails lacks_ambient pre-ambient

printf '\nphase times (s):\n'
awk -F'\t' '{ printf "  %-34s %7.1f\n", $1, $2 }' "$LOGS/phases.tsv"
printf 'check: %d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
