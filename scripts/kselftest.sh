#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build what is stale for one flavour, boot it and run the capabilities
# kselftests; print one line per test, the totals and the phase times.
#
#   kselftest.sh FLAVOUR        (KIMAGE=path boots another bzImage instead)
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: kselftest.sh FLAVOUR}
check_flavour "$flavour"
: >"$LOGS/phases.tsv.$flavour"

if [ -z "${KIMAGE:-}" ]; then
	phase "kernel $flavour" "$TOP/scripts/kernel.sh" "$flavour"
	image=$OBJ/$flavour/arch/x86/boot/bzImage
else
	image=$KIMAGE
fi
PAYLOAD=${PAYLOAD:-$BUILD/payload${SELFTESTS_OVERLAY:+-overlay}}
export PAYLOAD
phase "payload" "$TOP/scripts/payload.sh"
rc=0
phase "boot+kselftest $flavour" "$TOP/scripts/vm.sh" "$flavour" "$image" \
	"$PAYLOAD/initramfs.cpio.gz" || rc=$?

results=$BUILD/results/$flavour.tsv
if [ -s "$results" ]; then
	awk -F'\t' '{ printf "%-4s %s: %s\n", $1, $2, $3 }' "$results"
fi
grep '^@@ abi:' "$LOGS/vm-$flavour.log" | sed 's/^@@ //' || true
exit $rc
