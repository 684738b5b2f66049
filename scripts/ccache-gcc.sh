#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The C compiler of every kernel build: gcc through ccache, except for a
# source that pulls a file in with the assembler's .incbin.
#
#   ccache-gcc.sh GCC-ARGS...
#
# ccache in depend mode (lib.sh) keys an object on the files of the
# compiler's -MMD output, which never names a file pulled in by .incbin;
# its other modes refuse such objects, and this applies their rule first
# (docs/setup.md, "Which objects ccache may serve"). In both kernel trees
# every .incbin stands in a .c or .S source itself, never in a file it
# includes: tests/build/stale-image-test.sh checks that premise, which
# reading only the source named on the command line relies on.
for arg; do
	case $arg in
	*.[cSs])
		if [ -f "$arg" ] && grep -qs incbin "$arg"; then
			exec gcc "$@"
		fi ;;
	esac
done
exec ccache gcc "$@"
