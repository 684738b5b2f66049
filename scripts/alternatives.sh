#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The first design, kept as a tested alternative: a global mask
# /proc/sys/kernel/cap_inheritable (alternatives/sysctl-cap-inheritable/).
#
#   alternatives.sh            run it, then write the table into
#                              docs/design.md
#   alternatives.sh --check    run it, and fail unless docs/design.md holds
#                              the table just measured (it changes nothing
#                              outside build/)
#
# 1. checkpatch --strict on the alternative's patches
# 2. applies them on pre-ambient in build/src/alt-sysctl (redone only when
#    the patches or pre-ambient change)
# 3. builds its bzImage in build/obj/alt-sysctl with pre-ambient's .config,
#    and brings the ambient kernel up to date
# 4. builds a small initramfs: busybox, the alternative's kselftest (with
#    its own Makefile) and tests/guest/compare-designs
# 5. boots it (VM alt-sysctl): the kselftest, then the comparison scenario
# 6. boots the ambient kernel (VM alt-ambient): the comparison scenario
# 7. makes the table from the two console logs, build/alternatives/table.md
#    (for docs/design.md), and checks that the conclusions docs/design.md
#    draws from it hold
#
# Exits non-zero, naming each cause, when a step fails, the kselftest
# fails, a guest did not report every row exactly once, a conclusion no
# longer holds, or (--check) the committed table differs.
# Functions run through phase, where set -e does not apply: every command
# whose failure matters says so with "|| die".
. "$(dirname "$0")/lib.sh"

PATCHES=$TOP/alternatives/sysctl-cap-inheritable
WT=$SRC/alt-sysctl
AOBJ=$OBJ/alt-sysctl
OUT=$BUILD/alternatives
PAY=$OUT/payload
HDR=$BUILD/uapi
STAMP=$SRC/.alt-sysctl.stamp
KLOG=$LOGS/kernel-alt-sysctl.log
PLOG=$LOGS/payload-alt.log
mode=${1:-write}
case $mode in
write | --check) ;;
*) die "unknown argument '$mode'" "run: alternatives.sh [--check]" ;;
esac

export GIT_COMMITTER_NAME="A. U. Thor" GIT_COMMITTER_EMAIL="author@example.org"
git_() { git -c advice.detachedHead=false -c gc.auto=0 "$@"; }

lock alt-sysctl
mkdir -p "$OUT"
fails=()	# one line per cause of failure
fail() { msg "$1"; fails+=("$1"); }

