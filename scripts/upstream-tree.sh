#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay out today's upstream kernel beside the 6.12 trees, in the same git
# repository (so that upstream-series.sh can carry commits over from the
# ambient branch with a three-way merge):
#
#   upstream  Debian unstable's linux-source-7.2 as shipped   (tag upstream)
#             + upstream/kselftest-docs/*.patch                (branch kselftest-docs)
#
# Commits made here use a fixed identity and date (lib.sh: fixed_identity).
# Idempotent: nothing is redone unless the tarball or the patches changed.
. "$(dirname "$0")/lib.sh"

fixed_identity
wt=$SRC/upstream
series_vars upstream

# import: the tarball as a commit of its own (no parent), tag upstream.
import() {
	local v tmp tree commit
	[ -f "$UPSTREAM_TARBALL" ] ||
		die "$UPSTREAM_TARBALL is missing" "run make deps (fetches $UPSTREAM_PKG from $UPSTREAM_SUITES)"
	need_space 6000
	git_ -C "$SRC/stock" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
	git_ -C "$SRC/stock" worktree prune
	# a worktree with nothing checked out, filled from the tarball
	git_ -C "$SRC/stock" worktree add -q --detach --no-checkout "$wt" stock ||
		die "cannot add the worktree build/src/upstream" "run make tree"
	msg "unpacking $UPSTREAM_TARBALL"
	tar -C "$wt" --strip-components=1 -xf "$UPSTREAM_TARBALL" ||
		die "cannot unpack $UPSTREAM_TARBALL (full disk or damaged file?)" \
		    "check df -h, then REFRESH=1 make deps"
	v=$(make -s -C "$wt" kernelversion 2>/dev/null) || v="(no kernel version)"
	case $v in
	[7-9].* | [1-9][0-9].*) ;;
	*) die "$UPSTREAM_TARBALL holds Linux '$v', not 7.2 or newer" \
	       "check UPSTREAM_PKG in scripts/lib.sh" ;;
	esac
	msg "committing Linux $v as tag upstream"
	git_ -C "$wt" read-tree --empty
	git_ -C "$wt" add -A -f . || die "git add of the upstream tree failed" "check the free space"
	tree=$(git_ -C "$wt" write-tree) || die "git write-tree failed" "check the free space"
	commit=$(echo "Linux $v ($UPSTREAM_PKG $(cat "$BUILD/debian/$UPSTREAM_PKG/VERSION"))" |
		git_ -C "$wt" commit-tree "$tree") || die "git commit-tree failed" "check the free space"
	git_ -C "$wt" reset -q --soft "$commit"
	git_ -C "$wt" tag -f upstream "$commit" >/dev/null
	rm -f "$SRC/.upstream.stamp"
}

lock tree
[ -d "$SRC/stock" ] || die "no stock tree" "run make tree"
want_base="$(cat "$BUILD/debian/$UPSTREAM_PKG/VERSION" 2>/dev/null || true)"
if ! git_ -C "$SRC/stock" rev-parse -q --verify upstream >/dev/null ||
   [ ! -f "$wt/Makefile" ] || [ "$(cat "$SRC/.upstream.base" 2>/dev/null)" != "$want_base" ]; then
	import
	echo "$want_base" >"$SRC/.upstream.base"
fi

patches=$(series_patches_of "$S_DIR")
want="$(hash_files $patches) $(git_ -C "$wt" rev-parse upstream)"
if [ "$(cat "$SRC/.upstream.stamp" 2>/dev/null)" = "$want" ] &&
   git_ -C "$wt" rev-parse -q --verify "refs/heads/$S_BRANCH" >/dev/null; then
	git_ -C "$wt" checkout -q "$S_BRANCH"
	exit 0
fi
[ -z "$(git_ -C "$wt" status --porcelain --untracked-files=no)" ] ||
	die "uncommitted changes in build/src/upstream" \
	    "the branch is made from upstream/kselftest-docs/ (make upstream-series): discard them with git -C build/src/upstream checkout ."
msg "applying upstream/kselftest-docs/ on branch $S_BRANCH ($(echo "$patches" | wc -w) patches)"
git_ -C "$wt" checkout -q -B "$S_BRANCH" upstream
# shellcheck disable=SC2086
[ -z "$patches" ] || apply_patches "$wt" $patches
echo "$want" >"$SRC/.upstream.stamp"
msg "upstream tree ready in $SECONDS s"
