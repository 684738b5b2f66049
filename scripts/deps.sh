#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the package needs. Fast when all is present.
. "$(dirname "$0")/lib.sh"

PACKAGES="
	$SOURCE_PKG
	bc bison flex cpio xz-utils kmod rsync git ccache
	libelf-dev libssl-dev
	qemu-system-x86 busybox-static
	sparse b4 codespell perl
	libcap-ng-dev libcap2-bin util-linux
	mandoc groff man-db python3-sphinx python3-sphinx-rtd-theme python3-ply python3-git
	gnuplot-nox jq
"

missing=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' $PACKAGES \
	  2>/dev/null | awk '$2 != "ii" { print $1 }')
for p in $PACKAGES; do
	dpkg-query -W "$p" >/dev/null 2>&1 || missing="$missing $p"
done
have=$(dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null || true)

record() {
	echo "$SOURCE_PKG $(dpkg-query -W -f='${Version}' "$SOURCE_PKG")" \
		>"$BUILD/source-version"
}

pin_available() {
	apt-cache madison "$SOURCE_PKG" 2>/dev/null | awk '{ print $3 }' |
		grep -qxF "$SOURCE_PIN"
}

if [ -z "$(echo $missing)" ] && [ -n "$have" ]; then
	if [ "$have" = "$SOURCE_PIN" ]; then
		record
		exit 0
	fi
	if ! pin_available; then
		loud "$SOURCE_PKG is $have, not the pinned $SOURCE_PIN" \
		     "(gone from the archive): base/ and series/ may not apply."
		record
		exit 0
	fi
fi

apt_cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends"
if [ "$(id -u)" != 0 ]; then
	die "missing packages:$(echo $missing)${have:+ (and $SOURCE_PKG is $have, not $SOURCE_PIN)}" \
	    "as root run: $apt_cmd $(echo $missing) $SOURCE_PKG=$SOURCE_PIN"
fi

export DEBIAN_FRONTEND=noninteractive
msg "installing:$(echo $missing)"
apt-get update -q >"$LOGS/apt-update.log" 2>&1 ||
	die "apt-get update failed (see $LOGS/apt-update.log)" \
	    "check the Debian archive is reachable, then run make deps again"

want="$SOURCE_PKG=$SOURCE_PIN"
if ! pin_available; then
	newest=$(apt-cache madison "$SOURCE_PKG" | awk 'NR == 1 { print $3 }')
	[ -n "$newest" ] ||
		die "$SOURCE_PKG is not in the archive at all" \
		    "enable bookworm (and bookworm-security / bookworm-updates) in apt sources"
	loud "$SOURCE_PKG $SOURCE_PIN is gone from the archive; using $newest instead." \
	     "base/ and series/ were made against $SOURCE_PIN and may not apply."
	want="$SOURCE_PKG=$newest"
fi

# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends --allow-downgrades \
	$(echo $missing | tr ' ' '\n' | grep -vxF "$SOURCE_PKG") "$want" \
	>"$LOGS/apt-install.log" 2>&1 ||
	die "apt-get install failed (see $LOGS/apt-install.log)" \
	    "read the log's last lines, fix the cause, run make deps again"
record
msg "$(cat "$BUILD/source-version") installed"
