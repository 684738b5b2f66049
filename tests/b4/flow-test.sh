#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The b4 flow end to end, offline, on a state of its own (build/b4-test):
# make send twice with a change between (v1, then v2 under the same
# change-id, with the changelog and the range-diff in v2's cover letter),
# then make trailers with a saved reply to patch 2: its Reviewed-by: lands
# on patch 2 and nowhere else. Mail goes to tests/b4/mailbox, a sendmail
# that keeps the messages in a directory; b4 asks before sending, and the
# test answers.
. "$(dirname "$0")/../../scripts/lib.sh"
t=$BUILD/b4-test
rm -rf "$t"
mkdir -p "$t/series"
export B4_STATE=$t/state SERIES_DIR=$t/series
export AUTHOR="Sam Sender <sam@example.net>"
# what a sender's git configuration holds: how mail leaves, and whether
# b4 signs it (patatt wants a key this machine has not)
export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=sendemail.smtpServer
export GIT_CONFIG_VALUE_0="$TOP/tests/b4/mailbox $t/mail"
export GIT_CONFIG_KEY_1=b4.send-no-patatt-sign GIT_CONFIG_VALUE_1=yes
cp "$TOP"/series/*.patch "$t/series/"

header() { /usr/bin/python3 -c 'import sys, email
m = email.message_from_binary_file(open(sys.argv[1], "rb"))
print(" ".join(str(m.get(sys.argv[2], "")).split()))' "$1" "$2"; }
mail_of() {	# mail_of REV: the messages of that revision, in order
	local f
	for f in "$t/mail"/*.eml; do
		case $(header "$f" Subject) in
		"[PATCH RFC $1"*) echo "$f" ;;
		esac
	done
}
fail() { echo "FAIL: $*"; exit 1; }

# v1: a new series gets a change-id; b4 tags it and moves to v2.
printf "\n\n\n" | "$TOP/scripts/send.sh" >"$t/send-v1.log" 2>&1 || { tail "$t/send-v1.log"; fail "first make send"; }
echo "b4 prep --check before v1: $(grep -m1 '^Success:' "$t/send-v1.log")"
cid=$(jq -r '.series["change-id"]' "$B4_STATE/tracking.json")
v1=$(mail_of '0/' | sed -n 1p)
[ -n "$v1" ] || fail "no v1 cover letter in the mailbox"
echo "v1: $(ls "$t/mail" | wc -l) messages, change-id $cid"
grep -q "^change-id: $cid\$" "$v1" || fail "v1 cover letter lacks change-id: $cid"
[ "$(jq -r .series.revision "$B4_STATE/tracking.json")" = 2 ] || fail "b4 did not move to v2"
[ -n "$(ls "$B4_STATE"/v1/*.patch 2>/dev/null)" ] || fail "b4/ keeps no v1 patches"
grep -q "Link to v1: .*$(header "$v1" Message-Id | tr -d '<>')" "$B4_STATE/changelog" ||
	fail "the changelog b4 started does not link v1"

# A change: patch 5's commit message gains a sentence; the changelog says so.
p5=$(ls "$t/series"/0005-*.patch)
python3 - "$p5" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
body = s.index('\n\n', s.index('\nSubject:')) + 2	# the message body
end = s.index('\n\n', body)				# its first paragraph
open(p, 'w').write(s[:end] + '\n\nThe new text is checked by make htmldocs.' + s[end:])
PY
sed -i 's/^- EDITME: describe what is new.*$/- Documentation: say how the text is checked./; /EDITME/d' "$B4_STATE/changelog"

# v2: the same change-id, and its cover letter carries the changelog and
# the range-diff against v1, which shows the change.
# As in a new clone: the sent revision's tag comes back from b4/'s copy.
git -C "$SRC/stock" tag -d "sent/$cid-v1" >/dev/null
printf "\n\n\n" | "$TOP/scripts/send.sh" >"$t/send-v2.log" 2>&1 || { tail "$t/send-v2.log"; fail "second make send"; }
v2=$(mail_of 'v2 0/' | sed -n 1p)
[ -n "$v2" ] || fail "no v2 cover letter in the mailbox (subjects: $(for f in "$t/mail"/*; do header "$f" Subject; done))"
echo "v2: $(mail_of 'v2 ' | wc -l) messages, $(header "$v2" Subject)"
grep -q "^change-id: $cid\$" "$v2" || fail "v2 cover letter lacks the same change-id: $cid"
grep -q '^Changes in v2:$' "$v2" || fail "v2 cover letter lacks its changelog"
grep -q '^- Documentation: say how the text is checked.$' "$v2" || fail "v2 cover letter lacks the changelog entry"
grep -q '^Range-diff versus v1:$' "$v2" || fail "v2 cover letter lacks the range-diff"
sed -n '/^Range-diff versus v1:$/,/^Best regards/p' "$v2" | grep -q 'checked by make htmldocs' ||
	fail "the range-diff does not show the change"
sed -n '/^Range-diff versus v1:$/,/^Best regards/p' "$v2" | sed 's/^/  /' | head -n 20

# make trailers: a saved reply to v2's patch 2, applied on a branch of
# the test's own.
p2=$(mail_of 'v2 2/')
sed -e "s|@MSGID@|$(header "$p2" Message-Id)|" -e "s|@SUBJECT@|$(header "$p2" Subject)|" \
    -e "s|@SENDER@|$AUTHOR|" "$TOP/tests/b4/reply.eml" >"$t/reply.eml"
{
	for f in $(mail_of 'v2 ') "$t/reply.eml"; do
		echo "From mboxrd@z Thu Jan  1 00:00:00 1970"
		cat "$f"
		echo
	done
} >"$t/thread.mbox"
wt=$SRC/b4-trailers-test
add_sparse_worktree "$wt" ambient
git -C "$wt" checkout -q -B b4-trailers-test ambient
TRAILERS_TREE=$wt TRAILERS_BRANCH=b4-trailers-test "$TOP/scripts/trailers.sh" "$t/thread.mbox" \
	>"$t/trailers.log" 2>&1 || { tail "$t/trailers.log"; fail "make trailers"; }
git -C "$wt" format-patch -q -o "$t/after" pre-ambient..b4-trailers-test
got=$(grep -l '^Reviewed-by: Rita Reviewer <rita@example.org>$' "$t/after"/*.patch | xargs -n1 basename)
echo "Reviewed-by: Rita Reviewer now in: $got"
[ "$got" = "$(basename "$(ls "$TOP"/series/0002-*.patch)")" ] ||
	fail "the Reviewed-by: landed in '$got', want patch 2 alone"
echo "b4 flow: v1 and v2 under change-id $cid, range-diff in v2, trailer on patch 2"
# The test's tags and branches are its own: leave none behind.
git -C "$SRC/stock" tag -d "sent/$cid-v1" "sent/$cid-v2" >/dev/null
git -C "$wt" checkout -q --detach
git -C "$SRC/stock" branch -q -D b4-trailers-test
