#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the kernel QEMU runs is the kernel in the vmlinux that the
# bzImage's build made, by their GNU build IDs (docs/checks.md, "How the
# tests run"): a cache that cannot see all of an object's inputs can put
# another build's kernel into a bzImage (docs/setup.md, "Which objects
# ccache may serve"). It does not prove that vmlinux itself is fresh.
#
#   identity.sh IMAGE         the kernel compressed into the bzImage IMAGE
#                             is its build's vmlinux
#   identity.sh IMAGE LOG     the kernel that ran is that vmlinux: the build
#                             ID in the hex dump of /sys/kernel/notes that
#                             scripts/guest/init printed into the console
#                             log LOG; a guest that stopped before /init
#                             printed none, and then the image is checked
#   identity.sh --expect IMAGE   only print the build ID IMAGE must have
#
# The vmlinux is IMAGE's build's (lib.sh, built_id); KVMLINUX=FILE names
# another for the image KIMAGE (or for any, when KIMAGE is not set).
# Prints "identity: ID (HOW)" and exits 0; exits 1 naming both IDs when
# they differ, 2 when it cannot tell.
. "$(dirname "$0")/lib.sh"

expect_only=
[ "${1:-}" != --expect ] || { expect_only=1; shift; }
image=${1:?usage: identity.sh [--expect] IMAGE [LOG]}
log=${2:-}
# cannot CAUSE NEXT: stop, exit 2: the identity cannot be established
cannot() { printf '%s: error: %s\n%s: next step: %s\n' "${0##*/}" "$1" "${0##*/}" "$2" >&2; exit 2; }
[ -f "$image" ] || cannot "no kernel image $image" "build it first (make kernel)"
if [ -n "${KVMLINUX:-}" ] && { [ -z "${KIMAGE:-}" ] || [ "$image" -ef "$KIMAGE" ]; }; then
	[ -f "$KVMLINUX" ] || cannot "KVMLINUX=$KVMLINUX does not exist" "name the vmlinux of the image's build"
	built=$(build_id "$KVMLINUX") src=${KVMLINUX#"$TOP"/}
else
	built=$(built_id "$image") || built=
	src="the vmlinux of ${image#"$TOP"/}'s build"
fi
[ -n "$built" ] ||
	cannot "cannot tell which kernel ${image#"$TOP"/} should be: no vmlinux with a build ID beside it and no ${image##*/}.build-id" \
	    "boot a bzImage from its build directory (OBJ/arch/x86/boot/bzImage), or name its vmlinux with KVMLINUX=FILE"
if [ -n "$expect_only" ]; then
	echo "$built"
	exit 0
fi

how='' ran=''
if [ -n "$log" ]; then
	ran=$(booted_id "$log")
	how="booted, from the guest's /sys/kernel/notes"
fi
if [ -z "$ran" ]; then
	ran=$(image_id "$image")
	how="in the image${log:+; the guest printed no notes}"
	[ -n "$ran" ] ||
		cannot "cannot read the kernel inside ${image#"$TOP"/} (scripts/extract-vmlinux of a kernel tree)" \
		    "run make tree; check that the image is a gzip-compressed bzImage"
fi
if [ "$ran" != "$built" ]; then
	die "wrong kernel: ${image#"$TOP"/} runs build ID $ran ($how), but $src has build ID $built" \
	    "nothing this image ran counts: it holds another build's kernel (a stale object); rebuild it from nothing (remove its object directory) and report the cause"
fi
echo "identity: $ran ($how)"
