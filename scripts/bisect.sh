#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build every commit of the ambient branch on its own (bisectability).
# Runs in build/src/ambient and its object directory, stepping through the
# commits oldest first; make rebuilds only what each step changes. The
# branch is checked out again at the end, whatever happens.
. "$(dirname "$0")/lib.sh"

wt=$SRC/ambient
[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ] ||
	die "uncommitted changes in build/src/ambient" "commit or stash them first"
git -C "$wt" symbolic-ref -q HEAD >/dev/null ||
	die "build/src/ambient is not on a branch" "git -C build/src/ambient checkout ambient"
branch=$(git -C "$wt" symbolic-ref --short HEAD)
trap 'git -C "$wt" checkout -q "$branch" || loud "could not check out $branch again in build/src/ambient"' EXIT
commits=$(git -C "$wt" rev-list --reverse pre-ambient.."$branch") ||
	die "build/src/ambient lacks the tag pre-ambient" "run make tree"
[ -n "$commits" ] || die "branch $branch has no commits on pre-ambient" "run make tree"

n=0
for c in $commits; do
	n=$((n + 1))
	git -C "$wt" checkout -q --detach "$c"
	start=$(date +%s)
	if "$TOP/scripts/kernel.sh" ambient >/dev/null 2>&1; then
		printf 'patch %2d builds (%3d s): %s\n' "$n" $(($(date +%s) - start)) \
			"$(git -C "$wt" log -1 --format=%s)"
	else
		printf 'patch %2d FAILS to build: %s (log: %s)\n' "$n" \
			"$(git -C "$wt" log -1 --format=%s)" "$LOGS/kernel-ambient.log"
		exit 1
	fi
done
echo "$n patches, each builds"
