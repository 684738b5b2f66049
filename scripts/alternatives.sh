#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The first design, kept as a tested alternative: a global mask
# /proc/sys/kernel/cap_inheritable (alternatives/sysctl-cap-inheritable/).
#
#   alternatives.sh            run it, then write the table into README.md
#                              and cover-letter.txt (and refresh series/)
#   alternatives.sh --check    run it, and fail unless README.md and
#                              cover-letter.txt hold the table just measured
#
# 1. checkpatch --strict on the alternative's patches
# 2. applies them on pre-ambient in build/src/alt-sysctl (redone only when
#    the patches or pre-ambient change)
# 3. builds its bzImage in build/obj/alt-sysctl with pre-ambient's .config
#    (ALT_JOBS make jobs, default: the number of CPUs)
# 4. builds a small initramfs: busybox, the alternative's kselftest and
#    tests/guest/compare-designs
# 5. boots it (VM alt-sysctl): the kselftest, then the comparison scenario
# 6. boots the ambient kernel (VM alt-ambient): the comparison scenario
# 7. makes the tables from the two console logs: build/alternatives/table.md
#    (for README.md) and table.txt (for the cover letter)
#
# Exits non-zero when a step fails, the kselftest fails, a guest did not
# report every row, or (--check) a committed table differs.
. "$(dirname "$0")/lib.sh"

PATCHES=$TOP/alternatives/sysctl-cap-inheritable
WT=$SRC/alt-sysctl
AOBJ=$OBJ/alt-sysctl
OUT=$BUILD/alternatives
PAY=$OUT/payload
HDR=$BUILD/uapi
STAMP=$SRC/.alt-sysctl.stamp
KLOG=$LOGS/kernel-alt-sysctl.log
ALT_JOBS=${ALT_JOBS:-$(jobs)}
mode=${1:-write}
case $mode in
write | --check) ;;
*) die "unknown argument '$mode'" "run: alternatives.sh [--check]" ;;
esac

export GIT_COMMITTER_NAME="A. U. Thor" GIT_COMMITTER_EMAIL="author@example.org"
git_() { git -c advice.detachedHead=false -c gc.auto=0 "$@"; }

lock alt-sysctl
mkdir -p "$OUT"

