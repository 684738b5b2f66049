#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test initramfs: busybox, the capabilities kselftests, the
# Debian clients they drive (setpriv, capsh) and our ABI probe.
#
# The selftests are built once, from the ambient tree's sources and
# stock's UAPI headers (the ABI under test), and linked statically: the
# very same binaries then run on all three kernels, so a difference in
# results is a difference in kernels.
#
# SELFTESTS_OVERLAY=DIR copies DIR over the capabilities directory first,
# to try a working copy of the suite without committing it to the tree.
#
#   payload.sh            the suite of the ambient branch, stock's headers
#   payload.sh upstream   the suite as the standalone series leaves it on
#                         Linux 7.2 (test_execve of 7.2 too), 7.2's headers:
#                         build/payload-upstream
#   payload.sh ambient|upstream --headers
#                         only install those UAPI headers (build/uapi,
#                         build/uapi-upstream), under the payload's lock
. "$(dirname "$0")/lib.sh"

if [ "${1:-ambient}" = upstream ]; then
	suite=$SRC/upstream hdr_tree=$SRC/upstream hdr_rev=upstream
	PAYLOAD=${PAYLOAD:-$BUILD/payload-upstream${SELFTESTS_OVERLAY:+-overlay}}
	HDR=$BUILD/uapi-upstream
else
	suite=$SRC/ambient hdr_tree=$SRC/stock hdr_rev=stock
	PAYLOAD=${PAYLOAD:-$BUILD/payload${SELFTESTS_OVERLAY:+-overlay}}
	HDR=$BUILD/uapi
fi
headers_only=
case ${2:-} in
"") ;;
--headers) headers_only=1 ;;
*) die "unknown option '$2'" "use payload.sh [upstream] [--headers]" ;;
esac
up_to_date "$(basename "$PAYLOAD")" && exit 0
mini=$PAYLOAD/src
root=$PAYLOAD/root
lock "payload-$(basename "$PAYLOAD")"
log=$LOGS/$(basename "$PAYLOAD")${headers_only:+-headers}.log
: >"$log"

for f in /usr/bin/setpriv /sbin/capsh /usr/bin/timeout; do
	[ -x "$f" ] || die "$f is missing" "run make deps"
done
[ -d "$suite/tools/testing/selftests" ] || die "no kernel tree at ${suite#"$TOP"/}" "run make tree"

# UAPI headers of the kernel under test's base, installed once per commit.
hdr_commit=$(git -C "$hdr_tree" rev-parse "$hdr_rev") || die "no tag $hdr_rev" "run make tree"
if [ "$(cat "$HDR/.rev" 2>/dev/null)" != "$hdr_commit" ]; then
	msg "installing the UAPI headers of $hdr_rev"
	rm -rf "$HDR"
	make -s -C "$hdr_tree" O="$HDR/obj" headers_install \
		INSTALL_HDR_PATH="$HDR" >>"$log" 2>&1 ||
		die_log "$log" "headers_install failed"
	echo "$hdr_commit" >"$HDR/.rev"
fi
[ -z "$headers_only" ] || exit 0

# A minimal tree with the selftests and the few files their Makefiles
# reach outside their own directory.
mkdir -p "$mini/scripts" "$mini/tools/testing"
cp -p "$suite/scripts/subarch.include" "$mini/scripts/"
rsync -a --delete "$suite/tools/include/" "$mini/tools/include/"
rsync -a --delete --exclude capabilities "$suite/tools/testing/selftests/" \
	"$mini/tools/testing/selftests/"
# the capabilities directory keeps its built objects so that rebuilds are
# incremental; sources come from the tree (and the overlay), copied by
# content and stamped now when they differ, never with an older time that
# would leave a stale binary looking up to date
rsync -rlp --checksum "$suite/tools/testing/selftests/capabilities/" \
	"$mini/tools/testing/selftests/capabilities/"
[ -n "${SELFTESTS_OVERLAY:-}" ] &&
	rsync -rlp --checksum "$SELFTESTS_OVERLAY/" "$mini/tools/testing/selftests/capabilities/"

msg "building the capabilities selftests"
# busybox first: the real binaries installed below replace its applets
initramfs_root "$root"
make -C "$mini/tools/testing/selftests" TARGETS=capabilities \
	KHDR_INCLUDES="-isystem $HDR/include" LDFLAGS=-static \
	INSTALL_PATH="$root/kselftest" install >>"$log" 2>&1 ||
	die_log "$log" "building the selftests failed" \
		"fix the selftest sources in ${suite#"$TOP"/}/tools/testing/selftests/capabilities"

# The package's own guest programs, one static binary per source file.
for c in "$TOP"/tests/guest/*.c; do
	gcc -static -O2 -Wall -Wextra -Werror -isystem "$HDR/include" \
		-o "$root/usr/libexec/ambient/$(basename "$c" .c)" "$c" >>"$log" 2>&1 ||
		die "building ${c#"$TOP"/} failed (log: $log)" "read the log"
done

copy_with_libs() {
	local bin=$1 lib
	rm -f "$root$bin"
	mkdir -p "$root$(dirname "$bin")"
	cp "$bin" "$root$bin"
	for lib in $(ldd "$bin" | grep -oE '/[^ ]+'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
copy_with_libs /usr/bin/setpriv
copy_with_libs /sbin/capsh
copy_with_libs /usr/bin/timeout		# the kselftest runner needs --foreground

pack_initramfs "$root" "$PAYLOAD/initramfs.cpio.gz"
msg "initramfs: $PAYLOAD/initramfs.cpio.gz ($(du -h "$PAYLOAD/initramfs.cpio.gz" | cut -f1))"
