#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build every commit of the ambient branch on its own (bisectability).
# Runs in a worktree of its own, build/src/bisect (detached), stepping
# through the commits oldest first; its objects (build/obj/bisect) start
# from stock's (scripts/kernel.sh) and make rebuilds only what each step
# changes. Each step's bzImage must carry the kernel that step built
# (scripts/identity.sh). build/src/ambient is not touched, so the
# bisection may run while that tree's kernel boots.
. "$(dirname "$0")/lib.sh"

wt=$SRC/bisect
commits=$(git -C "$SRC/ambient" rev-list --reverse pre-ambient..ambient) ||
	die "build/src/ambient lacks the tag pre-ambient or the branch ambient" "run make tree"
[ -n "$commits" ] || die "branch ambient has no commits on pre-ambient" "run make tree"
lock bisect
add_worktree "$wt" ambient

n=0
for c in $commits; do
	n=$((n + 1))
	reset_worktree "$wt" "$c"
	start=$(date +%s)
	if ! TREE=bisect "$TOP/scripts/kernel.sh" ambient >/dev/null 2>&1; then
		printf 'patch %2d FAILS to build: %s (log: %s)\n' "$n" \
			"$(git -C "$wt" log -1 --format=%s)" "$LOGS/kernel-bisect.log"
		exit 1
	fi
	# each step's image must carry that step's kernel
	if ! out=$("$TOP/scripts/identity.sh" "$OBJ/bisect/arch/x86/boot/bzImage" 2>&1); then
		printf 'patch %2d: its bzImage does not carry the kernel it built: %s\n' "$n" "$out"
		exit 1
	fi
	printf 'patch %2d builds (%3d s): %s\n' "$n" $(($(date +%s) - start)) \
		"$(git -C "$wt" log -1 --format=%s)"
done
echo "$n patches, each builds"