# ---- 2. the worktree with the series applied ----
apply_series() {
	local want rec_hash='' rec_head='' head p out
	git_ -C "$SRC/stock" rev-parse -q --verify pre-ambient >/dev/null ||
		die "no pre-ambient tag" "run make tree"
	want=$( { git_ -C "$SRC/stock" rev-parse pre-ambient;
		  cat "$PATCHES"/[0-9]*.patch; } | sha1sum | cut -c1-40)
	if [ ! -d "$WT" ]; then
		git_ -C "$SRC/stock" worktree prune
		git_ -C "$SRC/stock" worktree add -q --detach "$WT" pre-ambient ||
			die "cannot add the worktree build/src/alt-sysctl" "run make tree"
	fi
	[ -f "$STAMP" ] && read -r rec_hash rec_head <"$STAMP"
	head=$(git_ -C "$WT" rev-parse HEAD)
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
	git_ -C "$WT" checkout -q --detach pre-ambient ||
		die "cannot check out pre-ambient in build/src/alt-sysctl" "see the message above"
	for p in "$PATCHES"/[0-9]*.patch; do
		case ${p##*/} in 0000-*) continue ;; esac
		if ! out=$(git_ -C "$WT" am --committer-date-is-author-date "$p" 2>&1); then
			git_ -C "$WT" am --abort >/dev/null 2>&1 || true
			printf '%s\n' "$out" | grep -E '^(error|Patch failed|Applying)' >&2 || true
			die "patch does not apply: ${p#"$TOP"/}" \
			    "rebase it on pre-ambient in build/src/alt-sysctl and export it again"
		fi
	done
	echo "$want $(git_ -C "$WT" rev-parse HEAD)" >"$STAMP"
}

# ---- 3. the alternative kernel ----
build_kernel() {
	local cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	export KBUILD_BUILD_TIMESTAMP="2000-01-01" KBUILD_BUILD_USER=ambient KBUILD_BUILD_HOST=workbench
	[ -f "$OBJ/pre-ambient/.config" ] || "$TOP/scripts/kernel.sh" pre-ambient olddefconfig
	mkdir -p "$AOBJ"
	# reconfigure only when pre-ambient's configuration changed, so that
	# an unchanged tree costs no rebuild
	if ! cmp -s "$OBJ/pre-ambient/.config" "$AOBJ/.config.pre-ambient"; then
		cp "$OBJ/pre-ambient/.config" "$AOBJ/.config" || die "cannot copy pre-ambient's .config"
		make -C "$WT" O="$AOBJ" CC="$cc" HOSTCC=gcc olddefconfig >"$KLOG" 2>&1 ||
			die "olddefconfig failed (log: $KLOG)" "read the log"
		cp "$OBJ/pre-ambient/.config" "$AOBJ/.config.pre-ambient"
	fi
	msg "building alt-sysctl (-j$ALT_JOBS)"
	make -C "$WT" O="$AOBJ" CC="$cc" HOSTCC=gcc -j"$ALT_JOBS" bzImage >>"$KLOG" 2>&1 || {
		grep -E 'error:|warning:|Error [0-9]|undefined reference' "$KLOG" | head -20 >&2
		die "building alt-sysctl failed (log: $KLOG)" "fix the patch in build/src/alt-sysctl"
	}
	! grep -E 'security/commoncap.c.*warning:' "$KLOG" >&2 ||
		die "security/commoncap.c compiles with warnings (log: $KLOG)" "fix them"
}

# The ambient kernel: built by make kernel; built here only when missing.
ambient_image() {
	[ -f "$OBJ/ambient/arch/x86/boot/bzImage" ] || "$TOP/scripts/kernel.sh" ambient
}

# ---- 4. the initramfs ----
build_payload() {
	local root=$PAY/root a inc=
	local sel=$WT/tools/testing/selftests
	[ -x /bin/busybox ] || die "/bin/busybox is missing" "run make deps"
	[ -d "$HDR/include" ] && inc="-isystem $HDR/include"
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,usr/libexec/ambient}
	cp /bin/busybox "$root/bin/busybox"
	for a in $(/bin/busybox --list-full); do
		[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
	done
	cp "$TOP/scripts/guest/init" "$root/init"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' \
		>"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	# the kselftest Makefile's flags; built from its own directory so that
	# its messages name the file, not where the tree is
	# shellcheck disable=SC2086
	(cd "$sel/capabilities" && gcc -static -O2 -g -std=gnu99 -Wall $inc \
		-o "$root/usr/libexec/ambient/cap_inheritable_sysctl_test" \
		cap_inheritable_sysctl_test.c) >"$LOGS/payload-alt.log" 2>&1 ||
		die "building the kselftest failed (log: $LOGS/payload-alt.log)" "read the log"
	# shellcheck disable=SC2086
	gcc -static -O2 -Wall -Wextra -Werror $inc \
		-o "$root/usr/libexec/ambient/compare-designs" \
		"$TOP/tests/guest/compare-designs.c" >>"$LOGS/payload-alt.log" 2>&1 ||
		die "building tests/guest/compare-designs.c failed (log: $LOGS/payload-alt.log)" "read the log"
	cat >"$root/usr/libexec/ambient/alt-run" <<-'EOF'
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
	chmod 755 "$root/usr/libexec/ambient/alt-run"
	(cd "$root" && find . | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -n -1 >"$PAY/initramfs.cpio.gz.new" ||
		die "cannot write $PAY/initramfs.cpio.gz" "check the free space"
	mv "$PAY/initramfs.cpio.gz.new" "$PAY/initramfs.cpio.gz"
}

# ---- 5, 6. the boots ----
boot() {
	local name=$1 image=$2 steps=$3
	VM_MODE=run VM_APPEND="ambient.run=alt-run ambient.args=$steps" \
		"$TOP/scripts/vm.sh" "$name" "$image" "$PAY/initramfs.cpio.gz"
}

rc=0
phase "alt checkpatch" "$TOP/scripts/checkpatch.sh" "$PATCHES" || rc=1
phase "alt apply" apply_series
phase "alt kernel" build_kernel
phase "alt ambient image" ambient_image
phase "alt payload" build_payload
phase "alt boot sysctl" boot alt-sysctl "$AOBJ/arch/x86/boot/bzImage" selftest,compare || rc=1
phase "alt boot ambient" boot alt-ambient "$OBJ/ambient/arch/x86/boot/bzImage" compare || rc=1


# ---- 7. the tables, from the console logs ----
slog=$LOGS/vm-alt-sysctl.log
alog=$LOGS/vm-alt-ambient.log
grep -E '^(not )?ok [0-9]+ mask\.|^# (Totals|PASSED|FAILED)' "$slog" >"$OUT/selftest.txt" || true
for d in sysctl ambient; do
	log=$LOGS/vm-alt-$d.log
	grep -q "^@@ cd-design $d\$" "$log" || {
		msg "the alt-$d guest did not run the $d design (log: $log)"
		rc=1
	}
	grep -P '^@@ cd-row\t' "$log" | cut -f2- >"$OUT/rows-$d.tsv" || true
	grep '^@@ cd-error' "$log" >&2 && rc=1
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
# pP and pE in one cell of the plain-text table: one name where they agree
sets() {
	local p e
	p=$(value "$1" "$2" pP)
	e=$(value "$1" "$2" pE)
	if [ "$p" = "$e" ]; then printf '%s' "$p"; else printf 'P=%s E=%s' "$p" "$e"; fi
}
has() { case ",$(field "$1" "$2" "$3")," in *",$4,"*|*,all,*) return 0 ;; esac; return 1; }
yesno() { if "$@"; then echo yes; else echo no; fi; }

# KEY, then its label in the README's table, then in the cover letter's
rows="P	P: uid 65534, holds CAP_NET_RAW only to start H	P    uid 65534, starts H
H	H: the helper, a plain program P executes	H    plain, run by P
a	(a) a plain program H runs	(a)  plain, run by H
b	(b) a set-user-ID-root program H runs	(b)  set-user-ID root, by H
c	(c) a program with fP = fE = CAP_CHOWN that H runs	(c)  fP = fE = chown, by H
Q	Q: an unrelated process of uid 1000 holding CAP_NET_RAW (pP, pE) for itself	Q    uid 1000, for itself
d	(d) a plain program Q runs	(d)  plain, run by Q"
keys=$(printf '%s\n' "$rows" | cut -f1)
label() { printf '%s\n' "$rows" | awk -F'\t' -v k="$1" -v n="$2" '$1 == k { print $n }'; }

missing=0
for k in $keys; do
	for d in ambient sysctl; do
		[ -n "$(field "$k" "$d" pP)" ] || missing=$((missing + 1))
	done
done
[ "$missing" -eq 0 ] || { msg "$missing rows missing from the guests' reports"; rc=1; }

passed=$(grep -c '^ok [0-9]* mask\.' "$OUT/selftest.txt" || true)
failed=$(grep -c '^not ok [0-9]* mask\.' "$OUT/selftest.txt" || true)
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ] || rc=1

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

