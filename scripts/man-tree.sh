#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay out the man pages that the man-pages/ series changes as a small git
# repository under build/man-pages, from Debian's packages, in the layout
# of upstream's tree:
#
#   man/man7/capabilities.7              from manpages      (tag base)
#   man/man2/prctl.2                     from manpages-dev  (tag base)
#   man/man2const/PR_CAP_AMBIENT*.2const from manpages-dev  (tag base)
#   man-pages/*.patch                    applied on top     (branch main)
#
# Debian installs the pages gzipped, the 2const pages among man2's, and
# link pages as symbolic links; they are imported un-gzipped, each in its
# upstream directory, a link as upstream's one-line ".so" page.  The
# import commit has a fixed identity and date, so the same package
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
# The Debian man pages the series is made against, and their suite:
# Debian's 6.20-2 is upstream's man-pages-6.20.
MANPAGES_PIN=6.20-2
MANPAGES_SUITES=sid
# The pages imported, by package (upstream names: NAME.SECTION).
PAGES_manpages="capabilities.7"
PAGES_manpages_dev="prctl.2 PR_CAP_AMBIENT.2const PR_CAP_AMBIENT_RAISE.2const
	PR_CAP_AMBIENT_LOWER.2const PR_CAP_AMBIENT_IS_SET.2const
	PR_CAP_AMBIENT_CLEAR_ALL.2const"

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

# fetch PKG: Debian's PKG at MANPAGES_PIN, unpacked by debian-pkg.sh (which
# takes the newest version, loudly, once the pin has left the archive).
fetch() {
	"$TOP/scripts/debian-pkg.sh" "$1" "$MANPAGES_PIN" $MANPAGES_SUITES || exit 1
}

# versions: what VERSIONS holds for the packages now unpacked.
versions() {
	local pkg
	for pkg in manpages manpages-dev; do
		printf '%s %s\n' "$pkg" "$(cat "$TOP/build/debian/$pkg/VERSION")"
	done
}

# import_page PKG PAGE: put PAGE (NAME.SECTION, e.g. PR_CAP_AMBIENT.2const) from
# Debian's PKG into man/manSECTION/PAGE, un-gzipped. Debian keeps the
# 2const pages in man2, and some pages uncompressed; a page that is a
# symbolic link becomes upstream's link page, ".so manSECTION/TARGET".
import_page() {
	local pkg=$1 page=$2 sect=${2##*.} root=$TOP/build/debian/$1/root/usr/share/man
	local out=$MAN/man/man$sect/$page dirs=man$sect dir f target
	[ "${sect:0:1}" = "$sect" ] || dirs="$dirs man${sect:0:1}"
	mkdir -p "${out%/*}" || die "cannot create ${out%/*}" "check the free space"
	for dir in $dirs; do
		for f in "$root/$dir/$page.gz" "$root/$dir/$page"; do
			[ -e "$f" ] || [ -L "$f" ] || continue
			if [ -L "$f" ]; then
				target=$(basename "$(readlink "$f")" .gz)
				printf '.so man%s/%s\n' "${target##*.}" "$target" >"$out"
			elif [ "${f%.gz}" != "$f" ]; then
				gzip -dc "$f" >"$out"
			else
				cat "$f" >"$out"
			fi || die "cannot write $out" "check the free space"
			return 0
		done
	done
	die "$pkg has no page $page (looked in: $dirs)" \
	    "look at what it holds: build/debian/$pkg/root/usr/share/man"
}

make_base() {
	local page
	rm -rf "$MAN"
	mkdir -p "$MAN" || die "cannot create build/man-pages" "check the free space"
	for page in $PAGES_manpages; do import_page manpages "$page"; done
	for page in $PAGES_manpages_dev; do import_page manpages-dev "$page"; done
	versions >"$MAN/VERSIONS"
	git_ init -q -b main
	git_ add VERSIONS man
	git_ commit -q -F - <<-MSG
	Import the capabilities and PR_CAP_AMBIENT pages from Debian

	$(cat "$MAN/VERSIONS")
	MSG
	git_ tag base
	msg "imported $(paste -sd, "$MAN/VERSIONS") as tag base"
}

# configure: what git needs to write patches as upstream's tree does
# (hunk headers name the section: CONTRIBUTING.d/git), and out/ ignored.
configure() {
	git_ config diff.man.xfuncname '^\.S[SHsh] .*$'
	mkdir -p "$MAN/.git/info"
	grep -qsx '\*.\[0-9\]\* diff=man' "$MAN/.git/info/attributes" ||
		echo '*.[0-9]* diff=man' >>"$MAN/.git/info/attributes"
	grep -qsx out/ "$MAN/.git/info/exclude" || echo out/ >>"$MAN/.git/info/exclude"
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

# base_is_current: the tag base holds the pages of the packages now
# unpacked, in the current layout.
base_is_current() {
	[ "$(git_ show base:VERSIONS 2>/dev/null)" = "$(versions)" ] &&
		git_ cat-file -e base:man/man7/capabilities.7 2>/dev/null
}

tree() {
	local head want have="" tip=""
	fetch manpages
	fetch manpages-dev
	if git_ rev-parse -q --verify refs/tags/base >/dev/null 2>&1 && ! base_is_current; then
		[ -f "$MAN/.git/series-applied" ] && { read -r have tip <"$MAN/.git/series-applied" || true; }
		head=$(git_ rev-parse HEAD)
		[ "$head" = "$(git_ rev-parse base)" ] || [ "$head" = "$tip" ] ||
			die "build/man-pages has commits of its own on an older base ($(git_ show base:VERSIONS | paste -sd, -))" \
			    "write them out with make man-series, or drop them (git -C build/man-pages reset --hard base), then run make man-tree again"
		msg "build/man-pages is based on $(git_ show base:VERSIONS | paste -sd, -); importing $(versions | paste -sd, -)"
		make_base
	fi
	git_ rev-parse -q --verify refs/tags/base >/dev/null 2>&1 || make_base
	configure
	have="" tip=""
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
		--to='Alejandro Colomar <alx@kernel.org>' \
		--cc=linux-man@vger.kernel.org \
		--cc='Serge Hallyn <serge@hallyn.com>' \
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
	configure
	series ;;
*) die "unknown command '$1'" "use: $me [tree|series]" ;;
esac
