#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the messages b4 wrote to build/outgoing: one per patch plus the
# cover letter first, numbered subjects, the right recipients, and that
# they apply to pre-ambient giving exactly the ambient branch's tree.
. "$(dirname "$0")/lib.sh"

out=$BUILD/outgoing
n=$(ls "$TOP"/series/[0-9]*.patch 2>/dev/null | grep -vc '/0000-' || true)
[ "${n:-0}" -gt 0 ] || die "series/ holds no patches" "run make series"
mapfile -t msgs < <(ls "$out"/* 2>/dev/null | LC_ALL=C sort)
echo "messages: ${#msgs[@]} for $n patches"
[ "${#msgs[@]}" -eq $((n + 1)) ] || die "b4 wrote ${#msgs[@]} messages, want $((n + 1))" "read $LOGS/b4-send.log"

# The CAPABILITIES maintainers, from the tree the series is sent against.
maint=$(awk '/^CAPABILITIES$/ { on = 1; next } on && /^$/ { exit }
	on && /^M:/ { sub(/^M:[ \t]*/, ""); print }' "$SRC/pre-ambient/MAINTAINERS" |
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
for a in linux-security-module@vger.kernel.org $maint; do
	case $rcpt in
	*"$a"*) echo "cover letter is addressed to $a" ;;
	*) die "cover letter's To/Cc lack $a" "check b4 prep --auto-to-cc (get_maintainer.pl)" ;;
	esac
done

# The messages rebuild the ambient tree exactly.
wt=$SRC/outgoing-check
lock outgoing-check
add_worktree "$wt" pre-ambient
reset_worktree "$wt" pre-ambient
git -C "$wt" -c user.name=check -c user.email=check@localhost am -q "${msgs[@]:1}" ||
	die "the b4 messages do not apply to pre-ambient" "run make send DRY_RUN=1 again"
got=$(git -C "$wt" rev-parse 'HEAD^{tree}')
want=$(git -C "$SRC/ambient" rev-parse 'ambient^{tree}')
expect_tree="tree from messages $got, ambient branch $want"
echo "$expect_tree"
[ "$got" = "$want" ] ||
	die "the b4 messages do not rebuild the ambient branch's tree" \
	    "run make series, then make send DRY_RUN=1"
