#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the standalone series (upstream/kselftest-docs/) with the tools of
# the tree it is sent against, Linux 7.2, as its maintainers would:
#
#   checkpatch   7.2's scripts/checkpatch.pl --strict: 0 errors, warnings, checks
#   selftests    make -C tools/testing/selftests TARGETS=capabilities: no warning
#                (the directory's Makefile builds with -Wall)
#   htmldocs     make htmldocs SPHINXDIRS="userspace-api security": no warning
#                that the unpatched 7.2 tree does not give
#   recipients   7.2's scripts/get_maintainer.pl names the kselftest, LSM and
#                documentation lists and the CAPABILITIES maintainer
#
#   upstream-check.sh [checkpatch|selftests|htmldocs|recipients]...  (default: all)
. "$(dirname "$0")/lib.sh"

series_vars upstream
tree=$S_TREE
[ "$(git -C "$tree" rev-parse HEAD 2>/dev/null)" = "$(git -C "$tree" rev-parse "$S_BRANCH" 2>/dev/null)" ] ||
	die "build/src/upstream is not at branch $S_BRANCH" "run make tree"

checkpatch() { "$TOP/scripts/checkpatch.sh" "$S_DIR" "$tree"; }

selftests() {
	local obj=$OBJ/upstream-selftests log=$LOGS/upstream-selftests.log hdr=$BUILD/uapi-upstream
	# payload.sh installs the headers once, under the payload's lock: a
	# test of their directory here could see an install half done.
	"$TOP/scripts/payload.sh" upstream --headers >/dev/null ||
		die "cannot install 7.2's UAPI headers" "run make payload, read its error"
	rm -rf "$obj"
	make -C "$tree/tools/testing/selftests" TARGETS=capabilities O="$obj" V=1 \
		KHDR_INCLUDES="-isystem $hdr/include" >"$log" 2>&1 ||
		die_log "$log" "the capabilities selftests do not build on 7.2"
	if grep -E 'warning:' "$log"; then
		die "the capabilities selftests build with warnings on 7.2 (above)" "fix them on the ambient branch, then make upstream-series"
	fi
	grep -E -- '-Wall' "$log" >/dev/null || die "the selftests were not built with -Wall (log: $log)" "check tools/testing/selftests/capabilities/Makefile"
	echo "selftests: $(find "$obj" -type f -perm -u+x | wc -l) programs built with -Wall, 0 warnings"
}

htmldocs() {
	local base=$SRC/upstream-base
	add_worktree "$base" upstream
	reset_worktree "$base" upstream
	"$TOP/scripts/htmldocs-check.sh" "$tree" "$base"
}

recipients() {
	local p out want missing=
	for p in $(series_patches_of "$S_DIR"); do
		out=$(cd "$tree" && ./scripts/get_maintainer.pl --no-git --no-git-fallback "$p" 2>&1) ||
			die "7.2's get_maintainer.pl failed on ${p##*/}: $out" "run it by hand in build/src/upstream"
		printf '%s:\n%s\n' "${p##*/}" "$(printf '%s\n' "$out" | sed 's/^/    /')"
		all="${all:-} $out"
	done
	want="linux-kselftest@vger.kernel.org linux-security-module@vger.kernel.org linux-doc@vger.kernel.org"
	want="$want $(awk '/^CAPABILITIES$/ { on = 1; next } on && /^$/ { exit }
		on && /^M:/ { print }' "$tree/MAINTAINERS" | grep -oE '<[^>]+>' | tr -d '<>')"
	for a in $want; do
		case $all in *"$a"*) ;; *) missing="$missing $a" ;; esac
	done
	[ -z "$missing" ] || die "get_maintainer.pl does not name:$missing" \
		"check the MAINTAINERS entries the series touches"
	echo "recipients: $want all named by 7.2's get_maintainer.pl"
}

for step in ${*:-checkpatch selftests htmldocs recipients}; do
	case $step in
	checkpatch | selftests | htmldocs | recipients) phase "upstream $step" "$step" ;;
	*) die "unknown step '$step'" "use checkpatch, selftests, htmldocs or recipients" ;;
	esac
done
