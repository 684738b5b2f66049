#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regression test of the set-up logic (scripts/deps.sh and
# scripts/debian-pkg.sh) without a network, a chroot or root: the stubs in
# tests/setup/stubs (dpkg-query, dpkg-deb, apt-get, apt-cache, id) come
# first on PATH and play a machine in a given state, and each case checks
# deps.sh's exit status, what it asked APT to do and what it said. No case
# may end without a message.
#
#   tests/setup/deps-test.sh        prints "ok N - CASE" / "not ok N - CASE"
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
STUBS=$TOP/tests/setup/stubs
PIN=$(sed -n 's/^SOURCE_PIN=//p' "$TOP/scripts/lib.sh")
PKG=$(sed -n 's/^SOURCE_PKG=//p' "$TOP/scripts/lib.sh")
NEWER=${PIN%%-*}.1-1~deb12u1
UPSTREAM_PKG=$(sed -n 's/^UPSTREAM_PKG=//p' "$TOP/scripts/lib.sh")
UPSTREAM_PIN=$(sed -n 's/^UPSTREAM_PIN=//p' "$TOP/scripts/lib.sh")
B4_PKG=$(sed -n 's/^B4_PKG=//p' "$TOP/scripts/lib.sh")
B4_PIN=$(sed -n 's/^B4_PIN=//p' "$TOP/scripts/lib.sh")
WORK=$(mktemp -d) || exit 1
trap 'rm -rf "$WORK"' EXIT

# All the packages deps.sh lists.
packages=$(sed -n '/^PACKAGES="/,/^"/p' "$TOP/scripts/deps.sh" | sed '1d;$d' |
	tr -s ' \t' '\n' | sed '/^$/d')
[ -n "$packages" ] || { echo "deps-test: no PACKAGES found in scripts/deps.sh" >&2; exit 1; }

n=0
failures=0
# setup: a machine with every package, whose APT sources name only
# bookworm main (as debootstrap writes them), and an archive that has the
# pin in bookworm-security only (today's upstream source in sid, b4 in
# trixie). The
# stubs read and write $STATE.
setup() {
	STATE=$WORK/state-$n
	mkdir -p "$STATE/etc/sources.list.d" "$STATE/build" || exit 1
	echo "$packages" >"$STATE/installed"
	: >"$STATE/status"
	printf '%s\n' "$PIN" >"$STATE/archive"
	echo bookworm-security >"$STATE/archive-suite"
	printf '%s\n' "$UPSTREAM_PIN" >"$STATE/archive.$UPSTREAM_PKG"
	echo sid >"$STATE/archive-suite.$UPSTREAM_PKG"
	printf '%s\n' "$B4_PIN" >"$STATE/archive.$B4_PKG"
	echo trixie >"$STATE/archive-suite.$B4_PKG"
	echo 0 >"$STATE/uid"
	echo 'deb http://archive.invalid/debian bookworm main' >"$STATE/etc/sources.list"
	: >"$STATE/log"
}
run() {	# run [VAR=VALUE...]: deps.sh in the stubbed machine; sets rc and out
	out=$(cd "$TOP" && env STATE="$STATE" PATH="$STUBS:$PATH" AMBIENT_BUILD="$STATE/build" \
		APT_ETC="$STATE/etc" DEBIAN_MIRROR= DEBIAN_SECURITY= REFRESH= "$@" \
		scripts/deps.sh 2>&1)
	rc=$?
}
result() {	# result NAME STATUS: report one case
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1 (deps.sh exit $rc)"
		printf '%s\n' "$out" | sed 's/^/#   /'
		sed 's/^/#   called: /' "$STATE/log"
		failures=$((failures + 1))
	fi
}
uninstall() {	# uninstall PKG...: dpkg no longer knows them
	local p
	for p in "$@"; do sed -i "/^$p\$/d" "$STATE/installed"; done
}
asked_to_install() {	# the packages apt-get install was asked for, sorted, on one line
	sed -n 's/^apt-get \(.* \)\{0,1\}install //p' "$STATE/log" | tr ' ' '\n' |
		sed '/^-/d;/^$/d' | sort | paste -sd' '
}
# (not a pipe into grep -q: under pipefail, grep quitting at the first match
# can kill printf with SIGPIPE and fail a check that matched)
said() { grep -q -- "$1" <<<"$out"; }
updates() { grep -c '^apt-get .* update$' "$STATE/log"; }
private() {	# every update and download went through the private configuration
	local calls
	calls=$(grep -E '^apt-get .* (update|download) ?' "$STATE/log") || return 1
	[ -z "$(grep -v "Dir::Etc::sourcelist=$STATE/build/apt/" <<<"$calls")" ] &&
	[ -z "$(grep -v 'Dir::Etc::sourceparts=/dev/null' <<<"$calls")" ]
}
version() { cat "$STATE/build/debian/$PKG/VERSION" 2>/dev/null; }
lines() { printf '%s\n' "$out" | sed '/^$/d' | wc -l; }
sources() { cat "$STATE/build/apt/"*/sources.list 2>/dev/null; }

setup; run
[ $rc -eq 0 ] && [ -z "$(asked_to_install)" ] && [ "$(version)" = "$PIN" ] && private &&
	grep -q " http://archive.invalid/debian-security bookworm-security main$" <<<"$(sources)"
