#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark's layout control: pre-ambient and one never-called function
# in security/commoncap.c, as large as what the series adds to that file's
# .text (its KUnit cases included: they are linked into the ambient kernel
# that the benchmark measures), placed after the file's includes. The
# control differs from pre-ambient in where code lies and nothing else, so
# what the benchmark measures between the two is the floor below which a
# difference between kernels is the noise of code layout, not a cost.
#
#   layout-kernel.sh    build/obj/layout/arch/x86/boot/bzImage, from the
#                       worktree build/src/layout (pre-ambient, the file
#                       changed and not committed); configured as pre-ambient
. "$(dirname "$0")/lib.sh"

WT=$SRC/layout
LOBJ=$OBJ/layout
LOG=$LOGS/kernel-layout.log
FILE=security/commoncap.c

lock obj-layout
for k in pre-ambient ambient; do
	"$TOP/scripts/kernel.sh" "$k" ||
		die "building the $k kernel failed" "run make kernel KERNEL=$k and read its log"
done

# text OBJDIR: the size of .text in OBJDIR's security/commoncap.o.
text() {
	local n
	n=$(size -A "$1/security/commoncap.o" 2>/dev/null | awk '$1 == ".text" { print $2 }') || true
	[[ $n =~ ^[0-9]+$ ]] ||
		die "cannot read the size of ${1#"$TOP"/}/security/commoncap.o" \
		    "rebuild it: make kernel KERNEL=${1##*/}"
	echo "$n"
}
amb=$(text "$OBJ/ambient")
pre=$(text "$OBJ/pre-ambient")
pad=$((amb - pre))
[ "$pad" -gt 0 ] || die "the series adds no code to $FILE ($pad bytes)" \
	"check build/obj/ambient/security/commoncap.o"

add_worktree "$WT" pre-ambient
# pre-ambient as it is, but for FILE (a stray edit elsewhere is dropped)
if [ "$(git -C "$WT" rev-parse HEAD)" != "$(git -C "$WT" rev-parse pre-ambient)" ] ||
   git -C "$WT" status --porcelain --untracked-files=no | grep -qv " $FILE\$"; then
	reset_worktree "$WT" pre-ambient
fi
# The function goes before the file's first function, after its includes,
# so that the file's own code moves as well as what follows it.
git -C "$WT" show "pre-ambient:$FILE" | awk -v pad="$pad" '
	{ lines[NR] = $0; if ($0 ~ /^#include /) last = NR }
	END {
		if (!last) exit 1
		for (i = 1; i <= NR; i++) {
			print lines[i]
			if (i != last) continue
			print ""
			print "/*"
			print " * Never called: " pad " bytes of code that move the code after them"
			print " * as the ambient series does (a benchmark\047s layout control)."
			print " */"
			print "noinline void cap_layout_control(void);"
			print "noinline void cap_layout_control(void)"
			print "{"
			print "\tasm volatile(\".skip " pad ", 0x90\");"
			print "}"
		}
	}' >"$WT/$FILE.new" ||
	die "cannot write build/src/layout/$FILE (or pre-ambient's has no #include)" \
	    "check the free space and build/src/layout"
# rewritten only when it changes, so that a second run rebuilds nothing
if cmp -s "$WT/$FILE.new" "$WT/$FILE"; then
	rm -f "$WT/$FILE.new"
else
	mv "$WT/$FILE.new" "$WT/$FILE"
fi

configure_from pre-ambient "$WT" "$LOBJ" "$LOG"
msg "building the layout control (pre-ambient, $pad bytes more code in $FILE)"
kmake "$WT" "$LOBJ" bzImage >>"$LOG" 2>&1 ||
	die_log "$LOG" "building the layout control failed" "read its log"
got=$(($(text "$LOBJ") - pre))
grep -q ' cap_layout_control$' "$LOBJ/System.map" ||
	die "cap_layout_control is not in the layout kernel" "read $LOG"
msg "layout control: .text of commoncap.o $got bytes larger than pre-ambient's (the series: $pad)"
