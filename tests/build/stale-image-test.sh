#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regression test of the stale boot image (docs/setup.md, "Which objects
# ccache may serve"): the mechanism with the old and the new compiler
# command, the premise of scripts/ccache-gcc.sh, the parser of the guest's
# notes, and with --guard the boot guard itself (docs/checks.md).
#
#   tests/build/stale-image-test.sh            the mechanism, the
#                                              wrapper's premise, no kernel
#   tests/build/stale-image-test.sh --guard    also the boot guard, on the
#                                              stock and ambient kernels
#                                              (make kernel for both, make
#                                              payload)
#
# Prints "ok N - CASE" / "not ok N - CASE"; exits non-zero on any "not ok".
. "$(dirname "$0")/../../scripts/lib.sh"
set +e

n=0 failures=0
result() {	# result CASE STATUS [WHY]
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1${3:+: $3}"
		failures=$((failures + 1))
	fi
}

command -v ccache >/dev/null || die "ccache is not installed" "run make deps"
work=$BUILD/tests/stale-image
{ rm -rf "$work" && mkdir -p "$work"; } || die "cannot create $work" "check the free space"

# compile COMPILER...: piggy.S as Kbuild assembles it (dependencies with
# -MMD, which depend mode needs), through COMPILER, into a cache of this
# test's own; prints the 4 bytes the object carries.
compile() {
	(cd "$work" && CCACHE_DIR=$work/ccache CCACHE_DEPEND=1 \
		"$@" -Wp,-MMD,.piggy.o.d -c -o piggy.o piggy.S) >/dev/null 2>&1 || {
		echo "compile failed"
		return
	}
	objdump -s -j .rodata "$work/piggy.o" | awk 'END { print $NF }'
}

# two builds: two "compressed kernels" of the same length
# stale COMPILER...: what the second build's object carries
stale() {
	rm -rf "$work/ccache"
	printf '.section .rodata\n.globl input_data\ninput_data:\n.incbin "vmlinux.bin.gz"\n' \
		>"$work/piggy.S"
	printf AAAA >"$work/vmlinux.bin.gz"
	compile "$@" >/dev/null
	printf BBBB >"$work/vmlinux.bin.gz"
	compile "$@"
}

got=$(stale ccache gcc)
result "the old compiler command (ccache gcc, depend mode) serves the first build's data: the bug reproduces" \
	"$([ "$got" = AAAA ] && echo 0 || echo 1)" \
	"the second object holds $got, not the stale AAAA; if ccache now sees .incbin in depend mode, scripts/ccache-gcc.sh may no longer be needed"
got=$(stale "$TOP/scripts/ccache-gcc.sh")
result "scripts/ccache-gcc.sh gives the second build its own data" \
	"$([ "$got" = BBBB ] && echo 0 || echo 1)" "the object holds $got, not BBBB"

# sources without .incbin, C and assembler, are still cached
for src in plain.c plain.S; do
	rm -rf "$work/ccache"
	case $src in
	*.c) echo 'int x;' ;;
	*.S) printf '.data\n.globl x\nx: .long 1\n' ;;
	esac >"$work/$src"
	for _ in 1 2; do
		(cd "$work" && CCACHE_DIR=$work/ccache CCACHE_DEPEND=1 \
			"$TOP/scripts/ccache-gcc.sh" -Wp,-MMD,.plain.o.d -c -o plain.o "$src") >/dev/null 2>&1
	done
	hits=$(CCACHE_DIR=$work/ccache ccache --print-stats 2>/dev/null |
		awk '$1 ~ /^direct_cache_hit$/ { print $2 }')
	result "scripts/ccache-gcc.sh still caches $src (second compile a hit)" \
		"$([ "${hits:-0}" -ge 1 ] && echo 0 || echo 1)" "ccache counted ${hits:-0} hits"
done

# The wrapper reads only the source named on the command line: in the x86
# kernel trees no file but a .c or .S source may use .incbin (the
# generators of such sources, Makefiles and scripts/, aside).
for t in stock ambient upstream; do
	if [ ! -e "$SRC/$t/.git" ]; then
		[ "${1:-}" != --guard ] || result "build/src/$t exists" 1 "run make tree"
		continue
	fi
	found=$(git -C "$SRC/$t" grep -l incbin -- . ':(exclude)*.c' ':(exclude)*.S' \
		':(exclude)tools/' ':(exclude)Documentation/' ':(exclude)scripts/' \
		':(exclude)*Makefile*' ':(exclude,glob)arch/[!x]*/**' ':(exclude,glob)arch/x[!8]*/**' 2>&1)
	rc=$?
	case $rc in
	1) result "no file of build/src/$t but a .c or .S source uses .incbin" 0 ;;
	0) result "no file of build/src/$t but a .c or .S source uses .incbin" 1 "$(paste -sd' ' <<<"$found")" ;;
	*) result "no file of build/src/$t but a .c or .S source uses .incbin" 1 "git grep failed: $found" ;;
	esac
