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
# says so. An already unpacked PIN costs no network at all.
#
# Writes build/debian/PKG/root (the unpacked files) and
# build/debian/PKG/VERSION (the version unpacked); root works too.
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: debian-pkg.sh PKG PIN SUITE..." "see the comment at its top"
pkg=$1 pin=$2
shift 2
suites="$*"
dest=$BUILD/debian/$pkg
apt_dir=$BUILD/apt/$(printf '%s' "$suites" | tr ' ' '+')
log=$LOGS/apt-$pkg.log

[ "$(cat "$dest/VERSION" 2>/dev/null)" = "$pin" ] && [ -d "$dest/root" ] && exit 0

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
apt-get "${APT_OPTS[@]}" -q update >"$log" 2>&1 ||
	die "apt-get update of $suites failed (log: $log)" \
	    "check that $MIRROR is reachable, then run again"

versions=$(apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>>"$log" | awk -F' [|] ' '{ print $2 }' || true)
[ -n "$versions" ] ||
	die "$pkg is in none of the suites $suites of $MIRROR" \
	    "check the package name, or set DEBIAN_MIRROR to an archive that has it"
want=$pin
if ! printf '%s\n' "$versions" | grep -qxF "$pin"; then
	want=$(printf '%s\n' "$versions" | head -n 1)
	loud "$pkg $pin, the pinned version, is gone from the archive; taking the newest, $want." \
	     "What was made against $pin may no longer apply: update the pin once it works."
fi
[ "$(cat "$dest/VERSION" 2>/dev/null)" = "$want" ] && [ -d "$dest/root" ] && exit 0

msg "downloading $pkg $want"
rm -rf "$dest/download" "$dest/root" "$dest/root.new"
mkdir -p "$dest/download"
(cd "$dest/download" && apt-get "${APT_OPTS[@]}" -q download "$pkg=$want") >>"$log" 2>&1 ||
	die "apt-get download $pkg=$want failed (log: $log)" \
	    "check the free space and that $MIRROR is reachable, then run again"
deb=$(ls "$dest/download/"*.deb)
dpkg-deb -x "$deb" "$dest/root.new" >>"$log" 2>&1 ||
	die "cannot unpack $deb (log: $log)" "check the free space, then run again"
mv "$dest/root.new" "$dest/root"
rm -rf "$dest/download"
echo "$want" >"$dest/VERSION"
msg "$pkg $want unpacked in ${dest#"$TOP"/}"
