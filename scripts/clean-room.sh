#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make clean-room: prove the README's set-up on a machine that has nothing.
#
# Makes a minimal Debian bookworm root under build/clean-room
# (debootstrap --variant=minbase), installs there only what the README
# tells a new user to install first (make and git), clones this
# repository's committed HEAD into it and runs make kselftest, which runs
# make deps first, exactly as the README writes it: the quickest proof of
# the set-up; FULL=1 then runs make check too.
# Prints the time of each phase and PASS or FAIL. The mounts it makes are
# undone on every way out, Ctrl-C included. Needs root (chroot, mounts).
. "$(dirname "$0")/lib.sh"

SETUP_PACKAGES="make git"	# what README.md tells a new user to install first
SUITE=bookworm
CR=$BUILD/clean-room
ROOT=$CR/root			# BUILD is a real path (lib.sh), as /proc/mounts shows it
CLONE=/root/ambient-caps

[ "$(id -u)" = 0 ] || die "make clean-room needs root (debootstrap, chroot, mounts)" \
	"run it as root"
command -v debootstrap >/dev/null || die "debootstrap is missing" "run make deps"
lock clean-room
mkdir -p "$CR" || die "cannot create $CR" "check the free space"

# mounted: the mount points under ROOT, deepest first (/proc/mounts writes
# a space as \040).
mounted() {
	awk -v r="$ROOT" '{ gsub(/\\040/, " ", $2) }
		$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r
}
# unmount_all: every mount under ROOT made private to it first, so that
# unmounting can never reach the host's own /dev or /sys through a shared
# bind mount; true when nothing is left mounted.
unmount_all() {
	local m p
	for p in /proc/[0-9]*; do	# processes still running in the root
		if [ "$(readlink "$p/root" 2>/dev/null || true)" = "$ROOT" ]; then
			kill -9 "${p#/proc/}" 2>/dev/null || true
		fi
	done
	while IFS= read -r m; do
		mount --make-rprivate "$m" 2>/dev/null || true
		umount -R "$m" 2>/dev/null || umount -R -l "$m" 2>/dev/null || true
	done < <(mounted)
	[ -z "$(mounted)" ]
}
cleanup() {
	local rc=$?
	trap '' INT TERM HUP
	unmount_all || loud "could not unmount under $ROOT: $(mounted | tr '\n' ' ')" \
		"unmount them by hand (umount -R) before removing build/"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

times=$CR/phases.tsv
: >"$times"
step() {	# step NAME CMD...: run CMD with its own log, record its time
	local name=$1 t0 rc=0 log
	shift
	log=$LOGS/clean-room-$(printf '%s' "$name" | tr -c 'a-z0-9' '-' | cut -c1-40).log
	t0=$SECONDS
	printf 'clean-room: %s (log: %s)\n' "$name" "${log#"$TOP"/}" >&2
	"$@" >"$log" 2>&1 || rc=$?
	printf '%s\t%d\n' "$name" $((SECONDS - t0)) >>"$times"
	STEP_LOG=$log
	return $rc
}
in_root() {	# in_root CMD: run a shell command in the root, as a login would
	chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "$1"
}
failed() {	# failed NAME: stop, naming the step, its first error line and log
	die_log "$STEP_LOG" "clean-room: '$1' failed" \
		"read the log; the root stays in ${ROOT#"$TOP"/} (chroot into it to look)"
}

# A fresh root every time; never remove one with anything mounted in it.
unmount_all || die "something is still mounted under $ROOT" "unmount it (umount -R) and run again"
rm -rf --one-file-system "$ROOT" || die "cannot remove the old $ROOT" "remove it by hand"
need_space 20000
debian_archives
include=
case $MIRROR in https://*) include=--include=ca-certificates ;; esac
step "debootstrap --variant=minbase $SUITE" \
	debootstrap --variant=minbase $include "$SUITE" "$ROOT" "$MIRROR" ||
	failed debootstrap
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
{ mount -t proc proc "$ROOT/proc" &&
	mount --rbind --make-rslave /dev "$ROOT/dev" &&
	mount --rbind --make-rslave /sys "$ROOT/sys"; } ||
	die "cannot mount /proc, /dev and /sys in the root" "run as root on a machine that allows mounts"

step "apt-get install $SETUP_PACKAGES" in_root \
	"apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $SETUP_PACKAGES" ||
	failed "apt-get install"
# git refuses to clone, as root, a repository that another user owns
printf '[safe]\n\tdirectory = *\n' >"$CR/gitconfig"
step "git clone" env GIT_CONFIG_GLOBAL="$CR/gitconfig" git clone -q "$TOP" "$ROOT$CLONE" ||
	failed "git clone"

pass=yes
step "make kselftest" in_root "cd $CLONE && make kselftest" || pass=no
kselftest_log=$STEP_LOG
# its phase table, before make check runs make kselftest's steps again
kphases=$ROOT$CLONE/build/logs/phases-kselftest-ambient.tsv
cp "$kphases" "$CR/kselftest-phases.tsv" 2>/dev/null || : >"$CR/kselftest-phases.tsv"
result=$(grep -E '^kselftest\[ambient\]: ' "$kselftest_log" | tail -n 1 || true)
case $result in *" 0 failed"*) ;; *) pass=no ;; esac
check_line=
if [ "$pass" = yes ] && [ -n "${FULL:-}" ]; then
	step "make check" in_root "cd $CLONE && make check" || pass=no
	check_line=$(grep -E '^check: [0-9]+ passed, [0-9]+ failed' "$STEP_LOG" | tail -n 1 || true)
	[ -n "$check_line" ] || pass=no
fi

# The phases inside make kselftest, as its scripts reported them.
printf '\nclean-room phases (s):\n'
while IFS=$'\t' read -r name secs; do
	printf '  %-44s %6d\n' "$name" "$secs"
	[ "$name" = "make kselftest" ] || continue
	sed -n 's/^deps.sh: packages present.* in \([0-9]*\) s$/deps (packages and kernel source)\t\1/p
		s/^tree.sh: trees ready in \([0-9]*\) s$/tree\t\1/p' "$kselftest_log" |
		awk -F'\t' '{ printf "    %-42s %6d\n", $1, $2 }'
	awk -F'\t' '{ printf "    %-42s %6.0f\n", $1, $2 }' "$CR/kselftest-phases.tsv"
done <"$times"
printf '  %-44s %6d\n' total "$SECONDS"
printf 'clean-room: %s\n' "${result:-no kselftest result}"
[ -z "$check_line" ] || printf 'clean-room: make check: %s\n' "$check_line"
if [ "$pass" = yes ]; then
	echo "clean-room: PASS"
else
	printf 'clean-room: FAIL: %s\n' "$(first_error "$STEP_LOG")"
	printf 'clean-room: log %s; the root stays in %s\n' "${STEP_LOG#"$TOP"/}" "${ROOT#"$TOP"/}"
	exit 1
fi