# ---- 2. the worktree with the series applied ----
apply_series() {
	local want rec_hash='' rec_head='' head p out
	git_ -C "$SRC/stock" rev-parse -q --verify pre-ambient >/dev/null ||
		die "no pre-ambient tag" "run make tree"
	want=$( { git_ -C "$SRC/stock" rev-parse pre-ambient &&
		  cat "$PATCHES"/[0-9]*.patch; } | sha1sum | cut -c1-40) ||
		die "cannot read the patches in ${PATCHES#"$TOP"/}" "restore them from git"
	add_worktree "$WT" pre-ambient
	[ -f "$STAMP" ] && read -r rec_hash rec_head <"$STAMP"
	head=$(git_ -C "$WT" rev-parse HEAD) ||
		die "build/src/alt-sysctl is not a usable worktree" \
		    "remove it (git -C build/src/stock worktree remove --force build/src/alt-sysctl) and run again"
	if [ "$rec_hash" = "$want" ]; then
		[ "$head" = "$rec_head" ] ||
			msg "build/src/alt-sysctl has local commits: building them"
		return 0
	fi
	if [ -n "$rec_head" ] && [ "$head" != "$rec_head" ] && [ -z "${FORCE:-}" ]; then
		die "build/src/alt-sysctl has commits that are not in alternatives/sysctl-cap-inheritable/, and the patches changed" \
		    "export them with git format-patch, or drop them with FORCE=1"
	fi
	[ -z "$(git_ -C "$WT" status --porcelain --untracked-files=no)" ] ||
		die "uncommitted changes in build/src/alt-sysctl" \
		    "commit them (and export them) or discard them with git -C build/src/alt-sysctl checkout ."
	msg "applying alternatives/sysctl-cap-inheritable on pre-ambient"
	reset_worktree "$WT" pre-ambient
	for p in "$PATCHES"/[0-9]*.patch; do
		case ${p##*/} in 0000-*) continue ;; esac
		if ! out=$(git_ -C "$WT" am --committer-date-is-author-date "$p" 2>&1); then
			git_ -C "$WT" am --abort >/dev/null 2>&1 || true
			printf '%s\n' "$out" | grep -E '^(error|Patch failed|Applying)' >&2 || true
			die "patch does not apply: ${p#"$TOP"/}" \
			    "rebase it on pre-ambient in build/src/alt-sysctl and export it again"
		fi
	done
	head=$(git_ -C "$WT" rev-parse HEAD) || die "cannot read build/src/alt-sysctl's HEAD" "run make alternatives FORCE=1, or remove build/src/alt-sysctl"
	echo "$want $head" >"$STAMP" || die "cannot write $STAMP" "check the free space"
}

# ---- 3. the kernels ----
build_kernel() {
	if [ ! -f "$OBJ/pre-ambient/.config" ]; then
		"$TOP/scripts/kernel.sh" pre-ambient olddefconfig ||
			die "cannot configure pre-ambient" "read build/logs/kernel-pre-ambient.log"
	fi
	configure_from pre-ambient "$WT" "$AOBJ" "$KLOG"
	msg "building alt-sysctl"
	kmake "$WT" "$AOBJ" bzImage >>"$KLOG" 2>&1 ||
		die_log "$KLOG" "building alt-sysctl failed" "fix the patch in build/src/alt-sysctl"
	! grep -E 'security/commoncap.c.*warning:' "$KLOG" >&2 ||
		die_log "$KLOG" "security/commoncap.c compiles with warnings" \
		    "fix them in build/src/alt-sysctl and export the patch again"
}

# The table must describe the ambient kernel as the branch is now: make
# it (incrementally) rather than trusting whatever bzImage is there.
ambient_image() {
	up_to_date ambient || "$TOP/scripts/kernel.sh" ambient ||
		die "building the ambient kernel failed" "read build/logs/kernel-ambient.log"
}

# ---- 4. the initramfs ----
build_payload() {
	local root=$PAY/root inc=
	local sel=$WT/tools/testing/selftests
	[ -d "$HDR/include" ] && inc="-isystem $HDR/include"
	initramfs_root "$root"
	rm -rf "$PAY/obj"
	mkdir -p "$PAY/obj" || die "cannot create $PAY/obj" "check the free space"
	# with the selftest's own Makefile (so that the patch's change to it is
	# exercised), linked statically like the rest of the initramfs
	make -s -C "$sel/capabilities" OUTPUT="$PAY/obj" KHDR_INCLUDES="$inc" \
		LDFLAGS=-static "$PAY/obj/cap_inheritable_sysctl_test" >"$PLOG" 2>&1 ||
		die_log "$PLOG" "building the kselftest failed"
	cp "$PAY/obj/cap_inheritable_sysctl_test" "$root/usr/libexec/ambient/" ||
		die "cannot copy the kselftest into the initramfs" "check the free space"
	# shellcheck disable=SC2086
	gcc -static -O2 -Wall -Wextra -Werror $inc \
		-o "$root/usr/libexec/ambient/compare-designs" \
		"$TOP/tests/guest/compare-designs.c" >>"$PLOG" 2>&1 ||
		die_log "$PLOG" "building tests/guest/compare-designs.c failed"
	cat >"$root/usr/libexec/ambient/alt-run" <<-'EOF' || die "cannot write alt-run" "check the free space"
	#!/bin/sh
	# run the steps named in the arguments; exit 1 when one failed
	rc=0
	for step in "$@"; do
		case $step in
		selftest) /usr/libexec/ambient/cap_inheritable_sysctl_test ;;
		compare) /usr/libexec/ambient/compare-designs ;;
		*) echo "unknown step $step"; false ;;
		esac
		r=$?
		echo "@@ alt-step $step exit $r"
		[ "$r" -eq 0 ] || rc=1
	done
	exit $rc
	EOF
	chmod 755 "$root/usr/libexec/ambient/alt-run" || die "cannot make alt-run executable" "check the permissions under build/"
	pack_initramfs "$root" "$PAY/initramfs.cpio.gz"
}

# ---- 5, 6. the boots ----
boot() {
	local name=$1 image=$2 steps=$3
	VM_MODE=run VM_APPEND="ambient.run=alt-run ambient.args=$steps" \
		"$TOP/scripts/vm.sh" "$name" "$image" "$PAY/initramfs.cpio.gz"
}

