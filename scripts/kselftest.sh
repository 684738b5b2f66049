#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build what is stale for one flavour, boot it and run the capabilities
# kselftests; print one line per test, the totals and the phase times.
#
#   kselftest.sh FLAVOUR        (KIMAGE=path boots another bzImage instead;
#                                KCONFIG=debug boots the debug build)
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: kselftest.sh FLAVOUR}
check_flavour "$flavour"
name=$(build_name "$flavour")
# upstream runs the suite as the standalone series leaves it on 7.2
suite=ambient
[ "$flavour" = upstream ] && suite=upstream
if [ "$suite" = upstream ]; then
	PAYLOAD=${PAYLOAD:-$BUILD/payload-upstream${SELFTESTS_OVERLAY:+-overlay}}
else
	PAYLOAD=${PAYLOAD:-$BUILD/payload${SELFTESTS_OVERLAY:+-overlay}}
fi
export PAYLOAD
times=$LOGS/phases-kselftest-$name.tsv
: >"$times"

# phase appends to $LOGS/phases.tsv; keep this run's lines apart as well.
run() {
	local rc=0
	phase "$@" || rc=$?
	tail -n 1 "$LOGS/phases.tsv" >>"$times"
	return $rc
}

kernel_image "$flavour" run
run payload "$TOP/scripts/payload.sh" "$suite"
rc=0
run "boot+kselftest $name" "$TOP/scripts/vm.sh" "$name" "$IMAGE" \
	"$PAYLOAD/initramfs.cpio.gz" || rc=$?

results=$BUILD/results/$name.tsv
[ -s "$results" ] && awk -F'\t' '{ printf "%-4s %s: %s\n", $1, $2, $3 }' "$results"
grep '^@@ abi:' "$LOGS/vm-$name.log" | sed 's/^@@ //' || true
[ -s "$results" ] && awk -F'\t' -v k="$name" '{ n[$1]++ } END {
	printf "kselftest[%s]: %d passed, %d failed, %d skipped\n", k,
		n["PASS"], n["FAIL"], n["SKIP"] }' "$results"
awk -F'\t' '{ printf "  %-28s %6.1f s\n", $1, $2 }' "$times"
exit $rc
