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

out=$S_OUT
n=$(series_patches_of "$S_DIR" | wc -l)
[ "${n:-0}" -gt 0 ] || die "${S_DIR#"$TOP"/} holds no patches" "run make series (make upstream-series)"
mapfile -t msgs < <(ls "$out"/* 2>/dev/null | LC_ALL=C sort)
echo "messages: ${#msgs[@]} for $n patches"
[ "${#msgs[@]}" -eq $((n + 1)) ] || die "b4 wrote ${#msgs[@]} messages, want $((n + 1))" "read $LOGS/b4-send.log"

# The CAPABILITIES maintainers, from the tree the series is sent against.
# (awk reads to the end: an early exit would kill git show with SIGPIPE)
maint=$(git -C "$S_TREE" show "$S_BASE:MAINTAINERS" | awk '/^CAPABILITIES$/ { on = 1; next } on && /^$/ { on = 0 }
	on && /^M:/ { sub(/^M:[ \t]*/, ""); print }' |
	{ grep -oE '<[^>]+>' || true; } | tr -d '<>')
[ -n "$maint" ] || die "no CAPABILITIES maintainer found in MAINTAINERS" "check the entry's name"

header() {	# header FILE NAME: the unfolded header
	python3 -c 'import sys, email; m = email.message_from_file(open(sys.argv[1]))
print(" ".join(str(m.get(sys.argv[2], "")).split()))' "$1" "$2"
}
k=0
for m in "${msgs[@]}"; do
	subj=$(header "$m" Subject)
	want="[PATCH $k/$n]"
	case $subj in
	"$want "*) echo "ok: $subj" ;;
	*) die "message $((k + 1)) has subject '$subj', want '$want ...'" "read $m" ;;
	esac
	k=$((k + 1))
done
rcpt="$(header "${msgs[0]}" To) $(header "${msgs[0]}" Cc)"
lists=linux-security-module@vger.kernel.org
[ "$series" = upstream ] && lists="$lists linux-kselftest@vger.kernel.org linux-doc@vger.kernel.org"
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
add_worktree "$wt" "$S_BASE"
reset_worktree "$wt" "$S_BASE"
git -C "$wt" -c user.name=check -c user.email=check@localhost am -q "${msgs[@]:1}" ||
	die "the b4 messages do not apply to $S_BASE" "run make send DRY_RUN=1 again"
got=$(git -C "$wt" rev-parse 'HEAD^{tree}')
want=$(git -C "$S_TREE" rev-parse "$S_BRANCH^{tree}")
echo "tree from messages $got, branch $S_BRANCH $want"
[ "$got" = "$want" ] ||
	die "the b4 messages do not rebuild the tree of branch $S_BRANCH" \
	    "run make series (make upstream-series), then make send DRY_RUN=1"
logs() { git -C "$1" log --format='%an <%ae>%n%B' "$S_BASE..$2"; }
if [ "$AUTHOR" = "$PLACEHOLDER_AUTHOR" ]; then
	diff -u <(logs "$S_TREE" "$S_BRANCH") <(logs "$wt" HEAD) ||
		die "the commits from the messages differ from branch $S_BRANCH (above)" \
		    "run make series (make upstream-series), then make send DRY_RUN=1"
	echo "authors and messages: as on branch $S_BRANCH ($n commits)"
fi
