#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The standalone series for today's upstream: the ambient branch's
# selftest, documentation and MAINTAINERS commits, carried over to Linux
# 7.2 (tag upstream) with a three-way merge, exported to
# upstream/kselftest-docs/ with the cover letter filled from its
# cover-letter.txt.
#
#   upstream-series.sh           write upstream/kselftest-docs/*.patch
#   upstream-series.sh --check   fail if they differ from what would be written
#
# The suite and the documentation are thus written once, on the ambient
# branch; what differs on 7.2 (the context of MAINTAINERS, of the guide's
# index) is resolved by git, and a conflict stops with the commit and file.
#
# The KUnit cases are the exception: on 6.12 (the last patch of series/)
# they make a new security/commoncap_test.c, on 7.2 they extend the one
# mainline has.  kunit/*.patch holds the 7.2 patch, applied after the
# picks; the cases in it must be the same text as on the ambient branch.
. "$(dirname "$0")/lib.sh"

series_vars upstream
fixed_identity
wt=$SRC/upstream-pick
tmp=$BUILD/upstream-export
[ -f "$S_COVER" ] || die "${S_COVER#"$TOP"/} is missing" "restore it from git"
git_ -C "$SRC/stock" rev-parse -q --verify upstream >/dev/null ||
	die "no tag upstream" "run make tree"

# The standalone commits of the ambient branch, oldest first.
picks=
for c in $(git_ -C "$SRC/ambient" rev-list --reverse pre-ambient..ambient); do
	git_ -C "$SRC/ambient" diff-tree --no-commit-id --name-only -r "$c" |
		standalone_files && picks="$picks $c"
done
[ -n "$picks" ] || die "the ambient branch has no selftest or documentation commit" "run make tree"

# maintainers_redo COMMIT: MAINTAINERS as the tree has it, plus the F:
# lines that COMMIT adds, each in its section in sorted order (the order
# scripts/parse-maintainers.pl keeps): MAINTAINERS moves too fast upstream
# for the context of a 6.12 hunk to match.
maintainers_redo() {
	git_ -C "$SRC/ambient" show "$1:MAINTAINERS" >"$tmp.theirs" &&
	git_ -C "$SRC/ambient" diff-tree -p "$1" -- MAINTAINERS |
		sed -n 's/^+\(F:\t.*\)$/\1/p' >"$tmp.added" &&
	git_ -C "$wt" show HEAD:MAINTAINERS >"$tmp.ours" || return 1
	python3 -c '
import sys
theirs, added, ours, out = sys.argv[1:]
def section_of(lines, want):
	head = None
	for i, l in enumerate(lines):
		if i and lines[i - 1] == "\n":
			head = l
		if l == want:
			return head
lines = open(ours).readlines()
tl = open(theirs).readlines()
for a in open(added).read().splitlines():
	head = section_of(tl, a + "\n")
	if head is None or head not in lines:
		sys.exit("section of %r not found" % a)
	i = lines.index(head) + 1
	while lines[i] != "\n" and not (lines[i].startswith("F:") and lines[i] > a + "\n"):
		i += 1
	while lines[i - 1] != "\n" and not lines[i - 1].startswith(("F:", "S:", "L:", "M:", "R:", "T:", "W:", "B:", "C:", "P:", "Q:")):
		i -= 1
	if a + "\n" not in lines:
		lines.insert(i, a + "\n")
open(out, "w").writelines(lines)
' "$tmp.theirs" "$tmp.added" "$tmp.ours" "$wt/MAINTAINERS"
}

lock upstream-pick
add_sparse_worktree "$wt" upstream
reset_worktree "$wt" upstream
git_ -C "$wt" cherry-pick --abort >/dev/null 2>&1 || true
for c in $picks; do
	if ! git_ -C "$wt" cherry-pick --allow-empty "$c" >"$LOGS/upstream-pick.log" 2>&1 &&
	   ! { [ "$(git_ -C "$wt" diff --name-only --diff-filter=U)" = MAINTAINERS ] &&
	       maintainers_redo "$c" && git_ -C "$wt" add MAINTAINERS &&
	       GIT_EDITOR=true git_ -C "$wt" cherry-pick --continue >>"$LOGS/upstream-pick.log" 2>&1; }; then
		files=$(git_ -C "$wt" diff --name-only --diff-filter=U | paste -sd' ' || true)
		git_ -C "$wt" cherry-pick --abort >/dev/null 2>&1 || true
		die "'$(git_ -C "$SRC/ambient" log -1 --format=%s "$c")' does not carry over to Linux 7.2 (conflict in: ${files:-see $LOGS/upstream-pick.log})" \
		    "make the change apply to both trees, or rebase by hand on tag upstream and adapt this script"
	fi
done

# kunit/'s patches, after the picks (made on them).
kpatches=$(ls "$TOP"/kunit/[0-9]*.patch 2>/dev/null || true)
[ -n "$kpatches" ] || die "kunit/ holds no patch" "restore kunit/*.patch from git"
# shellcheck disable=SC2086 # a list of files
apply_patches "$wt" $kpatches

# cases_of: the KUnit cases of the commoncap_test.c on stdin, without the
# suite around them (from their introductory comment to the case table).
cases_of() {
	awk '/^ \* The capability transformations of user ID changes/ { on = 1; print prev }
		/^static struct kunit_case/ { on = 0 }
		on { print } { prev = $0 }'
}
git_ -C "$SRC/ambient" show ambient:security/commoncap_test.c | cases_of >"$tmp.cases.6.12" ||
	die "the ambient branch has no security/commoncap_test.c" "run make tree"
cases_of <"$wt/security/commoncap_test.c" >"$tmp.cases.7.2" ||
	die "kunit/'s patches leave no security/commoncap_test.c on 7.2" "check kunit/*.patch"
[ "$(wc -l <"$tmp.cases.7.2")" -ge 100 ] ||
	die "security/commoncap_test.c on 7.2 lacks the KUnit cases' introductory comment" \
	    "upstream-series finds the cases from \" * The capability transformations of user ID changes\" on"
if ! diff -u "$tmp.cases.6.12" "$tmp.cases.7.2" >"$tmp.cases.diff"; then
	sed -n 1,30p "$tmp.cases.diff" >&2
	die "the KUnit cases of kunit/ differ from those of the ambient branch's last patch" \
	    "make the same change in both (series/ through build/src/ambient, kunit/ through git format-patch)"
fi
rm -f "$tmp".cases.*

rm -rf "$tmp"
mkdir -p "$tmp"
git_ -C "$wt" -c user.name="$(author_name)" -c user.email="$(author_email)" \
	format-patch -q --cover-letter --zero-commit --no-signature --full-index \
	--base=upstream -o "$tmp" upstream..HEAD
fill_cover "$tmp" "$S_COVER"

if [ "${1:-}" = --check ]; then
	if ! diff -ru -x cover-letter.txt "$S_DIR" "$tmp" >"$tmp.diff" 2>&1; then
		head -40 "$tmp.diff" >&2
		die "upstream/kselftest-docs/ is stale against the ambient branch and its cover letter" \
		    "run make upstream-series and commit the result"
	fi
	msg "upstream/kselftest-docs/ matches the ambient branch ($(echo $picks | wc -w) patches on tag upstream)"
	exit 0
fi
rm -f "$S_DIR"/[0-9]*.patch
cp "$tmp"/*.patch "$S_DIR"/
msg "exported $(echo $picks | wc -w) patches carried over and $(echo $kpatches | wc -w) from kunit/ to upstream/kselftest-docs/"
