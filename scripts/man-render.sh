#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Render the pages that the patches in build/man-pages change, as patched,
# for reading:
#   build/man-pages/out/PAGE.txt    plain text, 80 columns (man -l)
#   build/man-pages/out/PAGE.html   HTML (groff -Thtml)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
MAN=$TOP/build/man-pages
OUT=$MAN/out

for tool in man groff; do
	command -v $tool >/dev/null ||
		{ echo "man-render.sh: $tool not found; apt-get install man-db groff" >&2; exit 1; }
done
[ -d "$MAN/.git" ] || { echo "man-render.sh: build/man-pages is missing; run make man-tree first" >&2; exit 1; }

mkdir -p "$OUT"
pages=$(git -C "$MAN" diff --name-only base HEAD -- man/)
[ -n "$pages" ] || { echo "man-render.sh: build/man-pages has no changes after base; run make man-tree" >&2; exit 1; }
for page in $pages; do
	name=${page##*/}
	MANWIDTH=80 MAN_KEEP_FORMATTING= man --nj --nh -l "$MAN/$page" 2>"$OUT/$name.log" |
		col -bx >"$OUT/$name.txt" &&
		groff -man -Thtml "$MAN/$page" >"$OUT/$name.html" 2>>"$OUT/$name.log" || {
		echo "man-render.sh: rendering $page failed: $(head -n 1 "$OUT/$name.log")" >&2
		echo "man-render.sh: next step: read build/man-pages/out/$name.log" >&2
		exit 1
	}
	echo "build/man-pages/out/$name.txt build/man-pages/out/$name.html"
done
