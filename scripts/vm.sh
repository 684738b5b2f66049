#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel with the test initramfs under QEMU and collect the results.
#
#   vm.sh NAME BZIMAGE INITRAMFS
#
# VM_MODE=run VM_APPEND="ambient.run=PROG ambient.args=A,B" runs one of the
# package's guest programs instead of the kselftests (its output is in the
# console log, marked by the program itself). KUnit cases built into the
# kernel (config/kunit.config) run only with VM_MODE=kunit, before /init,
# which then does nothing: kunit.enable=0 keeps them out of every other
# boot, so that a WARN they trigger cannot stand in for the suite's verdict.
# VM_QEMU adds QEMU options (scripts/bench.sh: -icount, which makes the
# guest's clock count its instructions).
#
# Writes the console log to build/logs/vm-NAME.log and the per-test
# results to build/results/NAME.tsv (RESULT<TAB>program<TAB>test, RESULT
# one of PASS FAIL SKIP; a SKIP adds <TAB>reason). Exits non-zero when the
# guest did not finish cleanly: timeout, panic, WARN or BUG (panic_on_warn=1
# turns a WARN into a panic), or a failing kselftest; and, writing no
# results (the console log is moved to vm-NAME.log.unproven), when the
# kernel that ran is not BZIMAGE's build's vmlinux (scripts/identity.sh;
# KVMLINUX names another vmlinux): status wrong-kernel, or unverified when
# that cannot be told, with identity.sh's words in build/results/NAME.identity.
. "$(dirname "$0")/lib.sh"

name=${1:?usage: vm.sh NAME BZIMAGE INITRAMFS}
image=${2:?}
initrd=${3:?}
log=$LOGS/vm-$name.log
results=$BUILD/results/$name.tsv
timeout=${VM_TIMEOUT:-300}
lock "vm-$name"
status=$BUILD/results/$name.status
identity=$BUILD/results/$name.identity
mkdir -p "$BUILD/results"
rm -f "$status" "$identity" "$log.unproven"

command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 is missing" "run make deps (package qemu-system-x86)"
[ -f "$image" ] || die "no kernel image $image" "run make kernel KERNEL=$name"
[ -f "$initrd" ] || die "no initramfs $initrd" "run make payload"
# Which kernel must run: known before the boot, or no boot.
if ! ident=$("$TOP/scripts/identity.sh" --expect "$image" 2>&1); then
	echo unverified >"$status"
	rm -f "$results"	# an earlier boot's are not this one's
	printf '%s\n' "$ident" | tee "$identity" >&2
	die "vm[$name]: cannot tell which kernel $image must run (above)" "as above"
fi

bios=
[ -f /usr/share/qemu/qboot.rom ] && bios="-bios /usr/share/qemu/qboot.rom"
kunit=kunit.enable=0	# every boot but VM_MODE=kunit, the KVM probe's too
[ "${VM_MODE:-}" != kunit ] || kunit=

# qemu ACCEL SECONDS LOG CMDLINE...: boot once, console to LOG; VM_QEMU
# only with the accelerator chosen (the KVM probe runs without it).
qemu() {
	local accel=$1 secs=$2 out=$3 extra=
	shift 3
	[ "$out" = "$log" ] && extra=${VM_QEMU:-}
	# shellcheck disable=SC2086
	timeout -k 5 "$secs" qemu-system-x86_64 -accel "$accel" $bios \
		-m 512 -smp 1 -nographic -no-reboot -net none \
		-kernel "$image" -initrd "$initrd" $extra \
		-append "console=ttyS0 panic=-1 panic_on_warn=1 oops=panic $kunit $*" \
		</dev/null >"$out" 2>&1
}

# KVM is used only when a guest really runs under it: /dev/kvm can exist
# while a KVM guest hangs. The probe's verdict is cached in build/accel.
choose_accel() {
	if [ -n "${ACCEL:-}" ]; then
		echo "$ACCEL"
		return
	fi
	# One probe at a time: guests of two lanes of make check start at once.
	lock accel-probe
	if [ ! -f "$BUILD/accel" ]; then
		local verdict="tcg (no usable /dev/kvm)"
		if [ -w /dev/kvm ]; then
			if qemu kvm 10 "$LOGS/kvm-probe.log" ambient.mode=probe &&
			   grep -q '@@ guest-ready' "$LOGS/kvm-probe.log"; then
				verdict="kvm"
			else
				verdict="tcg (a KVM guest did not start within 10 s)"
			fi
		fi
		echo "$verdict" >"$BUILD/accel.new" && mv "$BUILD/accel.new" "$BUILD/accel"
	fi
	msg "accelerator: $(cat "$BUILD/accel")"
	cut -d' ' -f1 "$BUILD/accel"
}

accel=$(choose_accel)
start=$(date +%s.%N)
rc=0
mode=${VM_MODE:-kselftest}
qemu "$accel" "$timeout" "$log" "ambient.mode=$mode" ${VM_APPEND:-} || rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"

# Nothing of a boot counts unless the kernel that ran is the one that was
# built: the console log of a wrong or unidentified kernel is set aside,
# so that no reader takes its results (lib.sh, refuse_unproven), and the
# run stops.
irc=0
ident=$("$TOP/scripts/identity.sh" "$image" "$log" 2>&1) || irc=$?
if [ $irc -ne 0 ]; then
	if [ $irc -eq 1 ]; then echo wrong-kernel; else echo unverified; fi >"$status"
	printf '%s\n' "$ident" | tee "$identity" >&2
	rm -f "$results"
	mv "$log" "$log.unproven"
	die "vm[$name] $([ $irc -eq 1 ] && echo "booted another build's kernel" || echo "cannot tell which kernel it booted") (above)" \
	    "no result of this boot counts (its console log: $log.unproven); remove the kernel's object directory, rebuild, and report the cause"
fi
msg "$ident"

tap_results "$log" >"$results"

printf 'vm[%s]: %s, %.1f s from start to power-off\n' "$name" "$accel" "$secs" >&2
show_tail() {
	printf -- '--- last 40 console lines (%s) ---\n' "$log" >&2
	tail -n 40 "$log" >&2
	printf -- '---\n' >&2
}
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo timeout >"$status"
	show_tail
	die "the VM did not finish within $timeout s (hung guest or test)" \
	    "read $log; raise VM_TIMEOUT if the guest was only slow"
fi
if grep -qE 'Kernel panic|WARNING: |BUG: |Oops' "$log"; then
	echo splat >"$status"
	show_tail
	die "the kernel reported $(grep -oE 'Kernel panic|WARNING: |BUG: |Oops' "$log" | head -1 | tr -d ': ')" \
	    "read $log for the splat and fix the kernel"
fi
grep -q '^@@ guest-done' "$log" || {
	echo unfinished >"$status"
	show_tail
	die "the guest stopped before finishing (QEMU exit $rc)" "read $log"
}
exit_line=$(grep -m1 -E "^@@ $mode-exit" "$log" || true)
echo "finished ${exit_line##* }" >"$status"
[ "${exit_line##* }" = 0 ] ||
	die "the guest's $mode run exited ${exit_line##* } (a failing test or program)" \
	    "the results above name it; the console log is $log"
