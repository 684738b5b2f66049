# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts in this directory; sourced, never run.
#
# Every script runs from the package's top directory (the Makefile does
# this) and keeps everything it makes under $BUILD.

set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
LOGS=$BUILD/logs
FLAVOURS="stock pre-ambient ambient"

# The Debian source package the package is built and tested against.
SOURCE_PKG=linux-source-6.12
SOURCE_PIN=6.12.118-1~deb12u1
SOURCE_TARBALL=/usr/src/linux-source-6.12.tar.xz

REPO=$BUILD/linux.git		# bare-ish git repository holding all three
SRC=$BUILD/src			# one worktree per flavour
OBJ=$BUILD/obj			# one O= output directory per flavour

mkdir -p "$LOGS"

msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

# die CAUSE NEXT-STEP: stop with a message naming the cause and what to do.
die() {
	printf '\n%s: error: %s\n' "${0##*/}" "$1" >&2
	[ $# -gt 1 ] && printf '%s: next step: %s\n' "${0##*/}" "$2" >&2
	exit 1
}

# loud: a warning that must not scroll past unnoticed.
loud() {
	printf '\n%s\n%s: WARNING: %s\n%s\n\n' \
		'########################################################' \
		"${0##*/}" "$*" \
		'########################################################' >&2
}

check_flavour() {
	case " $FLAVOURS " in
	*" $1 "*) ;;
	*) die "unknown KERNEL '$1'" "use one of: $FLAVOURS" ;;
	esac
}

# build_name FLAVOUR: the name of FLAVOUR's build under KCONFIG, as used
# for build/obj/NAME and the VM: FLAVOUR itself for the minimal
# configuration, FLAVOUR-KCONFIG otherwise.
build_name() {
	case ${KCONFIG:-minimal} in
	minimal) printf '%s' "$1" ;;
	*) printf '%s-%s' "$1" "$KCONFIG" ;;
	esac
}

# kernel_image FLAVOUR [RUNNER]: set IMAGE to the bzImage to boot. That is
# $KIMAGE when set; otherwise FLAVOUR is built first (what is stale, as a
# phase run through RUNNER, default phase) and IMAGE is its bzImage.
kernel_image() {
	local name
	name=$(build_name "$1")
	if [ -n "${KIMAGE:-}" ]; then
		IMAGE=$KIMAGE
		return 0
	fi
	"${2:-phase}" "kernel $name" "$TOP/scripts/kernel.sh" "$1" || return
	IMAGE=$OBJ/$name/arch/x86/boot/bzImage
}

# phase NAME CMD...: run CMD, record and print how long it took.
phase() {
	local name=$1 start end rc=0
	shift
	start=$(date +%s.%N)
	"$@" || rc=$?
	end=$(date +%s.%N)
	printf '%s\t%.1f\t%s\n' "$name" "$(echo "$end - $start" | bc)" "$rc" \
		>>"$LOGS/phases.tsv"
	printf 'phase %-28s %6.1f s%s\n' "$name" "$(echo "$end - $start" | bc)" \
		"$([ $rc -eq 0 ] || echo " (failed: $rc)")" >&2
	return $rc
}

# Free space check before writing gigabytes.
need_space() {
	local want_mb=$1 have_mb
	mkdir -p "$BUILD"
	have_mb=$(df -Pm "$BUILD" | awk 'NR == 2 { print $4 }')
	[ "$have_mb" -ge "$want_mb" ] ||
		die "only ${have_mb} MiB free under $BUILD, ${want_mb} MiB needed" \
		    "free disk space (make clean removes build/) and run again"
}

ncpus() { nproc; }

# The one identity of the series (From:, Signed-off-by:, the cover letter).
# The placeholder is fine for building and checking; sending refuses it.
PLACEHOLDER_AUTHOR="A. U. Thor <author@example.org>"
AUTHOR=${AUTHOR:-$PLACEHOLDER_AUTHOR}
author_name() { printf '%s' "${AUTHOR% <*}"; }
author_email() { local e=${AUTHOR##*<}; printf '%s' "${e%>}"; }

# lock NAME: hold an exclusive lock until the script exits, so that two
# runs (say, make check and make kselftest) never build in the same place
# at once; the second waits for the first.
lock() {
	mkdir -p "$BUILD/locks"
	exec {lockfd}>"$BUILD/locks/$1"
	flock -n "$lockfd" || {
		msg "waiting for another run that holds $1"
		flock "$lockfd"
	}
}
