#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the messages b4 wrote to build/outgoing: one per patch plus the
# cover letter first, numbered subjects, the right recipients, and that
# they apply to pre-ambient giving exactly the ambient branch (its tree and
# its commit messages). SERIES=upstream checks build/outgoing-upstream, the
# standalone series, against tag upstream and branch kselftest-docs; its
# cover letter must also reach the kselftest and documentation lists.
. "$(dirname "$0")/lib.sh"
series=${SERIES:-ambient}
series_vars "$series"

out=${OUT:-$S_OUT}
S_DIR=${SERIES_DIR:-$S_DIR}
n=$(series_patches_of "$S_DIR" | wc -l)
[ "${n:-0}" -gt 0 ] || die "${S_DIR#"$TOP"/} holds no patches" "run make series (make upstream-series)"
mapfile -t msgs < <(ls "$out"/* 2>/dev/null | LC_ALL=C sort)
echo "messages: ${#msgs[@]} for $n patches"
[ "${#msgs[@]}" -eq $((n + 1)) ] || die "b4 wrote ${#msgs[@]} messages, want $((n + 1))" "read $LOGS/b4-send.log"

# The CAPABILITIES maintainers, from today's MAINTAINERS (Linux 7.2), which
# make send reads for both series.
# (awk reads to the end: an early exit would kill git show with SIGPIPE)
maint=$(git -C "$SRC/upstream" show upstream:MAINTAINERS | awk '/^CAPABILITIES$/ { on = 1; next } on && /^$/ { on = 0 }
	on && /^M:/ { sub(/^M:[ \t]*/, ""); print }' |
	{ grep -oE '<[^>]+>' || true; } | tr -d '<>')
[ -n "$maint" ] || die "no CAPABILITIES maintainer found in MAINTAINERS" "check the entry's name"

header() {	# header FILE NAME: the unfolded header
	python3 -c 'import sys, email; m = email.message_from_file(open(sys.argv[1]))
print(" ".join(str(m.get(sys.argv[2], "")).split()))' "$1" "$2"
}
# b4 numbers revisions after the first: [PATCH RFC v2 0/5]
rev=$(jq -r .series.revision "${B4_STATE:-$TOP/b4/$series}/tracking.json" 2>/dev/null || echo 1)
[ "$rev" -gt 1 ] && S_PREFIX="${S_PREFIX}v$rev "
k=0
for m in "${msgs[@]}"; do
	subj=$(header "$m" Subject)
	want="[PATCH $S_PREFIX$k/$n]"
	case $subj in
	"$want "*) echo "ok: $subj" ;;
	*) die "message $((k + 1)) has subject '$subj', want '$want ...'" "read $m" ;;
	esac
	k=$((k + 1))
done
rcpt="$(header "${msgs[0]}" To) $(header "${msgs[0]}" Cc)"
# get_maintainer.pl's lists for the files touched, and for the 6.12 series
# linux-api, which the kernel's process asks for a change to the user-space
# API (b4 send --cc).
lists=linux-security-module@vger.kernel.org
case $series in
ambient) lists="$lists linux-api@vger.kernel.org audit@vger.kernel.org keyrings@vger.kernel.org linux-fsdevel@vger.kernel.org" ;;
upstream) lists="$lists linux-kselftest@vger.kernel.org linux-doc@vger.kernel.org" ;;
esac
for a in $lists $maint; do
	case $rcpt in
	*"$a"*) echo "cover letter is addressed to $a" ;;
	*) die "cover letter's To/Cc lack $a" "check b4 prep --auto-to-cc (get_maintainer.pl)" ;;
	esac
done

# The messages rebuild the branch exactly: its tree, and each commit's
# author and message.
wt=$SRC/outgoing-check
lock outgoing-check
add_sparse_worktree "$wt" "$S_BASE"
reset_worktree "$wt" "$S_BASE"
git -C "$wt" -c user.name=check -c user.email=check@localhost am -q "${msgs[@]:1}" ||
	die "the b4 messages do not apply to $S_BASE" "run make send DRY_RUN=1 again"
got=$(git -C "$wt" rev-parse 'HEAD^{tree}')
want=$(git -C "$S_TREE" rev-parse "$S_BRANCH^{tree}")
echo "tree from messages $got, branch $S_BRANCH $want"
[ "$got" = "$want" ] ||
	die "the b4 messages do not rebuild the tree of branch $S_BRANCH" \
	    "run make series (make upstream-series), then make send DRY_RUN=1"
# Every message is from the sender, who authored and signed off every
# patch (scripts/outgoing-identity.py says exactly what is checked).
"$TOP/scripts/outgoing-identity.py" "$AUTHOR" "$PLACEHOLDER_AUTHOR" "${msgs[@]}" ||
	die "the messages do not carry the identity '$AUTHOR' as git format-patch would" \
	    "fix scripts/send.sh"
# The branch's commits carry the placeholder; the messages' commits must be
# the same with the sender in its place, as author and in the sign-off.
# (git am drops the double quotes of an author's name, from git
# format-patch's messages too: the From: header is checked exactly above.)
logs() { git -C "$1" log --format='author: %an <%ae>%n%B' "$S_BASE..$2"; }
unquote_authors() { sed '/^author: /s/"//g'; }
as_sender() {
	python3 -c 'import sys; print(sys.stdin.read().replace(sys.argv[1], sys.argv[2]), end="")' \
		"$PLACEHOLDER_AUTHOR" "$AUTHOR"
}
diff -u <(logs "$S_TREE" "$S_BRANCH" | as_sender | unquote_authors) <(logs "$wt" HEAD | unquote_authors) ||
	die "the commits from the messages differ from branch $S_BRANCH with $AUTHOR as author (above)" \
	    "run make series (make upstream-series), then make send DRY_RUN=1"
echo "authors and messages: as on branch $S_BRANCH, by $AUTHOR ($n commits)"
