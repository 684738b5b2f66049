#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Apply the trailers reviewers sent (Reviewed-by:, Acked-by:, Tested-by:)
# to the series: b4 trailers -u reads them from a saved reply thread, adds
# each to the commit it answers on the series' branch, then series/ (or
# upstream/kselftest-docs/) is exported again.
#
#   trailers.sh MBOX        MBOX: the thread as mbox (b4 mbox, or saved
#                           from a mail client; it must hold the patches
#                           as sent and the replies)
#
# TRAILERS_TREE and TRAILERS_BRANCH name another worktree and branch, for
# tests/b4/; then nothing is exported.
. "$(dirname "$0")/lib.sh"
series=${SERIES:-ambient}
series_vars "$series"
mbox=${1:-}
[ -n "$mbox" ] || die "no reply thread given" "make trailers MBOX=thread.mbox (b4 mbox MSGID saves one)"
[ -f "$mbox" ] || die "$mbox does not exist" "save the thread with b4 mbox MSGID, or from your mail client"
mbox=$(realpath "$mbox")
tree=${TRAILERS_TREE:-$S_TREE}
branch=${TRAILERS_BRANCH:-$S_BRANCH}
lock "trailers-$series"

cd "$tree" || die "no worktree ${tree#"$TOP"/}" "run make tree"
[ "$(git branch --show-current)" = "$branch" ] ||
	die "${tree#"$TOP"/} is not on branch $branch" "git -C ${tree#"$TOP"/} checkout $branch"
git diff --quiet HEAD || die "${tree#"$TOP"/} has changes not committed" "commit or drop them first"
first=$(git rev-list --reverse "$S_BASE..$branch" | sed -n 1p)	# (sed reads all: no SIGPIPE)
[ -n "$first" ] || die "branch $branch has no commits on $S_BASE" "run make tree"

before=$(git rev-parse HEAD)
# b4 shows the trailers and asks before applying them; without a terminal
# (tests/b4/) it applies them unasked.
ask=()
[ -t 0 ] || ask=(--no-stdin --no-interactive)
# b4 updates only commits whose committer is the user: the branch's
# committer applies them (b4 adds no sign-off of its own).
name=$(git log -1 --format=%cn "$first") email=$(git log -1 --format=%ce "$first")
GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$name" \
GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$email" \
	b4 --offline-mode "${ask[@]}" trailers -u -m "$mbox" --since-commit "$first" 2>&1 | tee "$LOGS/b4-trailers.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || die "b4 trailers -u failed (above)" "read $LOGS/b4-trailers.log"
if [ "$(git rev-parse HEAD)" = "$before" ]; then
	msg "no new trailers in ${mbox##*/}"
	exit 0
fi
git log --format='%h %s' "$S_BASE..HEAD" | sed 's/^/  /'
[ -n "${TRAILERS_TREE:-}" ] && exit 0
case $series in
ambient) "$TOP/scripts/series.sh" ;;
upstream) "$TOP/scripts/upstream-series.sh" ;;
esac
msg "trailers applied; review git diff series/ (upstream/) and commit"
