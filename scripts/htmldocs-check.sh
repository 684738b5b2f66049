#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the books the series touches (make htmldocs SPHINXDIRS="userspace-api
# security", or $HTMLDOCS_DIRS) in two kernel trees and fail if the first
# gives warnings the second does not.
#
#   htmldocs-check.sh FLAVOUR_TREE BASE_TREE
#   e.g. scripts/htmldocs-check.sh build/src/ambient build/src/pre-ambient
#
# Tree arguments are relative to the package top (or absolute). Each tree
# is built out of tree in build/obj/htmldocs-NAME, NAME being the tree's
# directory name; the full log goes to build/logs/htmldocs-NAME.log and
# the normalised warnings to build/logs/htmldocs-NAME.warnings.
#
# Both trees are built from scratch (sphinx-build -E) every time, so
# that all warnings are reported. Normalisation drops the tree and output
# directory prefixes and the line numbers, so that a warning that only
# moved within its file (or exists in both trees at different paths) is
# not reported as new. Warnings are compared as a multiset: a second copy
# of an existing warning is new.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

[ $# -eq 2 ] || die "usage: ${0##*/} FLAVOUR_TREE BASE_TREE" \
	"e.g. ${0##*/} build/src/ambient build/src/pre-ambient"

command -v sphinx-build >/dev/null ||
	die "sphinx-build is not installed" \
	    "run make deps (installs python3-sphinx and python3-sphinx-rtd-theme)"

# abs DIR: DIR as an absolute path, DIR being relative to the package top.
abs() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "$TOP/$1" ;;
	esac
}

dirs=${HTMLDOCS_DIRS:-userspace-api security}
new_tree=$(abs "$1")
base_tree=$(abs "$2")
new_name=$(basename "$new_tree")
base_name=$(basename "$base_tree")

for t in "$new_tree" "$base_tree"; do
	{ [ -f "$t/Makefile" ] && [ -d "$t/Documentation/userspace-api" ]; } ||
		die "no kernel tree with Documentation/userspace-api at $t" \
		    "run make tree, or check the argument"
done
[ "$new_name" != "$base_name" ] ||
	die "both trees are named $new_name; their outputs would collide" \
	    "pass two trees with different directory names"

# Two runs must not build in the same output directories at once.
if declare -F lock >/dev/null; then
	lock htmldocs
fi

# build NAME TREE: make htmldocs for one tree, log under build/logs.
build() {
	local name=$1 tree=$2 obj=$OBJ/htmldocs-$1 log=$LOGS/htmldocs-$1.log
	mkdir -p "$obj"
	need_space 500
	msg "building htmldocs SPHINXDIRS=\"$dirs\" in ${tree#"$TOP"/}"
	# -E: read every document again. An incremental build reports the
	# warnings of changed documents only, which would not compare.
	# userspace-api/media (381 of the book's 441 pages, which the series
	# does not touch) is left out of both trees alike: it was most of the
	# time of a build, and its only trace is one warning of the book's
	# toctree, in both trees.
	if ! make -C "$tree" O="$obj" -j"$(ncpus)" htmldocs \
			SPHINXDIRS="$dirs" SPHINXOPTS="-E -q -D exclude_patterns='media/**'" \
			>"$log" 2>&1; then
		tail -20 "$log" >&2
		die "htmldocs failed in ${tree#"$TOP"/} (log: ${log#"$TOP"/})" \
		    "read the log; a Sphinx error (not a warning) stops the build"
	fi
}

# warnings NAME TREE: the warning lines of a log, normalised and sorted.
warnings() {
	local name=$1 tree=$2 obj=$OBJ/htmldocs-$1 real_tree real_obj
	real_tree=$(cd "$tree" && pwd -P)
	real_obj=$(cd "$obj" && pwd -P)
	{ grep -aE '(WARNING|ERROR|SEVERE|CRITICAL)[:(]|: (warning|error): ' \
		"$LOGS/htmldocs-$name.log" || true; } |
	awk -v t1="$tree/" -v t2="$real_tree/" -v o1="$obj/" -v o2="$real_obj/" '
		function strip(s, p,   i) {
			while ((i = index(s, p)) > 0)
				s = substr(s, 1, i - 1) substr(s, i + length(p))
			return s
		}
		{
			s = strip(strip(strip(strip($0, o1), o2), t1), t2)
			# file:LINE: and file:LINE:COL: lose their numbers
			gsub(/:[0-9]+(:[0-9]+)?: /, ": ", s)
			print s
		}' | LC_ALL=C sort
}

total_start=$(date +%s.%N)
phase "htmldocs-$new_name" build "$new_name" "$new_tree"
phase "htmldocs-$base_name" build "$base_name" "$base_tree"

warnings "$new_name" "$new_tree" >"$LOGS/htmldocs-$new_name.warnings"
warnings "$base_name" "$base_tree" >"$LOGS/htmldocs-$base_name.warnings"

added=$(LC_ALL=C comm -23 "$LOGS/htmldocs-$new_name.warnings" \
			  "$LOGS/htmldocs-$base_name.warnings")
gone=$(LC_ALL=C comm -13 "$LOGS/htmldocs-$new_name.warnings" \
			 "$LOGS/htmldocs-$base_name.warnings")

printf 'htmldocs warnings: %s %d, %s %d (%.1f s in all)\n' \
	"$new_name" "$(wc -l <"$LOGS/htmldocs-$new_name.warnings")" \
	"$base_name" "$(wc -l <"$LOGS/htmldocs-$base_name.warnings")" \
	"$(echo "$(date +%s.%N) - $total_start" | bc)"
[ -z "$gone" ] ||
	printf 'fixed in %s (%d):\n%s\n' "$new_name" \
		"$(printf '%s\n' "$gone" | wc -l)" "$gone"

if [ -n "$added" ]; then
	printf 'new in %s (%d):\n%s\n' "$new_name" \
		"$(printf '%s\n' "$added" | wc -l)" "$added" >&2
	die "$new_name adds htmldocs warnings that $base_name does not have" \
	    "fix them (full log: build/logs/htmldocs-$new_name.log)"
fi
msg "no new htmldocs warnings in $new_name"