# The cover letter's table: plain text, no blank line (the blank line after
# it ends it), its first line starting "  make alternatives".
{
	printf '  %-28s  %-21s %s\n' "make alternatives" "ambient set" "sysctl mask"
	printf '  %-28s  %-14s %-6s %-14s %s\n' "" "pP, pE" "raw" "pP, pE" "raw"
	for k in $keys; do
		printf '  %-28s  %-14s %-6s %-14s %s\n' "$(label "$k" 3)" \
			"$(sets "$k" ambient)" "$(value "$k" ambient raw)" \
			"$(sets "$k" sysctl)" "$(value "$k" sysctl raw)"
	done
	printf "  the mask's own kselftest: %s passed, %s failed\n" "$passed" "$failed"
} >"$OUT/table.txt"
cat "$OUT/table.md"
echo
cat "$OUT/table.txt"
[ $rc -eq 0 ] || die "the alternative's run failed (logs: $slog, $alog)" "read the logs"

# ---- the committed copies ----
# block MODE FILE NEW: compare (--check) or replace (write) the generated
# block of FILE with the text of NEW. In Markdown the block lies between
# the two marker comments; in the cover letter it starts at the line
# beginning "  make alternatives" and ends before the next blank line.
block() {
	python3 - "$@" <<-'PY'
	import difflib, os, sys
	mode, path, new = sys.argv[1:]
	lines = open(path).read().splitlines(keepends=True)
	text = open(new).read()
	if path.endswith(".md"):
	    begin = "<!-- begin: written by make alternatives -->\n"
	    end = "<!-- end: written by make alternatives -->\n"
	    if begin not in lines or end not in lines:
	        sys.exit(f"{path}: no '{begin.strip()}' ... '{end.strip()}' markers")
	    i = lines.index(begin) + 1
	    j = lines.index(end, i)
	    text = "\n" + text + "\n"
	else:
	    start = [k for k, l in enumerate(lines) if l.startswith("  make alternatives")]
	    if not start:
	        sys.exit(f"{path}: no line starting '  make alternatives'")
	    i = start[0]
	    j = next((k for k in range(i, len(lines)) if not lines[k].strip()), len(lines))
	old = "".join(lines[i:j])
	if old == text:
	    sys.exit(0)
	if mode == "--check":
	    sys.stdout.writelines(difflib.unified_diff(
	        old.splitlines(keepends=True), text.splitlines(keepends=True),
	        path + " (committed)", path + " (measured)"))
	    sys.exit(1)
	lines[i:j] = [text]
	open(path, "w").write("".join(lines))
	print(f"{os.path.relpath(path)}: table updated")
	PY
}

stale=0
block "$mode" "$TOP/README.md" "$OUT/table.md" || stale=1
block "$mode" "$TOP/cover-letter.txt" "$OUT/table.txt" || stale=1
if [ "$mode" = --check ]; then
	[ $stale -eq 0 ] ||
		die "the committed alternatives table differs from the one just measured" \
		    "run make alternatives, read the diff, and commit README.md, cover-letter.txt and series/"
	msg "README.md and cover-letter.txt hold the table just measured"
else
	[ $stale -eq 0 ] || die "cannot write the tables" "see the message above"
	"$TOP/scripts/series.sh"
fi
