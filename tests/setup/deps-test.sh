#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regression test of the set-up logic (scripts/deps.sh and
# scripts/debian-pkg.sh) without a network, a chroot or root: stub
# dpkg-query, dpkg-deb, apt-get, apt-cache and id on PATH play a machine in
# a given state, and each case checks deps.sh's exit status, what it asked
# APT to do and what it said. No case may end without a message.
#
#   tests/setup/deps-test.sh        prints "ok N - CASE" / "not ok N - CASE"
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PIN=$(sed -n 's/^SOURCE_PIN=//p' "$TOP/scripts/lib.sh")
PKG=$(sed -n 's/^SOURCE_PKG=//p' "$TOP/scripts/lib.sh")
NEWER=${PIN%%-*}.1-1~deb12u1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The stubs read the machine's state from $STATE: installed (one package a
# line), archive (the versions of $PKG the archive has, newest first),
# archive-suite (the suite that carries them), uid; they log to $STATE/log.
mkdir -p "$WORK/bin"
cat >"$WORK/bin/dpkg-query" <<'EOF'
#!/bin/bash
# dpkg-query -W [-f=FORMAT] PKG...: fails for a package not installed.
fmt='${Package}\t${Version}\n' rc=0
for a in "$@"; do
	case $a in
	-W) ;;
	-f=*) fmt=${a#-f=} ;;
	-*) ;;
	*)	if grep -qxF "$a" "$STATE/installed"; then
			out=${fmt//'${Package}'/$a}
			out=${out//'${db:Status-Abbrev}'/ii }
			out=${out//'${Version}'/1.0}
			printf "${out//%/%%}"
		else
			echo "dpkg-query: no packages found matching $a" >&2
			rc=1
		fi ;;
	esac
done
exit $rc
EOF
cat >"$WORK/bin/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >>"$STATE/log"
cmd=
while [ $# -gt 0 ]; do
	case $1 in
	-o) shift ;;
	-*) ;;
	*) [ -z "$cmd" ] && cmd=$1 || args="${args:-} $1" ;;
	esac
	shift
done
case $cmd in
update) exit 0 ;;
install) for p in $args; do echo "${p%%=*}" >>"$STATE/installed"; done ;;
download) p=${args# }; : >"./${p%%=*}_${p#*=}_all.deb" ;;
*) echo "apt-get stub: unexpected $cmd" >&2; exit 100 ;;
esac
EOF
cat >"$WORK/bin/apt-cache" <<'EOF'
#!/bin/bash
# apt-cache [-o Dir::Etc::sourcelist=F ...] madison PKG: the archive's
# versions, when a source in F names the suite that carries them.
list=/etc/apt/sources.list
while [ $# -gt 0 ]; do
	case $1 in
	-o) case $2 in Dir::Etc::sourcelist=*) list=${2#*=} ;; esac; shift ;;
	madison) pkg=$2; shift ;;
	esac
	shift
done
grep -q " $(cat "$STATE/archive-suite") main" "$list" 2>/dev/null || exit 0
while read -r v; do
	echo "$pkg | $v | http://archive.invalid/debian $(cat "$STATE/archive-suite")/main amd64 Packages"
done <"$STATE/archive"
EOF
cat >"$WORK/bin/dpkg-deb" <<'EOF'
#!/bin/bash
# dpkg-deb -x DEB DIR: a package holding the kernel source tarball.
[ "$1" = -x ] || exit 2
mkdir -p "$3/usr/src" && echo "$2" >"$3/usr/src/linux-source-6.12.tar.xz"
EOF
cat >"$WORK/bin/id" <<'EOF'
#!/bin/bash
case $1 in
-u) cat "$STATE/uid" ;;
-un) [ "$(cat "$STATE/uid")" = 0 ] && echo root || echo user ;;
*) exec /usr/bin/id "$@" ;;
esac
EOF
chmod +x "$WORK/bin/"*

# All the packages deps.sh lists.
packages=$(sed -n '/^PACKAGES="/,/^"/p' "$TOP/scripts/deps.sh" | sed '1d;$d' | tr -s ' \t' '\n' | sed '/^$/d')

