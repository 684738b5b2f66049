#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KUnit tests of security/commoncap.c, run as upstream runs them:
# tools/testing/kunit/kunit.py run --arch=x86_64, configured from
# kunit/commoncap.kunitconfig and booted in QEMU under TCG.
#
#   kunit.sh [TREE]   TREE: ambient (default, as make kunit's KERNEL;
#                     6.12 with series/, whose last patch adds the
#                     cases), upstream (Linux 7.2 with the standalone
#                     series, whose last patch is kunit/'s), stock
#                     (Debian's 6.12 with the code of that last patch
#                     alone, in build/src/kunit-stock), or mutant
#                     (build/src/mutant as scripts/kunit-mutants.sh leaves
#                     it; only from there, which holds its lock).
#                     pre-ambient has no ambient set: the cases cannot
#                     build there, and the planted mutants are their
#                     negative control.
#
#   kunit.sh --boot NAME [BZIMAGE]
#                     no build: boot the flavour kernel NAME (ambient,
#                     upstream; config/kunit.config builds the cases in
#                     where the tree has them), or BZIMAGE under that name,
#                     in the kernel's KUnit mode (scripts/vm.sh VM_MODE=kunit:
#                     KUnit runs the cases before /init, which does nothing
#                     else), and read their KTAP from the console log
#                     build/logs/vm-kunit-NAME.log with kunit.py parse.
#                     make check's way: it costs one boot, no kernel build.
#
# Builds in the tree's .kunit (kunit.py's default), reached as
# build/kunit/TREE: a direct subdirectory, so that Kbuild names every
# source relative to it and ccache hands objects from one tree to the
# next (docs/setup.md).  Prints the result of every case and row and the
# build and run times; writes build/kunit/TREE.result ("ran passed failed
# skipped crashed") and build/kunit/TREE.cases (the line of every case
# and row); --boot: build/kunit/boot-NAME.{result,cases}.  Fails when a
# case fails or none ran.  KUNIT_LOG names kunit.py's log (default
# build/logs/kunit-TREE.log, --boot: build/logs/kunit-boot-NAME.log).
. "$(dirname "$0")/lib.sh"

# summarise JSON RESULT CASES: from kunit.py's JSON, one line per case,
# or per row of a parameterised case, then the counts; RESULT gets "ran
# passed failed skipped crashed", CASES every line.  Fails unless every
# case that ran passed or skipped.
summarise() {
	python3 - "$@" <<'EOF'
import json, sys

counts = {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}
lines = []

def walk(group, path):
    for case in group["test_cases"]:
        counts[case["status"]] = counts.get(case["status"], 0) + 1
        lines.append("%-5s %s" % (case["status"], ": ".join(path + [case["name"]])))
    for sub in group["sub_groups"]:
        walk(sub, path + [sub["name"]])

top = json.load(open(sys.argv[1]))
for suite in top["sub_groups"]:
    walk(suite, [suite["name"]])
print("\n".join(lines))
open(sys.argv[3], "w").write("".join(l + "\n" for l in lines))
ran = sum(counts.values())
print("kunit: %d ran, %d passed, %d failed, %d skipped, %d crashed"
      % (ran, counts["PASS"], counts["FAIL"], counts["SKIP"], counts["ERROR"]))
open(sys.argv[2], "w").write("%d %d %d %d %d\n" % (ran, counts["PASS"], counts["FAIL"],
                                                   counts["SKIP"], counts["ERROR"]))
sys.exit(0 if ran and counts["PASS"] + counts["SKIP"] == ran else 1)
EOF
}

# finish LOG: fail, naming LOG, when no case ran or one failed.
finish() {
	local log=$1 ran
	read -r ran _ <"$result"
	[ "$ran" -gt 0 ] || die_log "$log" "no KUnit case ran${crash:+ ($crash)}" \
		"read the guest's console at the end of the log"
	[ $rc -eq 0 ] || die "KUnit cases failed${crash:+ or the guest stopped ($crash)} (above; kunit.py's report: ${log#"$TOP"/})" \
		"read the failed expectations in the log; fix security/commoncap.c or the test (kunit/ for 7.2, the last patch of series/ for 6.12)"
}
crash_in() {	# crash_in LOG: the first sign of a guest that stopped early
	grep -m1 -oE 'Kernel panic[^]]*|timed out|BUG: [^]]*|Oops[^]]*|could not parse test results' "$1" || true
}

