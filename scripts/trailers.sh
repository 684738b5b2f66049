#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Apply the trailers reviewers sent (Reviewed-by:, Acked-by:, Tested-by:)
# to the series: b4 trailers -u reads them from a saved reply thread and
# adds each to the commit it answers on the ambient branch, from which
# both series are made; then series/ and upstream/kselftest-docs/ are
# exported again (make series).
#
#   trailers.sh MBOX   MBOX: the thread as mbox (b4 mbox MSGID saves one;
#                      it must hold the patches as sent and the replies),
#                      of either series
#
# TRAILERS_TREE and TRAILERS_BRANCH name another worktree and branch, for
# tests/b4/; then nothing is exported.
. "$(dirname "$0")/lib.sh"
series_vars ambient
mbox=${1:-}
[ -n "$mbox" ] || die "no reply thread given" "make trailers MBOX=thread.mbox (b4 mbox MSGID saves one)"
[ -f "$mbox" ] || die "$mbox does not exist" "save the thread with b4 mbox MSGID, or from your mail client"
mbox=$(realpath "$mbox")
tree=${TRAILERS_TREE:-$S_TREE}
branch=${TRAILERS_BRANCH:-$S_BRANCH}
lock trailers

cd "$tree" || die "no worktree ${tree#"$TOP"/}" "run make tree"
[ "$(git branch --show-current)" = "$branch" ] ||
	die "${tree#"$TOP"/} is not on branch $branch" "git -C ${tree#"$TOP"/} checkout $branch"
git diff --quiet HEAD || die "${tree#"$TOP"/} has changes not committed" "commit or drop them first"
first=$(git rev-list --reverse "$S_BASE..$branch" | sed -n 1p)	# (sed reads all: no SIGPIPE)
[ -n "$first" ] || die "branch $branch has no commits on $S_BASE" "run make tree"
# b4 updates only the commits whose committer is the user: one committer
# for the whole branch, who then applies them (b4 adds no sign-off).
committers=$(git log --format='%cn <%ce>' "$S_BASE..$branch" | sort -u)
[ "$(printf '%s\n' "$committers" | wc -l)" -eq 1 ] ||
	die "the commits of $branch have more than one committer, and b4 would skip some:
$committers" "rebase them under one identity (git rebase --exec 'git commit --amend --no-edit --reset-author' keeps the author only if you pass --author), then run again"
name=${committers% <*} email=${committers##*<}
email=${email%>}

# Replies to a cover letter apply to every patch, which b4 does only on
# its own prep branch: say so rather than drop them.
cover_trailers=$(python3 - "$mbox" <<'PY'
import mailbox, re, sys
msgs = list(mailbox.mbox(sys.argv[1]))
covers = {m['Message-Id'] for m in msgs if re.search(r'\[[^]]* 0+/\d+\]', m['Subject'] or '')}
n = 0
for m in msgs:
    if m['In-Reply-To'] in covers:
        body = m.get_payload(decode=True) or b''
        n += len(re.findall(rb'^(Reviewed|Acked|Tested)-by: ', body, re.M))
print(n)
PY
) || die "cannot read $mbox as an mbox" "save the thread again (b4 mbox MSGID)"

before=$(git rev-parse HEAD)
# b4 shows the trailers and asks before applying them; without a terminal
# (tests/b4/) it applies them unasked.
ask=()
[ -t 0 ] || ask=(--no-stdin --no-interactive)
GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$name" \
GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$email" \
	b4 --offline-mode "${ask[@]}" trailers -u -m "$mbox" --since-commit "$first" 2>&1 | tee "$LOGS/b4-trailers.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || die "b4 trailers -u failed (above)" "read $LOGS/b4-trailers.log"
[ "$cover_trailers" -eq 0 ] ||
	msg "WARNING: $cover_trailers trailer(s) answer the cover letter; b4 applies those to no patch here: add them by hand to each patch they cover"
if [ "$(git rev-parse HEAD)" = "$before" ]; then
	msg "no new trailers on any patch in ${mbox##*/}"
	exit 0
fi
git log --format='%h %s' "$S_BASE..HEAD" | sed 's/^/  /'
[ -n "${TRAILERS_TREE:-}" ] && exit 0
"$TOP/scripts/series.sh" && "$TOP/scripts/upstream-series.sh" && "$TOP/scripts/upstream-tree.sh" ||
	die "the trailers are on branch $S_BRANCH, but exporting it failed (above)" "fix that, then make series"
msg "trailers applied; review git diff series/ upstream/ and commit"