done

# The guest's notes: two notes (the build ID second), names and
# descriptors padded to 4 bytes; a truncated descriptor gives nothing.
note() {	# note NAMEHEX TYPE DESCHEX: one note, hex, little-endian
	local n=$((${#1} / 2)) d=$((${#3} / 2)) name=$1 desc=$3
	while [ $((${#name} % 8)) -ne 0 ]; do name=${name}00; done
	while [ $((${#desc} % 8)) -ne 0 ]; do desc=${desc}00; done
	printf '%02x000000%02x000000%02x000000%s%s' "$n" "$d" "$2" "$name" "$desc"
}
id=0123456789abcdef0123456789abcdef01234567
notes="$(note 4c696e757800 6 010203)$(note 474e5500 3 "$id")"
printf '@@ kernel-notes %s\n' "$notes" >"$work/notes.log"
got=$(booted_id "$work/notes.log")
result "booted_id finds the build ID after another note" "$([ "$got" = "$id" ] && echo 0 || echo 1)" "got '$got'"
printf '@@ kernel-notes %s\n' "${notes:0:$((${#notes} - 8))}" >"$work/notes.log"
got=$(booted_id "$work/notes.log")
result "booted_id gives nothing for a truncated build ID" "$([ -z "$got" ] && echo 0 || echo 1)" "got '$got'"
got=$(booted_id "$work/no-such.log")
result "booted_id gives nothing for a missing log" "$([ -z "$got" ] && echo 0 || echo 1)" "got '$got'"

if [ "${1:-}" = --guard ]; then
	stock=$OBJ/stock/arch/x86/boot/bzImage ambient=$OBJ/ambient/arch/x86/boot/bzImage
	initrd=$BUILD/payload/initramfs.cpio.gz
	for f in "$stock" "$ambient" "$initrd"; do
		[ -f "$f" ] || die "no ${f#"$TOP"/}" "run make kernel KERNEL=stock, KERNEL=ambient and make payload"
	done
	sid=$(build_id "$OBJ/stock/vmlinux") aid=$(build_id "$OBJ/ambient/vmlinux")
	result "stock and ambient have build IDs, and they differ" \
		"$([ -n "$sid" ] && [ -n "$aid" ] && [ "$sid" != "$aid" ] && echo 0 || echo 1)" "stock $sid, ambient $aid"

	out=$(KVMLINUX='' "$TOP/scripts/identity.sh" "$stock" 2>&1)
	result "identity.sh: stock's image carries stock's kernel" $? "$out"
	out=$(KVMLINUX=$OBJ/ambient/vmlinux "$TOP/scripts/identity.sh" "$stock" 2>&1)
	rc=$?
	result "identity.sh: stock's image claimed as ambient's build is refused, both IDs named" \
		"$([ $rc -ne 0 ] && grep -q "$sid" <<<"$out" && grep -q "$aid" <<<"$out" && echo 0 || echo 1)" "$out"

	# The planted mismatch: boot stock's bzImage claiming ambient's vmlinux.
	name=identity-planted
	rm -f "$LOGS/vm-$name.log" "$LOGS/vm-$name.log.unproven" "$BUILD/results/$name".*
	out=$(KVMLINUX=$OBJ/ambient/vmlinux VM_MODE=probe VM_TIMEOUT=60 \
		"$TOP/scripts/vm.sh" "$name" "$stock" "$initrd" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed -n 's/^/    | /; /wrong kernel\|error:/p'
	result "vm.sh: a boot of stock's image claimed as ambient's stops, naming the booted ($sid) and the built ($aid) ID" \
		"$([ $rc -ne 0 ] && grep -q "runs build ID $sid (booted" <<<"$out" && grep -q "has build ID $aid" <<<"$out" && echo 0 || echo 1)" \
		"exit $rc"
	result "vm.sh: that boot leaves no results and status wrong-kernel" \
		"$([ ! -e "$BUILD/results/$name.tsv" ] && [ "$(cat "$BUILD/results/$name.status" 2>/dev/null)" = wrong-kernel ] &&
			[ -f "$LOGS/vm-$name.log.unproven" ] && [ ! -e "$LOGS/vm-$name.log" ] && echo 0 || echo 1)"
	out=$(KVMLINUX='' VM_MODE=probe VM_TIMEOUT=60 "$TOP/scripts/vm.sh" identity-true "$stock" "$initrd" 2>&1)
	rc=$?
	result "vm.sh: the same boot with stock's own vmlinux passes, booted ID $sid" \
		"$([ $rc -eq 0 ] && grep -q "identity: $sid (booted" <<<"$out" && echo 0 || echo 1)" "$out"
fi

echo "stale-image: $((n - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
