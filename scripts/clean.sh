#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Remove build/, but never throw away unexported work on the ambient branch.
. "$(dirname "$0")/lib.sh"

wt=$SRC/ambient
if [ -d "$wt" ] && [ -z "${FORCE:-}" ]; then
	stamp_head=$(cut -d' ' -f2 "$SRC/.ambient.stamp" 2>/dev/null || true)
	head=$(git -C "$wt" rev-parse -q --verify refs/heads/ambient || true)
	dirty=$(git -C "$wt" status --porcelain --untracked-files=no 2>/dev/null || true)
	if [ -n "$dirty" ] || { [ -n "$head" ] && [ "$head" != "$stamp_head" ]; }; then
		die "build/src/ambient has work that is not in series/ (uncommitted changes or local commits)" \
		    "commit and run 'make series', or discard it with 'make clean FORCE=1'"
	fi
fi
# a clean-room root whose unmounting failed still has the host's /dev in it
mounts=$(awk -v b="$BUILD" 'index($2, b "/") == 1 { print $2 }' /proc/mounts)
[ -z "$mounts" ] || die "something is mounted under build/: $(echo $mounts)" \
	"unmount it (umount -R PATH), then run make clean again"
rm -rf --one-file-system "$BUILD" || die "cannot remove all of build/" "see the message above"
msg "removed build/"
