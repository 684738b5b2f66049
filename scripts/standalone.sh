#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The selftest, documentation and MAINTAINERS patches of series/ do not
# depend on the kernel patches: apply them, alone and in order, to stock.
. "$(dirname "$0")/lib.sh"

wt=$SRC/standalone
patches=
for p in "$TOP"/series/[0-9]*.patch; do
	case $p in */0000-* | *'*'*) continue ;; esac
	files=$(grep -E '^diff --git a/' "$p" | awk '{ print substr($3, 3) }' || true)
	if printf '%s\n' "$files" | standalone_files; then
		patches="$patches $p"
	fi
done
[ -n "$patches" ] || die "series/ has no selftest, documentation or MAINTAINERS patch" \
	"run make series"

lock standalone
add_sparse_worktree "$wt" stock
reset_worktree "$wt" stock
for p in $patches; do
	if git -C "$wt" -c user.name=check -c user.email=check@localhost am -q "$p" 2>&1; then
		echo "applies to stock: ${p##*/}"
	else
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		die "${p##*/} does not apply to stock" "rebase it so it does not depend on the kernel patches"
	fi
done
