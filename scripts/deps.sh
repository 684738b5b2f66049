#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the package needs, then fetch the pinned
# kernel sources, 6.12 and today's upstream from unstable
# (scripts/debian-pkg.sh: a private APT configuration under
# build/, so the source is found even where the system's APT sources lack
# the security suite). Fast, and silent but for one line, when all is there.
#
# Every tool a script calls is in PACKAGES: a minimal Debian root
# (debootstrap --variant=minbase) plus make and git must be enough;
# make clean-room proves it.
. "$(dirname "$0")/lib.sh"
lock deps

PACKAGES="
	gcc libc6-dev make bc bison flex libelf-dev libssl-dev
	cpio xz-utils gzip kmod rsync git ccache python3 perl
	debian-archive-keyring
	qemu-system-x86 busybox-static
	sparse b4 codespell
	libcap-ng-dev libcap-dev libcap2-bin util-linux
	mandoc groff man-db python3-sphinx python3-sphinx-rtd-theme python3-ply python3-git
	gnuplot-nox jq debootstrap python3-yaml
"

# installed PKG: true when dpkg knows PKG as fully installed ("ii"). A
# package dpkg has never heard of makes dpkg-query fail: that is an answer
# (not installed), not an error.
installed() {
	local st
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) || return 1
	[ "${st%% *}" = ii ]
}

command -v dpkg-query >/dev/null ||
	die "dpkg-query is missing: this package builds on Debian (bookworm)" \
	    "run it on Debian, or install by hand what PACKAGES in scripts/deps.sh lists"

missing=
for p in $PACKAGES; do
	installed "$p" || missing="$missing $p"
done
missing=${missing# }

if [ -n "$missing" ]; then
	apt_cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing"
	[ "$(id -u)" = 0 ] ||
		die "missing Debian packages: $missing" "as root run: $apt_cmd; then run make again"
	export DEBIAN_FRONTEND=noninteractive
	msg "installing: $missing"
	apt-get update -q >"$LOGS/apt-update.log" 2>&1 ||
		die "apt-get update failed (log: $LOGS/apt-update.log): $(first_error "$LOGS/apt-update.log")" \
		    "check that the Debian archive in /etc/apt/sources.list* is reachable, then run make deps again"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing \
		>"$LOGS/apt-install.log" 2>&1 ||
		die "apt-get install failed (log: $LOGS/apt-install.log): $(first_error "$LOGS/apt-install.log")" \
		    "fix the cause named above (apt-cache policy PACKAGE shows where a package comes from), then run make deps again"
	still=
	for p in $missing; do
		installed "$p" || still="$still $p"
	done
	[ -z "$still" ] ||
		die "apt-get install succeeded but these are still not installed:$still" \
		    "read $LOGS/apt-install.log (a held package: apt-mark showhold; a half-configured one: dpkg --configure -a)"
fi

"$TOP/scripts/debian-pkg.sh" "$SOURCE_PKG" "$SOURCE_PIN" $SOURCE_SUITES
[ -f "$SOURCE_TARBALL" ] ||
	die "$SOURCE_PKG $(cat "$BUILD/debian/$SOURCE_PKG/VERSION") has no ${SOURCE_TARBALL#"$BUILD/debian/$SOURCE_PKG/root"}" \
	    "look at what it holds (build/debian/$SOURCE_PKG/root) and set SOURCE_TARBALL in scripts/lib.sh to its tarball"
echo "$SOURCE_PKG $(cat "$BUILD/debian/$SOURCE_PKG/VERSION")" >"$BUILD/source-version"
# today's upstream, for the flavour upstream and the standalone series
"$TOP/scripts/debian-pkg.sh" "$UPSTREAM_PKG" "$UPSTREAM_PIN" $UPSTREAM_SUITES
[ -f "$UPSTREAM_TARBALL" ] ||
	die "$UPSTREAM_PKG $(cat "$BUILD/debian/$UPSTREAM_PKG/VERSION") has no ${UPSTREAM_TARBALL#"$BUILD/debian/$UPSTREAM_PKG/root"}" \
	    "look at what it holds (build/debian/$UPSTREAM_PKG/root) and set UPSTREAM_TARBALL in scripts/lib.sh to its tarball"
"$TOP/scripts/debian-pkg.sh" "$B4_PKG" "$B4_PIN" $B4_SUITES
msg "packages present, $(cat "$BUILD/source-version"), $UPSTREAM_PKG $(cat "$BUILD/debian/$UPSTREAM_PKG/VERSION"), b4 $(cat "$BUILD/debian/$B4_PKG/VERSION"), in $SECONDS s"