phase "alt checkpatch" "$TOP/scripts/checkpatch.sh" "$PATCHES" ||
	fail "the alternative's patches are not checkpatch --strict clean (see above)"
phase "alt apply" apply_series
phase "alt kernel" build_kernel
phase "alt ambient kernel" ambient_image
phase "alt payload" build_payload
phase "alt boot sysctl" boot alt-sysctl "$AOBJ/arch/x86/boot/bzImage" selftest,compare ||
	fail "the alt-sysctl guest failed (log: build/logs/vm-alt-sysctl.log)"
phase "alt boot ambient" boot alt-ambient "$OBJ/ambient/arch/x86/boot/bzImage" compare ||
	fail "the alt-ambient guest failed (log: build/logs/vm-alt-ambient.log)"

# ---- 7. the tables, from the console logs ----
slog=$LOGS/vm-alt-sysctl.log
grep -E '^(not )?ok [0-9]+ mask\.|^# (Totals|PASSED|FAILED)' "$slog" >"$OUT/selftest.txt" || true
for d in sysctl ambient; do
	log=$LOGS/vm-alt-$d.log
	grep -q "^@@ cd-design $d\$" "$log" 2>/dev/null ||
		fail "the alt-$d guest did not run the $d design (log: build/logs/vm-alt-$d.log)"
	grep -P '^@@ cd-row\t' "$log" 2>/dev/null | cut -f2- >"$OUT/rows-$d.tsv" || true
	! grep '^@@ cd-error' "$log" >&2 2>/dev/null ||
		fail "compare-designs reported errors on the $d kernel (above)"
done

# field KEY DESIGN SET: the value of SET (pP pE pA pI raw uid) in row KEY
field() {
	awk -F'\t' -v k="$1" -v s="$3" '$1 == k {
		for (i = 2; i <= NF; i++) if (index($i, s "=") == 1) print substr($i, length(s) + 2)
	}' "$OUT/rows-$2.tsv"
}
value() { local v; v=$(field "$@"); printf '%s' "${v:-missing}"; }
cell() { printf "\`%s\`" "$(value "$@")"; }
rawcell() {
	case $(field "$1" "$2" raw) in
	yes) printf '**yes**' ;; no) printf 'no' ;; *) printf 'missing' ;;
	esac
}
has() { case ",$(field "$1" "$2" "$3")," in *",$4,"*|*,all,*) return 0 ;; esac; return 1; }
yesno() { if "$@"; then echo yes; else echo no; fi; }

# KEY|its label in the table
rows='P|P: uid 65534, holds CAP_NET_RAW only to start H
H|H: the helper, a plain program P executes
a|(a) a plain program H runs
b|(b) a set-user-ID-root program H runs
c|(c) a program with the file capability CAP_CHOWN (permitted, effective) that H runs
Q|Q: an unrelated process of uid 1000 holding CAP_NET_RAW (pP, pE) for itself
d|(d) a plain program Q runs'
keys=$(printf '%s\n' "$rows" | cut -d'|' -f1)
label() { printf '%s\n' "$rows" | awk -F'|' -v k="$1" -v n="$2" '$1 == k { print $n }'; }

for k in $keys; do
	for d in ambient sysctl; do
		n=$(awk -F'\t' -v k="$k" '$1 == k { n++ } END { print n + 0 }' "$OUT/rows-$d.tsv")
		[ "$n" -eq 1 ] || fail "row $k of the $d design reported $n times, not once"
	done
done

passed=$(grep -c '^ok [0-9]* mask\.' "$OUT/selftest.txt" || true)
failed=$(grep -c '^not ok [0-9]* mask\.' "$OUT/selftest.txt" || true)
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ] ||
	fail "the alternative's kselftest: $passed passed, $failed failed (build/alternatives/selftest.txt)"

# What the prose around the tables concludes, checked against the rows.
claim() {	# claim TEXT CMD...: CMD must succeed
	local text=$1
	shift
	"$@" || fail "no longer measured, but docs/design.md says: $text"
}
no() { ! "$@"; }
claim "the ambient set passes CAP_NET_RAW to H and to (a)" \
	eval 'has H ambient pE net_raw && has a ambient pE net_raw'
claim "the mask passes CAP_NET_RAW to H and to (a)" \
	eval 'has H sysctl pE net_raw && has a sysctl pE net_raw'
