#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Randomized differential test of the capability sets against the
# reference model (tests/guest/difftest.c, tests/model/capmodel.h): build
# what is stale, boot one flavour in QEMU, run the tester as root there.
#
#   difftest.sh FLAVOUR [OPS]      (default 100000 operations)
#
# Prints the operations, sequences, time and mismatches; fails on any
# mismatch, on an error, and when the guest did not finish or printed no
# summary. The console log is build/logs/vm-difftest-FLAVOUR.log.
#
#   SEED=N            the seed (default: from the clock; always printed, so
#                     that a failure can be re-run exactly)
#   KIMAGE=path       boot another bzImage
#   IGNORE_CAPAMB=1   tolerate a missing CapAmb line in /proc/self/status:
#                     a kernel without the ambient set then fails on what
#                     its system calls do, not on the missing line
#   EXPECT_MISMATCH=1 the negative control: fail unless the tester ran to
#                     its end and reported a mismatch
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: difftest.sh FLAVOUR [OPS]}
ops=${2:-100000}
check_flavour "$flavour"
case $ops in
'' | *[!0-9]*) die "OPS must be a number, not '$ops'" "run: difftest.sh FLAVOUR [OPS]" ;;
esac
seed=${SEED:-$(date +%s)}
case $seed in
'' | *[!0-9]*) die "SEED must be a number, not '$seed'" "use SEED=N" ;;
esac
PAYLOAD=${PAYLOAD:-$BUILD/payload}
export PAYLOAD
name=difftest-$flavour
log=$LOGS/vm-$name.log

kernel_image "$flavour"
phase payload "$TOP/scripts/payload.sh"

msg "$flavour: seed $seed, $ops operations"
rc=0
args=$seed,$ops
[ "${IGNORE_CAPAMB:-0}" = 1 ] && args=$args,ignore-capamb
rm -f "$log"
start=$(date +%s.%N)
# vm.sh's kselftest totals mean nothing here: leave them out
out=$(VM_MODE=run VM_APPEND="ambient.run=difftest ambient.args=$args" \
	VM_TIMEOUT=${VM_TIMEOUT:-400} \
	phase "difftest $flavour" "$TOP/scripts/vm.sh" "$name" "$IMAGE" \
	"$PAYLOAD/initramfs.cpio.gz" 2>&1) || rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
grep -v '^kselftest\[' <<<"$out" >&2 || true
refuse_unproven "$name"
status=$(cat "$BUILD/results/$name.status" 2>/dev/null || echo "no status")
[ -f "$log" ] || die "the VM did not start (no $log)" "read the messages above"

# The tester's own lines: the mismatch report (if any) and the summary.
grep -E '^difftest: |^@@ difftest' "$log" | grep -v '^@@ difftest-start' || true
summary=$(grep -m1 '^@@ difftest ops=' "$log" || true)
[ -n "$summary" ] ||
	die_log "$log" "the guest printed no difftest summary" \
	    "read the log; raise VM_TIMEOUT if the guest was only slow"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$summary"; }
printf 'difftest[%s]: seed %s: %s operations in %s sequences (%s execve), %s mismatches, %s errors; %s s in the guest, %.0f s with boot\n' \
	"$flavour" "$seed" "$(field ops)" "$(field seqs)" "$(field execs)" \
	"$(field mismatches)" "$(field errors)" "$(field seconds)" "$secs"

if [ "${EXPECT_MISMATCH:-0}" = 1 ]; then
	[ "${status%% *}" = finished ] ||
		die "the guest did not finish ($status)" "read $log"
	if [ "$(field mismatches)" -eq 0 ] || [ "$(field errors)" != 0 ]; then
		die "expected the tester to report a mismatch on $flavour" \
		    "read $log"
	fi
	msg "$flavour: mismatch reported, as expected"
	exit 0
fi
[ "$(field errors)" = 0 ] ||
	die_log "$log" "the tester reported errors"
[ "$(field mismatches)" = 0 ] ||
	die "the kernel and the model disagree (seed $seed)" \
	    "re-run with SEED=$seed; the reduced sequence is printed above"
[ "$(field ops)" -ge "$ops" ] ||
	die "only $(field ops) of $ops operations ran" "read $log"
[ $rc -eq 0 ] || die "the VM run failed (exit $rc)" "read $log"
