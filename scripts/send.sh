#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Send the series with b4, as its users do: one b4 prep branch,
# b4/ambient in build/src/b4-ambient, whose change-id, revision, changelog
# and sent revisions live in the repository (b4/ambient/), so that the
# next revision goes out under the same change-id from any clone.
#
#   send.sh               b4 send: mail the current revision through git's
#                         sendemail configuration; b4 tags it, records its
#                         message-id and bumps the revision, and b4/ is
#                         updated to match (commit it)
#   REFLECT=1 send.sh     b4 send --reflect: everything to the sender only
#   OUT=DIR send.sh       b4 send -o DIR: write the messages, send nothing
#                         (DIR must be new or hold only messages)
#   SEND_CC="a@b c@d"     more Cc: for this revision (b4 send --cc)
#   DRY_RUN=1 send.sh     OUT=build/outgoing, placeholder identity allowed
#   send.sh --range-diff  the range-diff against the last sent revision
#   send.sh --check       b4 prep --check (checkpatch --strict, per patch)
#
# The patches come from series/ (the placeholder identity) and are
# committed as $AUTHOR, who is author, sender and signer. SERIES=upstream
# does the same for the standalone series on Linux 7.2 (b4/upstream/).
# B4_STATE and SERIES_DIR may point elsewhere (tests/b4/ does).
. "$(dirname "$0")/lib.sh"
series=${SERIES:-ambient}
series_vars "$series"
mode=send
case ${1:-} in
"") ;;
--range-diff) mode=range-diff ;;
--check) mode=check ;;
*) die "unknown option '$1'" "use send.sh, send.sh --range-diff or send.sh --check" ;;
esac
[ "${DRY_RUN:-}" = 1 ] && OUT=${OUT:-$S_OUT}
[ "${REFLECT:-}" = 1 ] && [ -n "${OUT:-}" ] && die "REFLECT=1 and OUT= both given" "choose one"
if [ -n "${OUT:-}" ]; then
	OUT=$(realpath -m "$OUT")
	# it is emptied first: never a directory that holds anything else
	if [ -d "$OUT" ] && [ -n "$(find "$OUT" -mindepth 1 ! -name '*.eml' -print -quit)" ]; then
		die "OUT=$OUT holds files other than messages" "give a new directory, or one b4 wrote before"
	fi
fi

if [ "$AUTHOR" = "$PLACEHOLDER_AUTHOR" ] && [ "$mode" = send ] && [ "${DRY_RUN:-}" != 1 ]; then
	die "AUTHOR is the placeholder '$PLACEHOLDER_AUTHOR'" \
	    "make send AUTHOR='Your Name <you@example.com>' (or DRY_RUN=1 to try the flow)"
fi
case $AUTHOR in
?*" <"*@*">") ;;
*) die "AUTHOR '$AUTHOR' is not of the form 'Name <email>'" "make send AUTHOR='Your Name <you@example.com>'" ;;
esac
S_DIR=${SERIES_DIR:-$S_DIR}
patches=$(series_patches_of "$S_DIR")
[ -n "$patches" ] || die "${S_DIR#"$TOP"/} holds no patches" "run make series (make upstream-series)"
state=${B4_STATE:-$TOP/b4/$series}
mkdir -p "$state" || die "cannot create $state" "check the free space"