result "all present, pin only in bookworm-security: fetched through a private APT configuration" $?

setup; run; : >"$STATE/log"; echo 100 >"$STATE/fail-update"; run
[ $rc -eq 0 ] && [ ! -s "$STATE/log" ] && [ "$(lines)" -eq 1 ] && said 'packages present'
result "second run, offline: no APT call at all, one line said" $?

setup; uninstall qemu-system-x86 sparse b4; run
[ $rc -eq 0 ] && [ "$(asked_to_install)" = "b4 qemu-system-x86 sparse" ] &&
	said 'installing: .*qemu-system-x86'
result "some packages missing: installs exactly them, and says so" $?

setup; uninstall gcc make; run
[ $rc -eq 0 ] && [ "$(asked_to_install)" = "gcc make" ]
result "compiler and make missing (a minbase root): installs gcc and make" $?

setup; echo 'git iU' >"$STATE/status"; run
[ $rc -eq 0 ] && [ "$(asked_to_install)" = "git" ]
result "a package unpacked but not configured counts as missing" $?

setup; echo sid >"$STATE/archive-suite"; run
[ $rc -ne 0 ] && said "error: $PKG is in none of the suites" && said 'next step:'
result "pinned source in no suite searched: an error naming the cause and the next step" $?

setup; printf '%s\n%s\n' "$NEWER" "$PIN" >"$STATE/archive"; run
[ $rc -eq 0 ] && [ "$(version)" = "$PIN" ] && ! said WARNING
result "the pin and a newer version in the archive: the pin is taken" $?

setup; printf '%s\n' "$NEWER" >"$STATE/archive"; run
[ $rc -eq 0 ] && [ "$(version)" = "$NEWER" ] && said "WARNING: $PKG $PIN.*gone.*$NEWER"
r=$?; : >"$STATE/log"; run
[ $r -eq 0 ] && [ $rc -eq 0 ] && [ "$(updates)" -eq 0 ] && said "WARNING: .*gone.*using $NEWER"
r=$?; run REFRESH=1
[ $r -eq 0 ] && [ $rc -eq 0 ] && [ "$(updates)" -eq 1 ]
result "pinned version gone: the newest, loudly; remembered offline; REFRESH=1 asks again" $?

setup; uninstall gcc jq; echo 1000 >"$STATE/uid"; run
[ $rc -ne 0 ] && [ -z "$(asked_to_install)" ] && said 'error: missing Debian packages: gcc jq' &&
	said 'as root run: apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc jq'
result "not root: prints the exact command to run as root and fails" $?

setup; uninstall qemu-system-x86; echo qemu-system-x86 >"$STATE/no-install"; run
[ $rc -ne 0 ] && said 'still not installed: qemu-system-x86'
result "an install that leaves a package out: named, not a silent success" $?

setup; uninstall jq; echo 100 >"$STATE/fail-install"; run
[ $rc -ne 0 ] && said 'error: apt-get install failed.*Unable to locate package' && said 'next step:'
result "apt-get install fails: its first error line and a next step" $?

setup; echo 100 >"$STATE/fail-update"; run
[ $rc -ne 0 ] && said 'error: apt-get update of .* failed.*Failed to fetch' && said 'next step:'
result "the archive cannot be reached: the first error line and a next step" $?

setup; touch "$STATE/expired"; run
[ $rc -eq 0 ] && [ "$(version)" = "$PIN" ] &&
	grep -q 'Check-Valid-Until=false .*update$' "$STATE/log" &&
	said 'WARNING: Release file for .* is expired' && said 'signatures are still checked'
result "an archive that serves expired Release files: accepted on a second try, loudly" $?

setup; rm "$STATE/etc/sources.list"
echo 'deb [arch=amd64] https://thirdparty.invalid/apt stable main' >"$STATE/etc/sources.list.d/other.list"
printf '%s\n' 'Types: deb' 'URIs: http://archive.invalid/debian' 'Suites: bookworm bookworm-updates' \
	'Components: main' '' 'Types: deb' 'URIs: http://security.invalid/debian-security' \
	'Suites: bookworm-security' 'Components: main' >"$STATE/etc/sources.list.d/debian.sources"
printf '%s\n' 'Types: deb' 'URIs: https://vendor.invalid/linux/debian' 'Suites: bookworm' \
	'Components: stable' >"$STATE/etc/sources.list.d/a-vendor.sources"
run
[ $rc -eq 0 ] && [ "$(version)" = "$PIN" ] &&
	grep -q " http://archive.invalid/debian bookworm main$" <<<"$(sources)" &&
	grep -q " http://security.invalid/debian-security bookworm-security main$" <<<"$(sources)" &&
	! grep -q -e thirdparty -e vendor <<<"$(sources)"
result "deb822 sources and third-party ones: Debian's own archives are used" $?

setup; echo 'deb https://thirdparty.invalid/apt stable main' >"$STATE/etc/sources.list"; run
[ $rc -ne 0 ] && said 'error: .*name no Debian bookworm archive' && said DEBIAN_MIRROR
result "no Debian source at all: an error that names DEBIAN_MIRROR" $?

echo "deps-test: $((n - failures)) passed, $failures failed"
[ $failures -eq 0 ]