fixed_identity
rc=0
if [ "${1:-}" = --boot ]; then
	name=${2:?usage: kunit.sh --boot NAME [BZIMAGE]}
	image=${3:-}
	case $name in upstream*) ktree=$SRC/upstream ;; *) ktree=$SRC/ambient ;; esac
	vmlog=$LOGS/vm-kunit-$name.log
	out=$BUILD/kunit/boot-$name
	log=${KUNIT_LOG:-$LOGS/kunit-boot-$name.log}
	json=$out.json result=$out.result cases=$out.cases
	mkdir -p "$BUILD/kunit"
	rm -f "$json" "$result" "$cases"	# nothing of an earlier run is read as this one's
	initrd=$BUILD/payload/initramfs.cpio.gz
	if [ -z "$image" ]; then	# a flavour: build what is stale
		check_flavour "$name"
		kernel_image "$name" || die "building $name failed (above)" "run make kernel KERNEL=$name"
		image=$IMAGE
		"$TOP/scripts/payload.sh" >"$LOGS/payload.log" 2>&1 ||
			die_log "$LOGS/payload.log" "building the payload failed" "run make payload"
	fi
	[ -f "$image" ] || die "no kernel image ${image#"$TOP"/}" "name an existing bzImage"
	[ -f "$initrd" ] || die "no test initramfs" "run make payload"
	[ -x "$ktree/tools/testing/kunit/kunit.py" ] || die "no kunit.py in ${ktree#"$TOP"/}" "run make tree"
	rm -f "$vmlog"
	# vm.sh fails when the guest stops early (a case that WARNs panics it,
	# panic_on_warn=1): then fewer cases report, and the counts say so.
	VM_MODE=kunit VM_TIMEOUT=${VM_TIMEOUT:-150} \
		"$TOP/scripts/vm.sh" "kunit-$name" "$image" "$initrd" >"$out.vm" 2>&1 || true
	refuse_unproven "kunit-$name"
	[ -f "$vmlog" ] || die_log "$out.vm" "the guest did not start" "read the log"
	# KUnit prints its KTAP before /init starts: the parser reads up to
	# the guest's first "@@" line.
	sed '/^@@ /q' "$vmlog" >"$out.console" || die "cannot write ${out#"$TOP"/}.console" "check the free space"
	if ! grep -q 'KTAP version' "$out.console"; then
		grep -q '^@@ guest-ready' "$out.console" &&
			die "${image#"$TOP"/} printed no KTAP: it was built without config/kunit.config" \
			    "scripts/kernel.sh adds it only where the tree has security/commoncap_test.c (ambient, upstream; not stock or pre-ambient)"
		# the guest stopped before KUnit printed anything: nothing ran
		echo "0 0 0 0 0" >"$result"
		: >"$cases"
		crash=$(crash_in "$vmlog")
		finish "$vmlog"
	fi
	python3 "$ktree/tools/testing/kunit/kunit.py" parse --json="$json" "$out.console" \
		>"$log" 2>&1 || rc=$?
	crash=$(crash_in "$vmlog")
	[ -s "$json" ] && grep -q '"status"' "$json" ||
		die_log "$log" "kunit.py parse has no result of any case in the boot of $name" \
			"read the KTAP in ${vmlog#"$TOP"/}"
	summarise "$json" "$result" "$cases" || rc=1
	finish "$log"
	exit 0
fi
tree=${1:-ambient}
wt=$SRC/$tree
case $tree in
upstream | ambient) lock "kunit-$tree" ;;
stock)
	lock kunit-stock
	wt=$SRC/kunit-stock
	kpatch=$(kunit_patch)
	add_worktree "$wt" stock
	# The patch's code alone (its MAINTAINERS hunk needs patch 4's line);
	# the stamp names the patch and the base, so a new stock tag resets
	# the tree too.
	stamp="$(hash_files "$kpatch") $(git -C "$wt" rev-parse stock)"
	if [ "$(cat "$wt/.kunit-patch" 2>/dev/null || true)" != "$stamp" ]; then
		reset_worktree "$wt" stock
		rm -f "$wt/security/commoncap_test.c"	# the file the patch adds
		git -C "$wt" apply --exclude=MAINTAINERS "$kpatch" ||
			die "${kpatch#"$TOP"/} does not apply to stock" \
			    "rebase it so that its code does not depend on patches 1-5"
		echo "$stamp" >"$wt/.kunit-patch"
	fi ;;
mutant)
	[ -n "${KUNIT_MUTANT_CALLER:-}" ] ||
		die "the mutant tree is scripts/kunit-mutants.sh's (it holds its lock)" \
		    "run make kunit-mutants [MUTANTS=NAME]" ;;
pre-ambient)
	die "pre-ambient has no ambient set, so the KUnit cases cannot build there" \
	    "run make kunit-mutants: the planted mutants are the cases' negative control" ;;
*) die "unknown tree '$tree'" "use upstream, ambient, stock or mutant" ;;
esac
out=$BUILD/kunit/$tree
obj=$wt/.kunit
kunitconfig=$TOP/kunit/commoncap.kunitconfig
log=${KUNIT_LOG:-$LOGS/kunit-$tree.log}
json=$out.json
result=$out.result
cases=$out.cases
rm -f "$json" "$result" "$cases"	# nothing of an earlier run is read as this one's

[ -f "$kunitconfig" ] || die "kunit/commoncap.kunitconfig is missing" "restore it from git"
[ -f "$wt/security/commoncap_test.c" ] ||
	die "${wt#"$TOP"/} has no security/commoncap_test.c" \
	    "run make tree (the KUnit patch is the last of series/ and of upstream/kselftest-docs/)"
[ -x "$wt/tools/testing/kunit/kunit.py" ] || die "no kunit.py in ${wt#"$TOP"/}" "run make tree"

