#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict on every patch of a series (the cover letter
# aside), with the checkpatch of the tree the series applies to.
#
#   checkpatch.sh [DIR [TREE]]   DIR: a directory of patches, default series/;
#                                TREE: the kernel tree whose checkpatch.pl
#                                runs, default build/src/pre-ambient
. "$(dirname "$0")/lib.sh"

dir=$(realpath -m "${1:-$TOP/series}")
tree=$(realpath -m "${2:-$SRC/pre-ambient}")
[ -x "$tree/scripts/checkpatch.pl" ] || die "no checkpatch.pl in ${tree#"$TOP"/}" "run make tree"
patches=$(ls "$dir"/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true)
[ -n "$patches" ] || die "${dir#"$TOP"/} holds no patches" "run make series"

# Our trees are imported from Debian's source tarballs, so mainline's
# history is not there and every cited commit id would be "unknown".  Then
# check the form of each reference (commit <12 hex> ("<title>")) in a
# second pass without git, and say that existence was not checked.
opts=() form=()
if [ "$(git -C "$tree" rev-list --count HEAD 2>/dev/null || echo 0)" -lt 1000 ]; then
	opts=(--ignore UNKNOWN_COMMIT_ID)
	form=(--types GIT_COMMIT_ID)
	echo "note: ${tree#"$TOP"/} has no mainline history; cited commit ids are checked for form, not existence"
fi

bad=0
for p in $patches; do
	out=$(cd "$tree" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict "${opts[@]}" "$p" 2>&1 || true)
	if [ ${#form[@]} -gt 0 ]; then
		out2=$(cd "$tree" && PATH=/usr/bin:$PATH GIT_DIR=/nonexistent \
			./scripts/checkpatch.pl --strict "${form[@]}" "$p" 2>&1 || true)
		case $(printf '%s\n' "$out2" | grep '^total:') in
		"total: 0 errors, 0 warnings, 0 checks, "*) ;;
		*) out="$out2"$'\n'"$out" ;;
		esac
	fi
	total=$(printf '%s\n' "$out" | grep -m1 '^total:' || echo 'total: (none)')
	printf '%-64s %s\n' "${p##*/}" "$total"
	case $total in
	"total: 0 errors, 0 warnings, 0 checks, "*) ;;
	*) printf '%s\n' "$out" | sed 's/^/    /'; bad=1 ;;
	esac
done
[ $bad -eq 0 ] || die "checkpatch --strict is not clean (output above)" \
	"fix the patches under build/src/ambient, then make series"
