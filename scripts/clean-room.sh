#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make clean-room: prove the README's set-up on a machine that has nothing.
#
# Makes a minimal Debian bookworm root under build/clean-room
# (debootstrap --variant=minbase), installs there only what the README
# tells a new user to install first (make and git), clones this
# repository's committed HEAD into it and runs the README's main command,
# make kselftest, exactly as written; FULL=1 then runs make check too.
# Prints the time of each phase and PASS or FAIL. The mounts it makes are
# undone on every way out, Ctrl-C included. Needs root (chroot, mounts).
. "$(dirname "$0")/lib.sh"

CR=$BUILD/clean-room
ROOT=$CR/root
LOG=$LOGS/clean-room.log
SETUP_PACKAGES="make git"	# what README.md tells a new user to install first
SUITE=bookworm

[ "$(id -u)" = 0 ] || die "make clean-room needs root (debootstrap, chroot, mounts)" \
	"run it as root"
command -v debootstrap >/dev/null || die "debootstrap is missing" "run make deps"
lock clean-room

mounted() { awk -v r="$ROOT" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts; }
unmount_all() {
	local m
	for m in $(mounted | sort -r); do
		umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	[ -z "$(mounted)" ]
}
cleanup() {
	local rc=$?
	unmount_all || loud "could not unmount under $ROOT: $(mounted | tr '\n' ' ')" \
		"unmount them by hand before removing build/"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

: >"$LOG"
times=$CR/phases.tsv
mkdir -p "$CR"
: >"$times"
step() {	# step NAME CMD...: run CMD, log its output, record its time
	local name=$1 t0 rc=0
	shift
	t0=$SECONDS
	printf 'clean-room: %s ...\n' "$name" >&2
	"$@" >>"$LOG" 2>&1 || rc=$?
	printf '%s\t%d\n' "$name" $((SECONDS - t0)) >>"$times"
	[ $rc -eq 0 ] || die_log "$LOG" "clean-room: '$name' failed (exit $rc)" \
		"read the log; the root stays in build/clean-room/root for a look (chroot into it)"
}
in_root() {	# in_root CMD: run a shell command in the root, as a login would
	chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "$1"
}

# A fresh root every time: never remove one with anything mounted in it.
unmount_all || die "something is still mounted under $ROOT" "unmount it (umount -R) and run again"
rm -rf --one-file-system "$ROOT"
debian_archives
step "debootstrap --variant=minbase $SUITE" \
	debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
{ mount -t proc proc "$ROOT/proc" &&
	mount --rbind /dev "$ROOT/dev" && mount --make-rslave "$ROOT/dev" &&
	mount --rbind /sys "$ROOT/sys" && mount --make-rslave "$ROOT/sys"; } ||
	die "cannot mount /proc, /dev and /sys in the root" "run as root on a machine that allows mounts"

step "apt-get install $SETUP_PACKAGES" in_root \
	"apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $SETUP_PACKAGES"
step "git clone" git clone -q "$TOP" "$ROOT/root/ambient-caps"
rc=0
t0=$SECONDS
printf 'clean-room: make kselftest ... (log: %s)\n' "${LOG#"$TOP"/}" >&2
in_root "cd /root/ambient-caps && make kselftest" >>"$LOG" 2>&1 || rc=$?
printf '%s\t%d\n' "make kselftest" $((SECONDS - t0)) >>"$times"
result=$(grep -E '^kselftest\[ambient\]: ' "$LOG" | tail -n 1 || true)
pass=no
[ $rc -eq 0 ] && [ -n "$result" ] && case $result in *" 0 failed"*) pass=yes ;; esac
if [ "$pass" = yes ] && [ -n "${FULL:-}" ]; then
	t0=$SECONDS
	printf 'clean-room: make check ...\n' >&2
	in_root "cd /root/ambient-caps && make check" >>"$LOG" 2>&1 || rc=$?
	printf '%s\t%d\n' "make check" $((SECONDS - t0)) >>"$times"
	check_line=$(grep -E '^check: [0-9]+ passed, [0-9]+ failed' "$LOG" | tail -n 1 || true)
	[ $rc -eq 0 ] && [ -n "$check_line" ] || pass=no
fi

# The phases inside make kselftest, as its scripts printed them.
k=$ROOT/root/ambient-caps/build/logs
printf '\nclean-room phases (s):\n'
while IFS=$'\t' read -r name secs; do
	printf '  %-40s %6d\n' "$name" "$secs"
	if [ "$name" = "make kselftest" ]; then
		sed -n 's/^deps.sh: packages present.* in \([0-9]*\) s$/    deps (packages and kernel source)\t\1/p;
			s/^tree.sh: trees ready in \([0-9]*\) s$/    tree\t\1/p' "$LOG" |
			awk -F'\t' '{ printf "  %-40s %6d\n", $1, $2 }'
		[ -f "$k/phases-kselftest-ambient.tsv" ] &&
			awk -F'\t' '{ printf "    %-38s %6.0f\n", $1, $2 }' "$k/phases-kselftest-ambient.tsv"
	fi
done <"$times"
printf '  %-40s %6d\n' total "$SECONDS"
printf 'clean-room: %s\n' "${result:-no kselftest result (log: ${LOG#"$TOP"/})}"
[ -z "${check_line:-}" ] || printf 'clean-room: make check: %s\n' "$check_line"
if [ "$pass" = yes ]; then
	echo "clean-room: PASS"
else
	printf 'clean-room: FAIL: %s\n' "$(first_error "$LOG")"
	echo "clean-room: the root stays in build/clean-room/root; the log is ${LOG#"$TOP"/}"
	exit 1
fi
