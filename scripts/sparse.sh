#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sparse (C=2) and W=1 on every object whose source the series touches,
# in pre-ambient and in ambient; fail on any warning ambient has that
# pre-ambient lacks. Line numbers are ignored in the comparison, since the
# series moves code.
. "$(dirname "$0")/lib.sh"

command -v sparse >/dev/null || die "sparse is missing" "run make deps"
objs=$(touched_sources | sed 's/\.c$/.o/')
[ -n "$objs" ] || die "the series touches no kernel C file" "nothing to check"
# A source that another one #includes (commoncap_test.c, built into
# commoncap.o under its KUnit option) has no object of its own; its code
# is checked within that object (ambient's configuration enables it).
kept=
for o in $objs; do
	c=${o%.o}.c
	if grep -qsF "#include \"${c##*/}\"" "$SRC/ambient/${c%/*}"/*.c; then
		echo "skipped: $c (included into another file of ${c%/*}/, not an object)"
	else
		kept="$kept $o"
	fi
done
objs=$kept
echo "objects: $(echo $objs)"

warnings() {	# warnings FLAVOUR: normalised warning lines, sorted
	local k=$1 log=$LOGS/sparse-$1.log
	lock "obj-$k"
	[ -f "$OBJ/$k/.config" ] || die "build/obj/$k is not configured" "run make kernel KERNEL=$k"
	# shellcheck disable=SC2086
	kmake "$SRC/$k" "$OBJ/$k" C=2 W=1 $objs >"$log" 2>&1 ||
		die_log "$log" "building $objs with C=2 W=1 failed in $k"
	{ grep -E '(warning|error):' "$log" || true; } |
		sed -E -e "s|$SRC/$k/||g" -e 's|^\.\./||' -e 's/^([^:]+):[0-9]+:[0-9]+:/\1:/' | sort
}

warnings pre-ambient >"$LOGS/sparse-pre-ambient.txt"
warnings ambient >"$LOGS/sparse-ambient.txt"
new=$(comm -13 "$LOGS/sparse-pre-ambient.txt" "$LOGS/sparse-ambient.txt")
echo "warnings: pre-ambient $(wc -l <"$LOGS/sparse-pre-ambient.txt"), ambient $(wc -l <"$LOGS/sparse-ambient.txt"), new $(printf '%s' "$new" | grep -c . || true)"
if [ -n "$new" ]; then
	printf 'new in ambient:\n%s\n' "$new"
	exit 1
fi
