#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regression test of the stale boot image: ccache in depend mode served an
# old arch/x86/boot/compressed/piggy.o, whose only input beside its source
# is the compressed kernel it pulls in with .incbin, whenever a new
# compressed kernel had the old one's length, and the bzImage then carried
# another build's kernel (scripts/ccache-gcc.sh).
#
#   tests/build/stale-image-test.sh    the mechanism, and the wrapper's premise
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

# a source without .incbin is still cached
rm -rf "$work/ccache"
echo 'int x;' >"$work/plain.c"
for _ in 1 2; do
	(cd "$work" && CCACHE_DIR=$work/ccache CCACHE_DEPEND=1 \
		"$TOP/scripts/ccache-gcc.sh" -Wp,-MMD,.plain.o.d -c -o plain.o plain.c) >/dev/null 2>&1
done
hits=$(CCACHE_DIR=$work/ccache ccache --print-stats 2>/dev/null |
	awk '$1 ~ /^direct_cache_hit$/ { print $2 }')
result "scripts/ccache-gcc.sh still caches other sources (second compile a hit)" \
	"$([ "${hits:-0}" -ge 1 ] && echo 0 || echo 1)" "ccache counted ${hits:-0} hits"

# The wrapper reads only the source named on the command line: no header
# of either kernel tree may use .incbin.
for t in stock upstream; do
	if [ -d "$SRC/$t/.git" ] || [ -f "$SRC/$t/.git" ]; then
		hdrs=$(git -C "$SRC/$t" grep -l incbin -- '*.h' 2>/dev/null | paste -sd' ')
		result "no header of build/src/$t uses .incbin" "$([ -z "$hdrs" ] && echo 0 || echo 1)" "$hdrs"
	fi
done

echo "stale-image: $((n - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