wt=$SRC/b4-$series
# b4 names the change-id after the branch: say what the series is
case $series in
ambient) branch=b4/ambient-caps-rfc ;;
upstream) branch=b4/ambient-caps-selftests ;;
esac
lock "b4-$series"
# b4 and git read the identity and b4's settings from the configuration
# (added to any GIT_CONFIG_* already given); git's own sendemail settings
# (the user's) choose how mail leaves.
git_config_env() {
	local i=${GIT_CONFIG_COUNT:-0}
	export "GIT_CONFIG_KEY_$i=$1" "GIT_CONFIG_VALUE_$i=$2" GIT_CONFIG_COUNT=$((i + 1))
}
git_config_env user.name "$(author_name)"
git_config_env user.email "$(author_email)"
git_config_env sendemail.from "$AUTHOR"	# else a sendemail.from of the user's wins
git_config_env b4.prep-cover-template "$TOP/b4/cover.template"
# b4's own checkpatch command, made --strict; the trees hold no mainline
# history, so cited commit ids are checked by scripts/checkpatch.sh (for
# form) and not here; the system's python3 has the modules spdxcheck.py
# wants.  The b4 worktree is sparse: checkpatch comes from the series'
# full tree (--root), of the same kernel version.
git_config_env b4.prep-perpatch-check-cmd \
	"env PATH=/usr/bin:/bin $S_TREE/scripts/checkpatch.pl --root=$S_TREE -q --terse --no-summary --mailback --showfile --strict --ignore UNKNOWN_COMMIT_ID"
# Recipients from today's MAINTAINERS (Linux 7.2), also for the 6.12
# series: b4's own get_maintainer.pl commands, pointed at today's file.
gm="$SRC/upstream/scripts/get_maintainer.pl --mpath $SRC/upstream/MAINTAINERS"
gm="$gm --notree --nogit --nogit-fallback --nogit-chief-penguins --norolestats"
[ -x "$SRC/upstream/scripts/get_maintainer.pl" ] || die "no Linux 7.2 tree in build/src/upstream" "run make tree"
git_config_env b4.send-auto-to-cmd "$gm --nol"
git_config_env b4.send-auto-cc-cmd "$gm --nom"
# Without an SMTP server b4 assumes its web endpoint, which wants signed
# messages; -o connects to neither.
[ -n "${OUT:-}" ] && [ -z "$(git config sendemail.smtpServer || true)" ] &&
	git_config_env sendemail.smtpServer localhost

add_sparse_worktree "$wt" "$S_BASE"
reset_worktree "$wt" "$S_BASE"
cd "$wt"

change_id=$(jq -r '.series["change-id"] // empty' "$state/tracking.json" 2>/dev/null || true)

# The sent revisions, as tags b4 finds (sent/CHANGE-ID-vN), from the
# patches b4/ keeps of each.
for d in "$state"/v[0-9]*; do
	[ -d "$d" ] && [ -n "$change_id" ] || continue
	rev=${d##*/}
	tag=sent/$change_id-$rev
	git rev-parse -q --verify "refs/tags/$tag" >/dev/null && continue
	reset_worktree "$wt" "$S_BASE"
	git am -q "$d"/*.patch ||
		die "b4/$series/$rev does not apply to $S_BASE" "restore it from git (it is a record of what was sent)"
	# b4 reads the base-commit from the tag's message: the cover letter
	git tag -a -F "$d/cover.txt" "$tag" ||
		die "cannot tag the sent revision $rev" "restore b4/$series/$rev from git"
done
reset_worktree "$wt" "$S_BASE"
git checkout -q -B "$branch" "$S_BASE"

# The cover letter commit: b4 makes it for a new series; for one already
# sent, it is made from b4's tracking data as b4/ keeps it (b4 has no
# command to restore a change-id without fetching the thread).
if [ -n "$change_id" ]; then
	{
		cat "$S_COVER"
		printf '\n--- b4-submit-tracking ---\n'
		printf '# This section is used internally by b4 prep for tracking purposes.\n'
		jq . "$state/tracking.json"
	} | git commit -q --allow-empty -F - ||
		die "cannot restore b4's cover letter commit" "read the messages above"
else
	b4 prep -e "$S_BASE" >"$LOGS/b4-prep.log" 2>&1 ||
		die "b4 prep --enroll failed (log: $LOGS/b4-prep.log)" "read the log"
fi

# The patches: the placeholder identity becomes the sender's, as author
# and in the sign-off; a patch someone else wrote keeps its author (b4
# gives it an in-body From:).
for p in $patches; do
	git am -q "$p" ||
		die "${p##*/} does not apply to $S_BASE" "run make tree && make series (make upstream-series)"
	[ "$(git log -1 --format='%an <%ae>')" = "$PLACEHOLDER_AUTHOR" ] || continue
	git log -1 --format=%B | python3 -c '
