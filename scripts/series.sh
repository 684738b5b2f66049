#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export the ambient branch as series/ (format-patch with a cover letter
# filled from cover-letter.txt) and refresh the readable copies of what the
# series adds under selftests/ and Documentation/, and MAINTAINERS.snippet
# (the CAPABILITIES entry as the series leaves it).
#
#   series.sh           write them
#   series.sh --check   fail if any of them differs from what would be written
. "$(dirname "$0")/lib.sh"

wt=$SRC/ambient
tmp=$BUILD/series-export
rm -rf "$tmp"
mkdir -p "$tmp/series" "$tmp/selftests" "$tmp/Documentation"

[ -d "$wt" ] || die "no ambient tree" "run make tree"
[ -f "$TOP/cover-letter.txt" ] || die "cover-letter.txt is missing" "restore it from git"
n=$(git -C "$wt" rev-list --count pre-ambient..ambient) ||
	die "build/src/ambient lacks the tag pre-ambient or the branch ambient" "run make tree"
[ "$n" -gt 0 ] || die "branch ambient has no commits on pre-ambient" "nothing to export"

# An RFC: the set is upstream already, so this is for review, not merging
# (b4 writes it so; make send gives b4 the same prefix).
git -C "$wt" -c user.name="$(author_name)" -c user.email="$(author_email)" \
	format-patch -q --subject-prefix="PATCH RFC" --cover-letter --zero-commit --no-signature --full-index \
	--base=pre-ambient -o "$tmp/series" pre-ambient..ambient

fill_cover "$tmp/series" "$TOP/cover-letter.txt"

# Readable copies: the files the series adds (not the kernel files it edits).
git -C "$wt" diff --name-only --diff-filter=A pre-ambient..ambient |
while read -r f; do
	case $f in
	tools/testing/selftests/capabilities/*)
		dst=$tmp/selftests/${f#tools/testing/selftests/capabilities/} ;;
	Documentation/*)
		dst=$tmp/$f ;;
	*) continue ;;
	esac
	mkdir -p "$(dirname "$dst")"
	git -C "$wt" show "ambient:$f" >"$dst"
done

git -C "$wt" show ambient:MAINTAINERS |
	awk '/^CAPABILITIES$/ { on = 1 } on && /^$/ { on = 0 } on' >"$tmp/MAINTAINERS.snippet"

if [ "${1:-}" = --check ]; then
	bad=0
	if ! diff -u "$TOP/MAINTAINERS.snippet" "$tmp/MAINTAINERS.snippet"; then
		msg "MAINTAINERS.snippet is stale against the ambient branch"
		bad=1
	fi
	for d in series selftests Documentation; do
		if ! diff -ru "$TOP/$d" "$tmp/$d" >"$tmp/$d.diff" 2>&1; then
			msg "$d/ is stale against the ambient branch:"
			head -20 "$tmp/$d.diff" >&2
			bad=1
		fi
	done
	[ $bad -eq 0 ] || die "series/, selftests/, Documentation/ or MAINTAINERS.snippet is stale" \
		"run make series and commit the result"
	msg "series/, selftests/ and Documentation/ match the ambient branch ($n patches)"
	exit 0
fi

for d in series selftests Documentation; do
	rm -rf "${TOP:?}/$d"
	cp -r "$tmp/$d" "$TOP/$d"
done
cp "$tmp/MAINTAINERS.snippet" "$TOP/MAINTAINERS.snippet"
"$TOP/scripts/tree.sh" --adopt
msg "exported $n patches to series/ and refreshed selftests/ and Documentation/"
