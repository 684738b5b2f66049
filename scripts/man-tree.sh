#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay out the two man pages that the man-pages/ series changes as a small
# git repository under build/man-pages, from Debian's packages:
#
#   man7/capabilities.7   from manpages      (tag base)
#   man2/prctl.2          from manpages-dev  (tag base)
#   man-pages/*.patch     applied on top     (branch main)
#
# The import commit has a fixed identity and date, so the same package
# versions give the same commit id everywhere; the versions are recorded
# in its message and in the file VERSIONS.  Idempotent and quick once
# done; local commits on main are never thrown away.
#
#   man-tree.sh           make the tree (default)
#   man-tree.sh series    write the commits base..main to man-pages/*.patch
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
MAN=$TOP/build/man-pages
SERIES=$TOP/man-pages
# The Debian man pages the series is made against, and their suite.
MANPAGES_PIN=6.03-2
MANPAGES_SUITES=bookworm

me=${0##*/}
msg() { printf '%s: %s\n' "$me" "$*" >&2; }
die() {
	printf '%s: error: %s\n' "$me" "$1" >&2
	[ $# -gt 1 ] && printf '%s: next step: %s\n' "$me" "$2" >&2
	exit 1
}

export GIT_AUTHOR_NAME="Debian manpages" GIT_AUTHOR_EMAIL="manpages@packages.debian.org"
export GIT_COMMITTER_NAME="man-pages workbench" GIT_COMMITTER_EMAIL="workbench@localhost"
export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
git_() { git -C "$MAN" -c gc.auto=0 -c advice.detachedHead=false "$@"; }

patches() { ls "$SERIES"/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true; }
patches_hash() { patches | xargs -r cat | sha1sum | cut -c1-40; }

# unpack PKG PAGE: put PAGE (e.g. man7/capabilities.7) from Debian's PKG,
# fetched by debian-pkg.sh at MANPAGES_PIN, un-gzipped.
unpack() {
	local root=$TOP/build/debian/$1/root
	"$TOP/scripts/debian-pkg.sh" "$1" "$MANPAGES_PIN" $MANPAGES_SUITES || exit 1
	[ -f "$root/usr/share/man/$2.gz" ] ||
		die "$1 has no usr/share/man/$2.gz" "look at what it holds: build/debian/$1/root"
	gzip -dc "$root/usr/share/man/$2.gz" >"$MAN/$2" || die "cannot write $MAN/$2" "check the free space"
	printf '%s %s\n' "$1" "$(cat "$TOP/build/debian/$1/VERSION")" >>"$MAN/VERSIONS"
}

make_base() {
	rm -rf "$MAN"
	mkdir -p "$MAN/man2" "$MAN/man7"
	unpack manpages man7/capabilities.7
	unpack manpages-dev man2/prctl.2
	git_ init -q -b main
	git_ add VERSIONS man2/prctl.2 man7/capabilities.7
	git_ commit -q -F - <<-MSG
	Import capabilities.7 and prctl.2 from Debian

	$(cat "$MAN/VERSIONS")
	MSG
	git_ tag base
	msg "imported $(paste -sd, "$MAN/VERSIONS") as tag base"
}

apply_series() {
	local p
	git_ reset -q --hard base
	for p in $(patches); do
		git_ am -q --committer-date-is-author-date "$p" >/dev/null 2>&1 || {
			git_ am --abort >/dev/null 2>&1 || true
			die "man-pages/${p##*/} does not apply to build/man-pages" \
			    "fix the patch, or reset build/man-pages to base, redo the commits and run make man-series"
		}
	done
	printf '%s %s\n' "$(patches_hash)" "$(git_ rev-parse HEAD)" >"$MAN/.git/series-applied"
	msg "applied $(patches | wc -l) patches from man-pages/ on branch main"
}

tree() {
	git_ rev-parse -q --verify refs/tags/base >/dev/null 2>&1 || make_base
	grep -qx out/ "$MAN/.git/info/exclude" || echo out/ >>"$MAN/.git/info/exclude"
	local head want have="" tip=""
	head=$(git_ rev-parse HEAD)
	want=$(patches_hash)
	[ -f "$MAN/.git/series-applied" ] && { read -r have tip <"$MAN/.git/series-applied" || true; }
	if [ "$head" = "$(git_ rev-parse base)" ] || { [ "$head" = "$tip" ] && [ "$have" != "$want" ]; }; then
		apply_series
	elif [ "$have" != "$want" ] || [ "$head" != "$tip" ]; then
		msg "build/man-pages has commits that differ from man-pages/*.patch; leaving them"
		msg "(make man-series writes them out; git -C build/man-pages reset --hard base drops them)"
	else
		msg "build/man-pages is up to date ($(paste -sd, "$MAN/VERSIONS"), $(patches | wc -l) patches)"
	fi
}

series() {
	local tmpl=$SERIES/cover-letter.txt out cover subject
	[ -f "$tmpl" ] || die "man-pages/cover-letter.txt is missing" "restore it from git"
	[ -n "$(git_ rev-list base..main)" ] ||
		die "build/man-pages has no commits on main after base" "commit the changes there first"
	out=$(mktemp -d "$TOP/build/man-series.XXXXXX")
	# The cover letter takes its sender and date from the committer.
	GIT_COMMITTER_NAME=$(git_ log -1 --format=%an main) \
	GIT_COMMITTER_EMAIL=$(git_ log -1 --format=%ae main) \
	GIT_COMMITTER_DATE=$(git_ log -1 --format=%aI main) \
	git_ format-patch -q --zero-commit --no-signature --cover-letter \
		--to=linux-man@vger.kernel.org \
		--cc='Alejandro Colomar <alx@kernel.org>' \
		--cc=linux-security-module@vger.kernel.org \
		-o "$out" base..main
	cover=$out/0000-cover-letter.patch
	subject=$(head -n 1 "$tmpl")
	awk -v subject="$subject" -v tmpl="$tmpl" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ {
			n = 0
			while ((getline line < tmpl) > 0)
				if (n++ >= 2) print line
			next
		}
		{ print }' "$cover" >"$cover.new"
	mv "$cover.new" "$cover"
	rm -f "$SERIES"/[0-9]*.patch
	mv "$out"/*.patch "$SERIES"/
	rmdir "$out"
	printf '%s %s\n' "$(patches_hash)" "$(git_ rev-parse HEAD)" >"$MAN/.git/series-applied"
	msg "wrote $(patches | wc -l) patches and the cover letter to man-pages/"
}

case ${1:-tree} in
tree) tree ;;
series)
	git_ rev-parse -q --verify refs/tags/base >/dev/null 2>&1 ||
		die "build/man-pages does not exist" "run make man-tree, commit the changes there, then make man-series"
	series ;;
*) die "unknown command '$1'" "use: $me [tree|series]" ;;
esac
