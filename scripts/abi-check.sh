#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series must reproduce upstream's user-space ABI exactly: every
# PR_CAP_AMBIENT* and SECURE*/SECBIT* constant in ambient's UAPI headers
# has the value it has in stock's.
. "$(dirname "$0")/lib.sh"

# Only macros matter: linux/types.h (which needs the build's generated
# headers) is kept out by defining its include guard.
macros() {	# macros FLAVOUR: the ambient-related macro definitions
	[ -d "$SRC/$1/include/uapi" ] || die "no $1 tree" "run make tree"
	printf '#include <linux/prctl.h>\n#include <linux/securebits.h>\n' |
		gcc -E -dM -nostdinc -D_UAPI_LINUX_TYPES_H -I"$SRC/$1/include/uapi" -x c - |
		{ grep -E '^#define (PR_CAP_AMBIENT|SECURE_|SECBIT_)' || true; } | sort
}
macros stock >"$LOGS/abi-stock.txt"
macros ambient >"$LOGS/abi-ambient.txt"
grep -q PR_CAP_AMBIENT_CLEAR_ALL "$LOGS/abi-stock.txt" ||
	die "stock's headers lack PR_CAP_AMBIENT" "run make tree FORCE=1"
echo "$(wc -l <"$LOGS/abi-stock.txt") macros compared"
diff -u "$LOGS/abi-stock.txt" "$LOGS/abi-ambient.txt" ||
	die "ambient's UAPI constants differ from stock's (diff above)" \
	    "make the series' include/uapi values equal upstream's"
