#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the kernel QEMU runs is the kernel that was just built. A
# cache that cannot see all of an object's inputs can put another build's
# kernel into a new bzImage (scripts/ccache-gcc.sh says how); the GNU
# build ID, a hash that the linker writes into vmlinux, names the kernel
# whichever objects made it.
#
#   identity.sh IMAGE        before a boot: the kernel compressed into the
#                            bzImage IMAGE is the vmlinux its build made
#   identity.sh IMAGE LOG    after a boot: the kernel that ran is that
#                            vmlinux (scripts/guest/init prints the
#                            guest's /sys/kernel/notes into the console
#                            log LOG); a guest that stopped before /init
#                            printed nothing, and then the image is checked
#
# The vmlinux is IMAGE's build's (lib.sh, built_id), or KVMLINUX=FILE.
# Prints "identity: ID (HOW)" and exits 0, or stops naming both IDs.
. "$(dirname "$0")/lib.sh"

image=${1:?usage: identity.sh IMAGE [LOG]}
log=${2:-}
[ -f "$image" ] || die "no kernel image $image" "build it first (make kernel)"
if [ -n "${KVMLINUX:-}" ]; then
	[ -f "$KVMLINUX" ] || die "KVMLINUX=$KVMLINUX does not exist" "name the vmlinux of the image's build"
	built=$(build_id "$KVMLINUX") src=${KVMLINUX#"$TOP"/}
else
	built=$(built_id "$image") || built=
	src="the vmlinux of ${image#"$TOP"/}'s build"
fi
[ -n "$built" ] ||
	die "cannot tell which kernel ${image#"$TOP"/} should be: no vmlinux beside it and no ${image##*/}.build-id" \
	    "boot a bzImage from its build directory (OBJ/arch/x86/boot/bzImage), or name its vmlinux with KVMLINUX=FILE"

how='' ran=''
if [ -n "$log" ]; then
	ran=$(booted_id "$log")
	how="booted, from the guest's /sys/kernel/notes"
fi
if [ -z "$ran" ]; then
	ran=$(image_id "$image")
	how="in the image${log:+; the guest printed no notes}"
	[ -n "$ran" ] ||
		die "cannot read the kernel inside ${image#"$TOP"/} (scripts/extract-vmlinux of a kernel tree)" \
		    "run make tree; check that the image is a gzip-compressed bzImage"
fi
if [ "$ran" != "$built" ]; then
	die "wrong kernel: ${image#"$TOP"/} runs build ID $ran ($how), but $src has build ID $built" \
	    "no result of this boot counts: the image is another build's kernel (a stale object); rebuild it from nothing (remove its object directory) and report the cause"
fi
echo "identity: $ran ($how)"
