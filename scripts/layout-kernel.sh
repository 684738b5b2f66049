#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark's layout control: pre-ambient and one never-called function
# in security/commoncap.c, as large as what the series adds to that file's
# .text (its KUnit cases included: they are linked into the ambient kernel
# that the benchmark measures). The control differs from pre-ambient in
# where code lies and nothing else, so what the benchmark measures between
# the two is the floor below which a difference between kernels is the
# noise of code layout, not a cost.
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

# text FLAVOUR: the size of .text in FLAVOUR's security/commoncap.o.
text() {
	size -A "$OBJ/$1/security/commoncap.o" | awk '$1 == ".text" { print $2 }'
}
pad=$(($(text ambient) - $(text pre-ambient))) ||
	die "cannot read the size of security/commoncap.o" "run make kernel KERNEL=ambient"
[ "$pad" -gt 0 ] || die "the series adds no code to $FILE ($pad bytes)" \
	"check build/obj/ambient/security/commoncap.o"

add_worktree "$WT" pre-ambient
[ "$(git -C "$WT" rev-parse HEAD)" = "$(git -C "$WT" rev-parse pre-ambient)" ] ||
	reset_worktree "$WT" pre-ambient
{
	git -C "$WT" show "pre-ambient:$FILE" &&
		cat <<-EOF

		/*
		 * Never called: $pad bytes of code that move what the linker places
		 * after them as the ambient series does (a benchmark's layout control).
		 */
		noinline void cap_layout_control(void);
		noinline void cap_layout_control(void)
		{
			asm volatile(".skip $pad, 0x90");
		}
		EOF
} >"$WT/$FILE.new" || die "cannot write build/src/layout/$FILE" "check the free space"
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
got=$(($(size -A "$LOBJ/security/commoncap.o" | awk '$1 == ".text" { print $2 }') - $(text pre-ambient)))
grep -q ' cap_layout_control$' "$LOBJ/System.map" ||
	die "cap_layout_control is not in the layout kernel" "read $LOG"
msg "layout control: .text of commoncap.o $got bytes larger than pre-ambient's (the series: $pad)"