import sys
print(sys.stdin.read().replace("Signed-off-by: " + sys.argv[1], "Signed-off-by: " + sys.argv[2]), end="")' \
		"$PLACEHOLDER_AUTHOR" "$AUTHOR" | git commit -q --amend --author="$AUTHOR" -F - ||
		die "cannot commit ${p##*/} as $AUTHOR" "check AUTHOR"
done

# The cover letter's text, then the changelog of every revision after the
# first (b4 starts each entry when it bumps the revision; b4/ keeps them).
{
	cat "$S_COVER"
	if [ -s "$state/changelog" ]; then
		printf '\n---\n'
		cat "$state/changelog"
	fi
} >"$BUILD/b4-cover-$series.txt"
EDITOR="cp $BUILD/b4-cover-$series.txt" b4 prep --edit-cover >>"$LOGS/b4-prep.log" 2>&1 ||
	die "b4 prep --edit-cover failed (log: $LOGS/b4-prep.log)" "read the log"
[ "$series" = ambient ] && { b4 prep --set-prefixes RFC >>"$LOGS/b4-prep.log" 2>&1 ||
	die "b4 prep --set-prefixes failed (log: $LOGS/b4-prep.log)" "read the log"; }
b4 prep --auto-to-cc >>"$LOGS/b4-prep.log" 2>&1 ||
	die "b4 prep --auto-to-cc failed (log: $LOGS/b4-prep.log)" "read the log"
save_tracking() {
	git log -1 --format=%B "$(git log --grep='^--- b4-submit-tracking ---$' --format=%H -1)" |
		sed -n '/^--- b4-submit-tracking ---$/,$p' | sed '1,2d' | jq . >"$state/tracking.json.new" &&
		mv "$state/tracking.json.new" "$state/tracking.json" ||
		die "cannot save b4's tracking data to $state/tracking.json" "check the free space"
}
[ -n "$change_id" ] || { save_tracking; change_id=$(jq -r '.series["change-id"]' "$state/tracking.json"); }
revision=$(jq -r .series.revision "$state/tracking.json") ||
	die "cannot read the revision from $state/tracking.json" "restore it from git"

prev=$((revision - 1))
[ "$revision" -eq 1 ] || [ -d "$state/v$prev" ] ||
	die "b4/$series is at v$revision but keeps no v$prev" "restore b4/$series/v$prev from git (a record of what was sent)"

case $mode in
range-diff)
	[ "${revision:-1}" -gt 1 ] || die "v$revision is the first revision" "nothing was sent yet: there is nothing to compare"
	exec b4 prep --compare-to "v$((revision - 1))"
	;;
esac
if [ "$mode" = send ] && [ -z "${OUT:-}" ] && [ "${REFLECT:-}" != 1 ]; then
	# An unchanged changelog template is not a changelog.
	if [ "$revision" -gt 1 ] && grep -q EDITME "$state/changelog" 2>/dev/null; then
		die "b4/$series/changelog still says EDITME" "describe what is new in v$revision there, then send again"
	fi
	# v$revision went out already if its tag is there: the record of that
	# send (b4/) was not kept, and sending again would repeat v$revision.
	if git rev-parse -q --verify "refs/tags/sent/$change_id-v$revision" >/dev/null 2>&1; then
		die "v$revision was sent already (tag sent/$change_id-v$revision), but b4/$series says it is next" \
		    "check out b4/$series as committed after that send; if that send never happened: git -C build/src/b4-$series tag -d sent/$change_id-v$revision"
	fi
	if [ -z "${B4_STATE:-}" ] && [ -n "$(git -C "$TOP" status --porcelain -- "b4/$series")" ]; then
		die "b4/$series has changes not committed" "commit b4/$series (the record of the last send) first"
	fi
