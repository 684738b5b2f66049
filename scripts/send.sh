#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the series for sending with b4 and write the messages to
# build/outgoing. Never sends mail: b4 send -o only writes files; sending
# for real is `b4 send` by hand in build/src/b4 after reading them.
#
# The committed series/ is applied to pre-ambient on branch b4/ambient,
# with From: and Signed-off-by: set to $AUTHOR; the placeholder identity is
# refused unless DRY_RUN=1 (what make check uses). SERIES=upstream does the
# same for the standalone series on Linux 7.2 (upstream/kselftest-docs/,
# messages in build/outgoing-upstream).
. "$(dirname "$0")/lib.sh"
series=${SERIES:-ambient}
series_vars "$series"

command -v b4 >/dev/null || die "b4 is missing" "run make deps"
if [ "$AUTHOR" = "$PLACEHOLDER_AUTHOR" ] && [ "${DRY_RUN:-}" != 1 ]; then
	die "AUTHOR is the placeholder '$PLACEHOLDER_AUTHOR'" \
	    "make send AUTHOR='Your Name <you@example.com>' (or DRY_RUN=1 to try the flow)"
fi
patches=$(series_patches_of "$S_DIR")
[ -n "$patches" ] || die "${S_DIR#"$TOP"/} holds no patches" "run make series (make upstream-series)"

wt=$SRC/b4-$series
out=$S_OUT
lock "b4-$series"
# b4 and git read the identity from the configuration.
# Without an SMTP server in the configuration b4 assumes its web endpoint,
# which wants signed messages; -o never connects to either.
export GIT_CONFIG_COUNT=4
export GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$(author_name)"
export GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$(author_email)"
export GIT_CONFIG_KEY_2=b4.prep-cover-strategy GIT_CONFIG_VALUE_2=commit
export GIT_CONFIG_KEY_3=sendemail.smtpServer GIT_CONFIG_VALUE_3=localhost

add_worktree "$wt" "$S_BASE"
reset_worktree "$wt" "$S_BASE"
git -C "$wt" branch -q -D "b4/$series" 2>/dev/null || true
git -C "$wt" checkout -q -b "b4/$series"

rm -rf "$BUILD/send"
mkdir -p "$BUILD/send"
for p in $patches; do
	sed -e "s/^From: $PLACEHOLDER_AUTHOR\$/From: $AUTHOR/" \
	    -e "s/^Signed-off-by: $PLACEHOLDER_AUTHOR\$/Signed-off-by: $AUTHOR/" \
	    "$p" >"$BUILD/send/${p##*/}"
	git -C "$wt" am -q "$BUILD/send/${p##*/}" ||
		die "${p##*/} does not apply to $S_BASE" "run make tree && make series (make upstream-series)"
done

# The cover letter: cover-letter.txt is already "subject, blank line,
# body", the form b4 keeps; b4 adds the shortlog, diffstat and base-commit.
cp "$S_COVER" "$BUILD/send/cover.txt"

cd "$wt"
b4 prep -e "$S_BASE" >"$LOGS/b4-prep.log" 2>&1 ||
	die "b4 prep --enroll failed (log: $LOGS/b4-prep.log)" "read the log"
EDITOR="cp $BUILD/send/cover.txt" b4 prep --edit-cover >>"$LOGS/b4-prep.log" 2>&1 ||
	die "b4 prep --edit-cover failed (log: $LOGS/b4-prep.log)" "read the log"
b4 prep --auto-to-cc >>"$LOGS/b4-prep.log" 2>&1 ||
	die "b4 prep --auto-to-cc failed (log: $LOGS/b4-prep.log)" "read the log"
rm -rf "$out"
b4 send --no-sign -o "$out" >"$LOGS/b4-send.log" 2>&1 ||
	die "b4 send -o failed (log: $LOGS/b4-send.log)" "read the log"
ls "$out"