# A panic reboots the guest (panic=-1), which ends QEMU (-no-reboot) at once
# rather than at kunit.py's timeout.
# kunit.py starts QEMU with "-accel kvm -accel hvf -accel tcg"; opening
# /dev/kvm can hang on a host that has it without working KVM, and neither
# --qemu_args nor --qemu_config can take an -accel away.  A qemu-system-x86_64
# of our own, first in PATH, replaces every -accel with "-accel tcg".
bin=$out.bin
qemu=$(PATH=${PATH//"$bin:"/} command -v qemu-system-x86_64) ||
	die "qemu-system-x86_64 is not installed" "run make deps"
[ -L "$out" ] || rm -rf "$out"	# an earlier layout's build directory
mkdir -p "$bin" "$obj" && ln -sfn "$obj" "$out" ||
	die "cannot create ${obj#"$TOP"/}" "check the free space"
cat >"$bin/qemu-system-x86_64.new" <<EOF
#!/bin/bash
# Written by scripts/kunit.sh: QEMU for kunit.py, under TCG alone.
args=()
while [ \$# -gt 0 ]; do
	case \$1 in
	-accel) shift; [ \$# -eq 0 ] || shift ;;
	*) args+=("\$1"); shift ;;
	esac
done
printf '%s\n' "\${args[*]} -accel tcg" >"$bin/qemu.cmdline"
# the kernel that kunit.py boots must be the one it built (no guest
# program runs here to report it: the image is checked); scripts/kunit.sh
# reads why not from $bin/identity
for ((i = 0; i < \${#args[@]} - 1; i++)); do
	[ "\${args[i]}" = -kernel ] || continue
	"$TOP/scripts/identity.sh" "\${args[i + 1]}" >"$bin/identity" 2>&1 && exec "$qemu" "\${args[@]}" -accel tcg
	cat "$bin/identity" >&2
	exit 1
done
echo "no -kernel among QEMU's arguments: nothing to check the identity of" | tee "$bin/identity" >&2
exit 1
EOF
if ! { chmod +x "$bin/qemu-system-x86_64.new" &&
	mv "$bin/qemu-system-x86_64.new" "$bin/qemu-system-x86_64"; }; then
	die "cannot write build/kunit/$tree.bin/qemu-system-x86_64" "check the free space"
fi

need_space 3000
cc=$(kernel_cc)
msg "kunit.py run --arch=x86_64 in ${wt#"$TOP"/} (log: ${log#"$TOP"/})"
rm -f "$bin/qemu.cmdline" "$bin/identity" "$out.status"
(cd "$wt" && PATH=$bin:$PATH \
	python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
		--kunitconfig="$kunitconfig" --build_dir=.kunit \
		--make_options "CC=$cc" --make_options "HOSTCC=$cc" \
		--jobs "$(ncpus)" --timeout 300 --json="$json" \
		--kernel_args panic=-1) >"$log" 2>&1 || rc=$?

grep -q 'Running tests with' "$log" ||
	die_log "$log" "kunit.py stopped before the tests ran (configuration or build)" \
		"read the log; a kunitconfig option missing from .config names a dependency to add to kunit/commoncap.kunitconfig"
[ -f "$bin/qemu.cmdline" ] ||
	die "kunit.py did not start QEMU through build/kunit/$tree.bin/qemu-system-x86_64" \
	    "check how tools/testing/kunit/kunit_kernel.py names the QEMU binary, and adapt scripts/kunit.sh"
msg "QEMU ran with: $(grep -o -- '-accel [a-z]*' "$bin/qemu.cmdline" | paste -sd' ')"
if ! grep -q '^identity: ' "$bin/identity" 2>/dev/null; then
	echo wrong-kernel >"$out.status"
	why=$(sed -n 's/^identity.sh: error: //p;/^no -kernel/p' "$bin/identity" 2>/dev/null | head -n 1)
	die "kunit.py's image is not proven to be the kernel it built: ${why:-no identity check ran}" \
	    "no KUnit result of this run counts; remove ${obj#"$TOP"/}, run again, and report the cause"
fi
msg "$(cat "$bin/identity")"
# kunit.py writes its JSON even when the guest printed nothing.
crash=$(crash_in "$log")
if [ ! -s "$json" ] || ! grep -q '"status"' "$json"; then
	die_log "$log" "kunit.py has no result of any case${crash:+ ($crash)}" \
		"read the guest's console at the end of the log"
fi
summarise "$json" "$result" "$cases" || rc=1

# kunit.py: "Elapsed time: Ts total, Cs configuring, Bs building, Rs running"
times=$(sed -n 's/^.*Elapsed time: \([0-9.]*\)s total, \([0-9.]*\)s configuring, \([0-9.]*\)s building, \([0-9.]*\)s running.*/\1 \2 \3 \4/p' "$log" | tail -n 1)
if [ -n "$times" ]; then
	read -r t_total t_conf t_build t_run <<<"$times"
	printf 'kunit: build %.0f s, run %.0f s (configure %.0f s, total %.0f s) on %s CPUs\n' \
		"$t_build" "$t_run" "$t_conf" "$t_total" "$(ncpus)"
fi
finish "$log"
