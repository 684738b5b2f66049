#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay out the three kernel trees under build/src as one git repository:
#
#   stock        Debian's linux-source-6.12 as shipped      (tag stock)
#   pre-ambient  stock + base/*.patch                       (tag pre-ambient)
#   ambient      pre-ambient + series/*.patch               (branch ambient)
#
# Commits made here use a fixed identity and date (lib.sh: fixed_identity).
# Idempotent: nothing is redone unless its inputs changed, and local
# commits on the ambient branch are never thrown away silently.
. "$(dirname "$0")/lib.sh"

fixed_identity

STOCK=$SRC/stock
series_patches() { series_patches_of "$TOP/series"; }
base_patches() { ls "$TOP"/base/*.patch 2>/dev/null || true; }

make_stock() {
	[ -f "$SOURCE_TARBALL" ] ||
		die "$SOURCE_TARBALL is missing" "run make deps (installs $SOURCE_PKG)"
	need_space 6000
	rm -rf "$SRC" "$OBJ"
	mkdir -p "$STOCK"
	msg "unpacking $SOURCE_TARBALL"
	tar -C "$STOCK" --strip-components=1 -xf "$SOURCE_TARBALL" ||
		die "cannot unpack $SOURCE_TARBALL (full disk or damaged file?)" \
		    "check df -h and reinstall $SOURCE_PKG"
	local v
	v=$(make -s -C "$STOCK" kernelversion 2>/dev/null) || v="(no kernel version)"
	case $v in
	6.12.*) ;;
	*) rm -rf "$SRC"
	   die "$SOURCE_TARBALL holds Linux '$v', not 6.12" \
	       "install $SOURCE_PKG=$SOURCE_PIN (make deps)" ;;
	esac
	[ "$v" = "${SOURCE_PIN%%-*}" ] ||
		loud "tarball is Linux $v, base/ was made against ${SOURCE_PIN%%-*}"
	msg "committing Linux $v as tag stock"
	git_ -C "$STOCK" init -q -b stock-branch
	git_ -C "$STOCK" add -A -f .
	git_ -C "$STOCK" commit -q -m "Linux $v ($(cat "$BUILD/source-version"))"
	git_ -C "$STOCK" tag -f stock >/dev/null
	rm -f "$SRC"/.*.stamp
}

make_pre_ambient() {
	local want
	want=$(hash_files $(base_patches))
	if [ "$(cat "$SRC/.pre-ambient.stamp" 2>/dev/null)" = "$want" ] &&
	   git_ -C "$STOCK" rev-parse -q --verify pre-ambient >/dev/null; then
		return
	fi
	msg "applying base/ as tag pre-ambient"
	add_worktree "$SRC/pre-ambient" stock
	git_ -C "$SRC/pre-ambient" checkout -q --detach stock
	apply_patches "$SRC/pre-ambient" $(base_patches)
	git_ -C "$SRC/pre-ambient" tag -f pre-ambient >/dev/null
	echo "$want" >"$SRC/.pre-ambient.stamp"
}

make_ambient() {
	local want have_head rec_hash= rec_head= wt=$SRC/ambient
	want=$(hash_files $(base_patches) $(series_patches))
	[ -f "$SRC/.ambient.stamp" ] && { read -r rec_hash rec_head <"$SRC/.ambient.stamp" || true; }
	add_worktree "$wt" pre-ambient
	have_head=$(git_ -C "$wt" rev-parse -q --verify refs/heads/ambient || true)
	if [ -n "$have_head" ] && [ "$have_head" = "$rec_head" ] &&
	   [ "$rec_hash" = "$want" ]; then
		git_ -C "$wt" checkout -q ambient
		return
	fi
	if [ -n "$have_head" ] && [ "$have_head" != "$rec_head" ] && [ -z "${FORCE:-}" ]; then
		if [ "$rec_hash" = "$want" ]; then
			msg "branch ambient has local commits: building them (make series exports them)"
			git_ -C "$wt" checkout -q ambient
			return
		fi
		die "branch ambient in build/src/ambient has commits that are not in series/, and base/ or series/ changed" \
		    "export them with 'make series', or drop them with 'make tree FORCE=1'"
	fi
	[ -z "$(git_ -C "$wt" status --porcelain --untracked-files=no)" ] ||
		die "uncommitted changes in build/src/ambient" \
		    "commit them (then make series) or discard them with git -C build/src/ambient checkout ."
	msg "applying series/ on branch ambient ($(series_patches | wc -l) patches)"
	git_ -C "$wt" checkout -q -B ambient pre-ambient
	apply_patches "$wt" $(series_patches)
	echo "$want $(git_ -C "$wt" rev-parse HEAD)" >"$SRC/.ambient.stamp"
}

lock tree
# --adopt: the ambient branch has just been exported to series/ (make
# series), so it is what series/ describes: record that, rebuild nothing.
if [ "${1:-}" = --adopt ]; then
	head=$(git_ -C "$SRC/ambient" rev-parse ambient) ||
		die "build/src/ambient has no branch ambient" "run make tree"
	echo "$(hash_files $(base_patches) $(series_patches)) $head" >"$SRC/.ambient.stamp"
	exit 0
fi
git_ -C "$STOCK" rev-parse -q --verify stock >/dev/null 2>&1 || make_stock
# the object directories live inside the trees (lib.sh: make_objdir)
exclude=$(git_ -C "$STOCK" rev-parse --path-format=absolute --git-common-dir)/info/exclude
grep -qxF '/.obj-*/' "$exclude" 2>/dev/null || echo '/.obj-*/' >>"$exclude"
make_pre_ambient
make_ambient
msg "trees ready in $SECONDS s"
