#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The suite in environments that must not turn a correct kernel into a
# failure (scripts/guest/init sets each up before the runner starts):
#
#   tmp         the suite installed under /tmp, where the tests mount a tmpfs
#   rtprio      RLIMIT_RTPRIO raised, so SCHED_FIFO needs no capability
#   securebits  a securebit (SECBIT_NO_SETUID_FIXUP) set by the parent
#   nopasswd    no /etc/passwd or /etc/group
#   unprivileged  run by an ordinary user (uid 1000, no capabilities): the
#               tests that a user namespace can hold run there, the rest
#               SKIP with the reason; at least half of all must pass
#
#   hostile.sh FLAVOUR...
#
# Boots each flavour once per environment with its usual test initramfs
# (build what is stale first: make kselftest) and prints one line of counts
# per run. Fails if a test fails, nothing passes (unprivileged: fewer than
# half pass, or a SKIP gives no reason), or a guest does not finish.
# Results: build/results/FLAVOUR-env-ENV.tsv.
. "$(dirname "$0")/lib.sh"

ENVS="tmp rtprio securebits nopasswd unprivileged"
[ $# -gt 0 ] || die "usage: hostile.sh FLAVOUR..." "name stock, ambient or upstream"

bad=0
for k in "$@"; do
	check_flavour "$k"
	IMAGE=$OBJ/$k/arch/x86/boot/bzImage
	payload=$BUILD/payload
	[ "$k" = upstream ] && payload=$BUILD/payload-upstream
	[ -f "$IMAGE" ] && [ -f "$payload/initramfs.cpio.gz" ] ||
		die "no kernel or initramfs for $k" "run make kselftest KERNEL=$k first"
	for e in $ENVS; do
		name=$k-env-$e
		# A failing test makes vm.sh fail: the counts below judge the run.
		VM_APPEND="ambient.env=$e" "$TOP/scripts/vm.sh" "$name" "$IMAGE" \
			"$payload/initramfs.cpio.gz" >"$LOGS/hostile-$name.log" 2>&1 || true
		refuse_unproven "$name"
		if ! grep -q "^@@ env $e\$" "$LOGS/vm-$name.log" 2>/dev/null; then
			echo "hostile[$k $e]: the guest did not set up the environment (log: build/logs/vm-$name.log)"
			bad=1
			continue
		fi
		st=$(cat "$BUILD/results/$name.status" 2>/dev/null || echo "no status")
		read -r pass fail skip mute < <(awk -F'\t' '{ n[$1]++ }
			$1 == "SKIP" && $4 == "" { mute++ } END {
			print n["PASS"] + 0, n["FAIL"] + 0, n["SKIP"] + 0, mute + 0 }' \
			"$BUILD/results/$name.tsv" 2>/dev/null || echo "0 0 0 0")
		printf 'hostile[%s %s]: %d passed, %d failed, %d skipped (%s)\n' \
			"$k" "$e" "$pass" "$fail" "$skip" "$st"
		short=0
		if [ "$e" = unprivileged ]; then
			[ $((2 * pass)) -ge $((pass + fail + skip)) ] && [ "$mute" -eq 0 ] || short=1
			[ $short -eq 0 ] || echo "hostile[$k $e]: fewer than half passed, or $mute SKIPs give no reason"
		fi
		if [ "$fail" -ne 0 ] || [ "$pass" -eq 0 ] || [ $short -ne 0 ] ||
			[ "${st%% *}" != finished ]; then
			awk -F'\t' '$1 == "FAIL" { print "  FAIL " $2 ": " $3 }' \
				"$BUILD/results/$name.tsv" 2>/dev/null || true
			bad=1
		fi
	done
done
[ $bad -eq 0 ] || die "a test failed, or a run did not finish, in a hostile environment (above)" \
	"make the test adapt or SKIP with the reason; logs: build/logs/vm-FLAVOUR-env-ENV.log"