fi

# b4 prep --check: checkpatch --strict on each patch; b4 send asks for it.
if [ "$mode" = check ] || [ -z "${OUT:-}" ]; then
	b4 prep --check >"$LOGS/b4-check.log" 2>&1 || true
	sed -n '/^---$/,$p' "$LOGS/b4-check.log"
	grep -q 'Success: [0-9]*, Warning: 0, Error: 0' "$LOGS/b4-check.log" ||
		die "b4 prep --check reports problems (log: $LOGS/b4-check.log)" "fix the patches, then make series"
	[ "$mode" = check ] && exit 0
fi

# b4's --cc, for the lists the kernel's process asks for that
# get_maintainer.pl does not name: a change to the user-space API is
# copied to linux-api (Documentation/process/submitting-patches.rst).
# --not-me-too: b4 reads the sender's Cc from the Signed-off-by trailer
# and garbles a name that holds quotes and non-ASCII letters (b4 0.12 and
# 0.14 alike); the sender has the messages as From: anyway.
extra=(--not-me-too)
[ "$series" = ambient ] && extra+=(--cc linux-api@vger.kernel.org)
send_cc=${SEND_CC:-}
for a in ${send_cc//,/ }; do extra+=(--cc "$a"); done
if [ -n "${OUT:-}" ]; then
	rm -rf "$OUT"
	b4 send --no-sign "${extra[@]}" -o "$OUT" >"$LOGS/b4-send.log" 2>&1 ||
		die "b4 send -o failed (log: $LOGS/b4-send.log)" "read the log"
	ls "$OUT"
	exit 0
fi
# What goes out is checked first: written aside, every message must carry
# the sender's identity (scripts/outgoing-identity.py).
pre=$BUILD/outgoing-presend-$series
rm -rf "$pre"
b4 send --no-sign "${extra[@]}" -o "$pre" >"$LOGS/b4-send.log" 2>&1 ||
	die "b4 send -o failed (log: $LOGS/b4-send.log)" "read the log"
"$TOP/scripts/outgoing-identity.py" "$AUTHOR" "$PLACEHOLDER_AUTHOR" "$pre"/* ||
	die "the messages do not carry '$AUTHOR' (above); nothing was sent" "check git config sendemail.from and AUTHOR"
if [ "${REFLECT:-}" = 1 ]; then
	b4 send --reflect "${extra[@]}" ||
		die "b4 send --reflect failed" "read b4's messages above (git config sendemail.*)"
	exit 0
fi
b4 send "${extra[@]}" || die "b4 send failed" "read b4's messages above (git config sendemail.*)"

# b4 tagged the sent revision and bumped the series to the next: keep
# both, and the changelog entry it started, in b4/.
sent_tag=sent/$(jq -r '.series["change-id"]' "$state/tracking.json")-v$revision
git rev-parse -q --verify "refs/tags/$sent_tag" >/dev/null ||
	die "b4 did not tag the sent revision as $sent_tag" "read b4's messages above"
rm -rf "$state/v$revision"
git format-patch -q --zero-commit --no-signature -o "$state/v$revision" "$S_BASE..$sent_tag" &&
	git tag -l --format='%(contents)' "$sent_tag" >"$state/v$revision/cover.txt" ||
	die "cannot keep the sent patches in b4/$series/v$revision" "check the free space"
save_tracking
git log -1 --format=%B "$(git log --grep='^--- b4-submit-tracking ---$' --format=%H -1)" |
	sed '/^--- b4-submit-tracking ---$/,$d' | sed -n '/^Changes in v[0-9]*:$/,$p' |
	awk '{ l[NR] = $0 } NF { last = NR } END { for (i = 1; i <= last; i++) print l[i] }' >"$state/changelog"
msg "sent v$revision; now v$((revision + 1)). Describe it in b4/$series/changelog, and commit b4/$series"
