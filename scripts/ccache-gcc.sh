#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The C compiler of every kernel build: gcc through ccache, except for a
# source that pulls a file in with the assembler's .incbin.
#
#   ccache-gcc.sh GCC-ARGS...
#
# ccache runs in depend mode (lib.sh): it keys an object on the source,
# the compiler's options and the files of the compiler's -MMD output. An
# .incbin file is none of these: the assembler reads it, the preprocessor
# never sees it. ccache's other modes find the directive in the
# preprocessed text and refuse to cache such an object ("unsupported code
# directive"); depend mode skips the preprocessor, so it cached
# arch/x86/boot/compressed/piggy.o, which names the compressed kernel only
# by .incbin and by its two lengths, and handed one build's kernel to the
# next build whose compressed kernel had the same lengths. This applies
# ccache's own rule before ccache runs. In the kernel every .incbin stands
# in a source file itself (piggy.S, rmpiggy.S, initramfs_data.S,
# kernel/configs.c, ...), never in a header, so reading the source named
# on the command line is enough; scripts/vm.sh proves it on every boot.
for arg; do
	case $arg in
	*.[cSs])
		if [ -f "$arg" ] && grep -qs incbin "$arg"; then
			exec gcc "$@"
		fi ;;
	esac
done
exec ccache gcc "$@"
