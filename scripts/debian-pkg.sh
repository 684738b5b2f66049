#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch one Debian package and unpack it under build/debian/PKG, through a
# private APT configuration under build/apt: the system's APT sources are
# never changed and the package is never installed.
#
#   debian-pkg.sh PKG PIN SUITE...
#
# SUITEs are Debian suite names (bookworm, bookworm-security, sid, ...);
# the archive is the Debian mirror the system's APT sources name
# (DEBIAN_MIRROR=URI overrides it), and a SUITE ending in -security comes
# from the mirror's security archive. PIN is the version wanted: when the
# archive no longer has it, the newest version is taken and a loud warning
# says so; that choice is remembered (build/debian/PKG/PIN-GONE) and costs
# no network on later runs unless REFRESH=1. An already unpacked PIN costs
# no network at all.
#
# Writes build/debian/PKG/root (the unpacked files) and
# build/debian/PKG/VERSION (the version unpacked); root works too.
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: debian-pkg.sh PKG PIN SUITE..." "see the comment at its top"
pkg=$1 pin=$2
shift 2
suites="$*"
dest=$BUILD/debian/${PKG_DIR:-$pkg}
apt_dir=$BUILD/apt/$(printf '%s' "$suites" | tr ' ' '+')
log=$LOGS/apt-${PKG_DIR:-$pkg}.log

have=$(cat "$dest/VERSION" 2>/dev/null || true)
[ "$have" = "$pin" ] && [ -d "$dest/root" ] && exit 0
if [ -n "$have" ] && [ -d "$dest/root" ] && [ -z "${REFRESH:-}" ] &&
   [ "$(cat "$dest/PIN-GONE" 2>/dev/null || true)" = "$pin" ]; then
	loud "$pkg $pin, the pinned version, was gone from the archive; using $have." \
	     "What was made against $pin may no longer apply (REFRESH=1 asks the archive again)."
	exit 0
fi

for t in apt-get apt-cache dpkg-deb; do
	command -v "$t" >/dev/null ||
		die "$t is missing: fetching $pkg needs Debian's APT" "run this on Debian (or Ubuntu)"
done

debian_archives

# The private configuration: its own sources file, lists and cache.
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$dest" ||
	die "cannot create $apt_dir" "check the free space"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring is missing" "install debian-archive-keyring (as root)"
for s in $suites; do
	case $s in
	*-security) printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$SECURITY" "$s" ;;
	*) printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$MIRROR" "$s" ;;
	esac
done >"$apt_dir/sources.list"
APT_OPTS=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=/dev/null
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
# as root, APT would download as _apt, who cannot write under build/
[ "$(id -u)" != 0 ] || APT_OPTS+=(-o APT::Sandbox::User=root)

msg "reading the package lists of $suites"
if ! apt-get "${APT_OPTS[@]}" -q --error-on=any update >"$log" 2>&1; then
	# A mirror that is not refreshed (a snapshot) serves Release files past
	# their Valid-Until date.  Their signatures still hold, and the pinned
	# version is checked against them: accept them, loudly.
	grep -q 'is expired' "$log" ||
		die_log "$log" "apt-get update of $suites failed" \
			"check that $MIRROR (and for -security suites $SECURITY) can be reached, or set DEBIAN_MIRROR / DEBIAN_SECURITY; then run again"
	loud "$(grep -m1 -o 'Release file for [^ ]* is expired[^.]*' "$log")." \
		"The archive serves expired Release files (a mirror or snapshot that is not refreshed): using them; their signatures are still checked."
	APT_OPTS+=(-o Acquire::Check-Valid-Until=false)
	apt-get "${APT_OPTS[@]}" -q --error-on=any update >"$log" 2>&1 ||
		die_log "$log" "apt-get update of $suites failed" \
			"check that $MIRROR (and for -security suites $SECURITY) can be reached, or set DEBIAN_MIRROR / DEBIAN_SECURITY; then run again"
fi

versions=$(apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>>"$log" | awk -F'|' '{ gsub(/[ \t]/, "", $2); print $2 }' || true)
[ -n "$versions" ] ||
	die "$pkg is in none of the suites $suites (archives $MIRROR, $SECURITY)" \
	    "check the package name, or set DEBIAN_MIRROR / DEBIAN_SECURITY to archives that have it"
want=$pin
rm -f "$dest/PIN-GONE"
if ! grep -qxF -- "$pin" <<<"$versions"; then
	want=${versions%%$'\n'*}
	echo "$pin" >"$dest/PIN-GONE"
	loud "$pkg $pin, the pinned version, is gone from the archive; taking the newest, $want." \
	     "What was made against $pin may no longer apply: update the pin once it works."
fi
[ "$have" = "$want" ] && [ -d "$dest/root" ] && exit 0

# Download and unpack aside; the unpacked version in use is replaced only
# once the new one is complete.
msg "downloading $pkg $want"
rm -rf "$dest/download" "$dest/root.new"
mkdir -p "$dest/download" || die "cannot create $dest/download" "check the free space"
(cd "$dest/download" && apt-get "${APT_OPTS[@]}" -q download "$pkg=$want") >>"$log" 2>&1 ||
	die_log "$log" "apt-get download $pkg=$want failed" \
		"check the free space and that the archive can be reached, then run again"
for deb in "$dest/download/"*.deb; do :; done
[ -f "$deb" ] || die "apt-get download left no .deb in $dest/download" "read $log"
dpkg-deb -x "$deb" "$dest/root.new" >>"$log" 2>&1 ||
	die_log "$log" "cannot unpack $deb" "check the free space, then run again"
rm -rf "$dest/root" && mv "$dest/root.new" "$dest/root" && rm -rf "$dest/download" &&
	echo "$want" >"$dest/VERSION" ||
	die "cannot move the unpacked $pkg into $dest/root" "check the free space and permissions"
msg "$pkg $want unpacked in ${dest#"$TOP"/}"