n=0 failures=0
# setup: a machine with every package and the archive having the pin in
# bookworm-security, which the system's sources (bookworm main) lack.
setup() {
	STATE=$WORK/state-$n
	rm -rf "$STATE"
	mkdir -p "$STATE/etc" "$STATE/build"
	echo "$packages" >"$STATE/installed"
	printf '%s\n' "$PIN" >"$STATE/archive"
	echo bookworm-security >"$STATE/archive-suite"
	echo 0 >"$STATE/uid"
	echo 'deb http://archive.invalid/debian bookworm main' >"$STATE/etc/sources.list"
	: >"$STATE/log"
}
run() {	# run: deps.sh in the stubbed machine; sets rc and out
	out=$(cd "$TOP" && env STATE="$STATE" PATH="$WORK/bin:$PATH" BUILD="$STATE/build" \
		APT_ETC="$STATE/etc" DEBIAN_MIRROR= scripts/deps.sh 2>&1)
	rc=$?
}
result() {	# result NAME CONDITION-STATUS: report one case
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1 (exit $rc)"
		printf '%s\n' "$out" | sed 's/^/#   /'
		failures=$((failures + 1))
	fi
}
installs() { grep '^apt-get .*install' "$STATE/log" | grep -qw -- "$1"; }
version() { cat "$STATE/build/debian/$PKG/VERSION" 2>/dev/null; }

setup; run
[ $rc -eq 0 ] && [ -n "$out" ] && ! installs . && [ "$(version)" = "$PIN" ] &&
	grep -q "bookworm-security main" "$STATE/build/apt/"*/sources.list &&
	grep -q "archive.invalid/debian-security" "$STATE/build/apt/"*/sources.list
result "all present, pin only in bookworm-security: fetched through the private APT configuration" $?

setup; run; run
[ $rc -eq 0 ] && [ "$(grep -c ' download ' "$STATE/log")" -eq 1 ] && printf '%s' "$out" | grep -q 'packages present'
result "second run: nothing downloaded again, one line said" $?

setup; grep -vxE 'qemu-system-x86|sparse|b4' "$STATE/installed" >"$STATE/i" && mv "$STATE/i" "$STATE/installed"; run
[ $rc -eq 0 ] && installs qemu-system-x86 && installs sparse && installs b4 &&
	! installs git && printf '%s' "$out" | grep -q 'installing: .*qemu-system-x86'
result "some packages missing: installs exactly them, and says so" $?

setup; grep -vxE 'gcc|make' "$STATE/installed" >"$STATE/i" && mv "$STATE/i" "$STATE/installed"; run
[ $rc -eq 0 ] && installs gcc && installs make
result "compiler and make missing (a minbase root): installs gcc and make" $?

setup; echo 'deb http://archive.invalid/debian bookworm main' >"$STATE/etc/sources.list"
echo sid >"$STATE/archive-suite"; run
[ $rc -ne 0 ] && printf '%s' "$out" | grep -q "error: $PKG is in none of the suites" &&
	printf '%s' "$out" | grep -q 'next step:'
result "pinned source in no suite searched: an error naming the cause and the next step" $?

setup; printf '%s\n' "$NEWER" >"$STATE/archive"; run
[ $rc -eq 0 ] && [ "$(version)" = "$NEWER" ] && printf '%s' "$out" | grep -q "WARNING: $PKG $PIN.*gone.*$NEWER"
result "pinned version gone: the newest is taken, with a loud warning" $?

setup; grep -vxE 'gcc|jq' "$STATE/installed" >"$STATE/i" && mv "$STATE/i" "$STATE/installed"
echo 1000 >"$STATE/uid"; run
[ $rc -ne 0 ] && ! installs . && printf '%s' "$out" | grep -q 'error: missing Debian packages: gcc jq' &&
	printf '%s' "$out" | grep -qF 'as root run: apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc jq'
result "not root: prints the exact command to run as root and fails" $?

setup; grep -vx qemu-system-x86 "$STATE/installed" >"$STATE/i" && mv "$STATE/i" "$STATE/installed"
# an install that succeeds but leaves a package out (a held or broken one)
sed -i 's/^install) for p in $args; do/install) for p in ${args\/qemu-system-x86\/}; do/' "$WORK/bin/apt-get"; run
sed -i 's/^install) for p in ${args\/qemu-system-x86\/}; do/install) for p in $args; do/' "$WORK/bin/apt-get"
[ $rc -ne 0 ] && printf '%s' "$out" | grep -q 'still not installed: qemu-system-x86'
result "an install that leaves a package out: named, not a silent success" $?

echo "deps-test: $((n - failures)) passed, $failures failed"
[ $failures -eq 0 ]