claim "under the ambient set, (d) does not get CAP_NET_RAW" no has d ambient pP net_raw
claim "under the mask, (d) gets CAP_NET_RAW" has d sysctl pE net_raw
claim "under the ambient set, (c) holds CAP_CHOWN alone" [ "$(value c ambient pP)" = chown ]
claim "under the mask, (c) gets CAP_NET_RAW as well" has c sysctl pE net_raw
claim "the ambient set is dropped for (b) and (c)" \
	eval '[ "$(value b ambient pA)" = none ] && [ "$(value c ambient pA)" = none ]'

{
	echo "Ambient set: P raises CAP_NET_RAW into pA (kernel \`ambient\`)."
	echo "Sysctl: root writes 13 to /proc/sys/kernel/cap_inheritable (kernel \`alt-sysctl\`)."
	echo
	echo "| process | ambient: pP | pE | pA | raw socket | sysctl: pP | pE | pA | raw socket |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for k in $keys; do
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(label "$k" 2)" \
			"$(cell "$k" ambient pP)" "$(cell "$k" ambient pE)" \
			"$(cell "$k" ambient pA)" "$(rawcell "$k" ambient)" \
			"$(cell "$k" sysctl pP)" "$(cell "$k" sysctl pE)" \
			"$(cell "$k" sysctl pA)" "$(rawcell "$k" sysctl)"
	done
	echo
	echo "\`n/a\`: the kernel has no ambient set. Measured, from the guests' own reports:"
	echo
	echo "- CAP_NET_RAW reaches Q's plain program (d), which nobody asked for:" \
		"ambient $(yesno has d ambient pP net_raw), sysctl $(yesno has d sysctl pP net_raw)"
	echo "- CAP_NET_RAW survives into the file-capability program (c):" \
		"ambient $(yesno has c ambient pP net_raw), sysctl $(yesno has c sysctl pP net_raw)"
	echo "- the plain program (a) can open a raw socket:" \
		"ambient $(value a ambient raw), sysctl $(value a sysctl raw)"
	echo "- the alternative's kselftest: $passed passed, $failed failed"
} >"$OUT/table.md"
cat "$OUT/table.md"
if [ ${#fails[@]} -gt 0 ]; then
	printf '%s\n' "${fails[@]}" | sed 's/^/  - /' >&2
	die "the alternative's run failed for the ${#fails[@]} reasons above" \
	    "read the logs named there; nothing outside build/ was changed"
fi

# ---- the committed copy ----
# block MODE FILE NEW: compare (--check) or replace (write) the block of
# FILE between the two marker comments with the text of NEW. Exit 0: equal
# (or written); 1: they differ (--check); 2: FILE lacks the markers.
block() {
	python3 - "$@" <<-'PY'
	import difflib, os, sys
	mode, path, new = sys.argv[1:]
	name = os.path.relpath(path)
	lines = open(path).read().splitlines(keepends=True)
	text = "\n" + open(new).read() + "\n"
	def broken(why):
	    print(f"{name}: {why}", file=sys.stderr)
	    sys.exit(2)
	begin = "<!-- begin: written by make alternatives -->\n"
	end = "<!-- end: written by make alternatives -->\n"
	if lines.count(begin) != 1 or lines.count(end) != 1:
	    broken(f"wants exactly one '{begin.strip()}' and one '{end.strip()}' line")
	i = lines.index(begin) + 1
	j = lines.index(end)
	if j < i:
	    broken("the end marker comes before the begin marker")
	old = "".join(lines[i:j])
	if old == text:
	    sys.exit(0)
	if mode == "--check":
	    sys.stdout.writelines(difflib.unified_diff(
	        old.splitlines(keepends=True), text.splitlines(keepends=True),
	        name + " (committed)", name + " (measured)"))
	    sys.exit(1)
	lines[i:j] = [text]
	open(path, "w").write("".join(lines))
	print(f"{name}: table updated")
	PY
}

DOC=docs/design.md
rc=0
block "$mode" "$TOP/$DOC" "$OUT/table.md" || rc=$?
case $rc in
0) ;;
1) die "the committed alternatives table differs from the one just measured" \
       "run make alternatives, read the diff, and commit $DOC" ;;
*) die "cannot find the table's place in $DOC (above)" "restore its markers from git" ;;
esac
if [ "$mode" = --check ]; then
	msg "$DOC holds the table just measured"
fi
