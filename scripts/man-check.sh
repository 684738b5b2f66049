#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the man-pages/ series:
#   apply   the patches apply with git am to the tag base of build/man-pages
#   lint    mandoc -Tlint and groff -ww report nothing new on the pages the
#           patches touch
#   example the program of each EXAMPLES section builds without a warning
#           (statically), and its shell session, run in a QEMU guest of the
#           stock kernel, prints exactly what the page shows
#   names   every test named in man-pages/README.md exists in the suite source
#   results every named test passed in build/results/{stock,upstream}.tsv
# One line per check; exit status 1 if any failed.
#
# The guest boots build/obj/stock/arch/x86/boot/bzImage (KIMAGE=path boots
# another); this script never builds a kernel: make kernel KERNEL=stock.
. "$(dirname "$0")/lib.sh"

MAN=$BUILD/man-pages
WORK=$BUILD/man-check
README=$TOP/man-pages/README.md
GUEST_KERNEL=${KIMAGE:-$OBJ/stock/arch/x86/boot/bzImage}

failed=0
pass() { printf 'PASS  %-8s %s\n' "$1" "$2"; }
fail() { printf 'FAIL  %-8s %s\n' "$1" "$2"; failed=1; }
detail() { sed 's/^/      /' "$@"; }

[ -d "$MAN/.git" ] || die "build/man-pages is missing" "run make man-tree first"
for tool in mandoc groff; do
	command -v $tool >/dev/null || die "$tool not found" "apt-get install $tool"
done
rm -rf "$WORK"
mkdir -p "$WORK"

# 1. apply, in a scratch clone
patches=$(ls "$TOP"/man-pages/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true)
[ -n "$patches" ] || die "man-pages/ holds no patches" "run make man-series"
git clone -q --no-checkout "$MAN" "$WORK/tree"
git -C "$WORK/tree" -c advice.detachedHead=false checkout -q --detach base
if git -C "$WORK/tree" -c user.name=check -c user.email=check@localhost \
		am -q $patches >"$WORK/am.log" 2>&1; then
	pass apply "$(echo "$patches" | wc -l) patches apply to base ($(paste -sd, "$MAN/VERSIONS"))"
else
	fail apply "git am failed:"
	detail "$WORK/am.log"
	git -C "$WORK/tree" am --abort >/dev/null 2>&1 || true
fi
# the pages the patches touch
PAGES=$(git -C "$WORK/tree" diff --name-only base HEAD -- man/)

# 2. lint: warnings of the patched pages that the base pages do not have.
# Line and column numbers are dropped, so moved text compares equal.
lint() {	# lint DIR: print the normalised warnings for the pages in DIR
	(cd "$1" && for p in $PAGES; do
		mandoc -Tlint "$p" 2>&1 || true
		groff -man -ww -z "$p" 2>&1 || true
	done) | sed -E 's/^([^:]+: [^:]+):[0-9]+(:[0-9]+)?:/\1:/' | sort
}
git -C "$WORK/tree" worktree add -q --detach "$WORK/base" base
lint "$WORK/base" >"$WORK/lint.base"
lint "$WORK/tree" >"$WORK/lint.patched"
comm -13 "$WORK/lint.base" "$WORK/lint.patched" >"$WORK/lint.new"
if [ -z "$PAGES" ]; then
	fail lint "the patches touch no page under man/"
elif [ -s "$WORK/lint.new" ]; then
	fail lint "$(wc -l <"$WORK/lint.new") new warnings (mandoc -Tlint, groff -man -ww):"
	detail "$WORK/lint.new"
else
	pass lint "$(echo "$PAGES" | wc -l) pages: $(wc -l <"$WORK/lint.patched") warnings, as on the base pages ($(wc -l <"$WORK/lint.base")); none new"
fi

# 3. example: for each page with a program (.\" SRC BEGIN (NAME) ...
# .\" SRC END in EXAMPLES), the program and the shell session of its
# EXAMPLES, in roff, become ex/NAME and ex/session; the session's
# commands are run (cc on this host, with -static added, everything else
# in the guest, "sudo CMD" as root, the rest as the user nobody), and
# what they print must be what the page shows.
#
# unroff: roff text of an .EX block to plain text, for the escapes the
# pages use; any other escape fails, rather than compile the wrong thing.
unroff() {
	sed -e 's/\\\[rs\]/\x01/g' -e 's/\\-/-/g' -e 's/^\\&$//' -e 's/\\&//g' |
		awk '/\\/ { print "unknown roff escape: " $0 > "/dev/stderr"; bad = 1 } { print }
			END { exit bad }' | tr '\001' '\\'
}
# session PAGE: the transcript the page shows, "$ CMD" then the output
session() {
	awk '/^\.SH EXAMPLES/ { ex = 1; next } /^\.SH / { ex = 0 }
		ex && /^\.EX/ { block = ""; inex = 1; next }
		ex && /^\.EE/ { if (block ~ /(^|\n)\.RB \$ "/) { printf "%s", block; exit } inex = 0; next }
		inex { block = block $0 "\n" }' "$1" |
		sed -E 's/^\.RB \$ " (.*)" ;$/$ \1/'
}
example() {	# example PAGE: build, boot and compare; 0 if all is as shown
	local page=$1 ex=$WORK/ex name root cmd out
	name=$(sed -n 's/^\.\\" SRC BEGIN (\(.*\))$/\1/p' "$page" | head -n 1)
	rm -rf "$ex" && mkdir -p "$ex"
	sed -n '/^\.\\" SRC BEGIN/,/^\.\\" SRC END/p' "$page" | sed '1,2d;$d' | sed '$d' |
		unroff >"$ex/$name" || { echo "cannot extract $name from $page"; return 1; }
	session "$page" | unroff >"$ex/session.roff" || { echo "cannot extract the session of $page"; return 1; }
	grep -q '^\$ ' "$ex/session.roff" || { echo "$page shows no shell session"; return 1; }
	# split the session: commands for the host (cc) and for the guest
	: >"$ex/transcript"
	: >"$ex/guest-commands"
	while IFS= read -r line; do
		case $line in
		'$ '*) cmd=${line#\$ }
			case $cmd in
			cc\ * | gcc\ *)
				printf '%s\n' "$line" >>"$ex/transcript"
				(cd "$ex" && eval "$cmd -static") >>"$ex/transcript" 2>&1 || {
					echo "the build failed: $cmd -static"
					cat "$ex/transcript"
					# the program of capabilities(7) uses libcap
					! grep -q 'sys/capability.h' "$ex/transcript" ||
						echo "next step: apt-get install libcap-dev (sys/capability.h, libcap.a)"
					return 1
				} ;;
			*) printf '%s\n' "$cmd" >>"$ex/guest-commands" ;;
			esac ;;
		esac
	done <"$ex/session.roff"
	echo "built: $(grep -m1 -E '^\$ (g?cc) ' "$ex/session.roff" | sed 's/^\$ //') -static" >&2
	# the guest: busybox, setcap, the program, and the commands
	root=$ex/root
	initramfs_root "$root"
	mkdir -p "$root/example"
	cp "$ex"/* "$root/example/" 2>/dev/null || true
	local bin lib
	for bin in /usr/sbin/setcap; do
		[ -x "$bin" ] || { echo "$bin is missing: apt-get install libcap2-bin"; return 1; }
		mkdir -p "$root${bin%/*}" && cp "$bin" "$root$bin"
		for lib in $(ldd "$bin" | grep -oE '/[^ ]+'); do
			mkdir -p "$root${lib%/*}" && cp -L "$lib" "$root$lib"
		done
	done
	cat >"$root/usr/libexec/ambient/man-example" <<-'GUEST'
	#!/bin/sh
	# Run the commands of a man page's shell session as the page shows them:
	# "sudo CMD" as root, every other one as the user nobody.
	mkdir -p /tmp/example && cp /example/* /tmp/example/ && chmod 755 /tmp/example /tmp/example/* || exit 1
	cd /tmp/example || exit 1
	while IFS= read -r cmd; do
		echo "@@ex \$ $cmd"
		case $cmd in
		'sudo '*) sh -c "${cmd#sudo }" ;;
		*) su -s /bin/sh nobody -c "$cmd" ;;
		esac 2>&1 | sed 's/^/@@ex /'
	done </tmp/example/guest-commands
	echo "@@ex-done"
	GUEST
	chmod 755 "$root/usr/libexec/ambient/man-example"
	pack_initramfs "$root" "$ex/initramfs.cpio.gz"
	if ! VM_MODE=run VM_APPEND="ambient.run=man-example quiet" \
		"$TOP/scripts/vm.sh" man-example "$GUEST_KERNEL" "$ex/initramfs.cpio.gz" >"$ex/vm.log" 2>&1; then
		echo "the guest failed:"; tail -n 20 "$ex/vm.log"; return 1
	fi
	grep -q '^@@ex-done' "$LOGS/vm-man-example.log" ||
		{ echo "the guest did not finish the session (console: ${LOGS#"$TOP"/}/vm-man-example.log)"; return 1; }
	sed -n 's/^@@ex //p' "$LOGS/vm-man-example.log" >>"$ex/transcript"
	out=$(diff -u --label "${page#"$WORK/tree/"} (EXAMPLES)" --label "what the guest printed" \
		"$ex/session.roff" "$ex/transcript") ||
		{ echo "the output differs from the page:"; printf '%s\n' "$out"; return 1; }
}
nex=0
for page in $PAGES; do
	grep -q '^\.\\" SRC BEGIN' "$WORK/tree/$page" || continue
	nex=$((nex + 1))
	if [ ! -f "$GUEST_KERNEL" ]; then
		fail example "no kernel to boot: ${GUEST_KERNEL#"$TOP"/} (run make kernel KERNEL=stock)"
	elif example "$WORK/tree/$page" >"$WORK/example.log" 2>&1; then
		pass example "${page##*/}: $(grep -m1 '^built: ' "$WORK/example.log" | sed 's/^built: //'), clean; the session, run in the guest ($(cat "$BUILD/accel" 2>/dev/null | cut -d' ' -f1), ${GUEST_KERNEL#"$TOP"/}), prints what the page shows"
	else
		fail example "${page##*/}:"
		detail "$WORK/example.log"
	fi
done
[ $nex -gt 0 ] || fail example "no touched page has a program (.\\\" SRC BEGIN) to run"

# 4. names: the suite is the kernel tree's capabilities selftests if they
# use the harness there, else the copy in selftests/.
suite=$SRC/ambient/tools/testing/selftests/capabilities
grep -qs kselftest_harness.h "$suite"/*.c "$suite"/*.h || suite=$TOP/selftests
# Rows of the README table: | claim | page and section | `test`, ... |
table() { awk -F'|' 'NF >= 5 && $4 !~ /^ *(-+|test name) *$/' "$README"; }
named=$(table | awk -F'|' '{ print $4 }' | { grep -oE '`[^`]+`' || true; } | tr -d '`' | sort -u)
untested=$(table | awk -F'|' '$4 !~ /`/ { print $2 }' | sed 's/^ *//; s/ *$//')
suite_names "$suite" >"$WORK/suite-names"
missing=$(printf '%s\n' "$named" | comm -23 - "$WORK/suite-names")
if [ ! -s "$WORK/suite-names" ]; then
	fail names "no harness tests found in ${suite#"$TOP"/}"
elif [ -n "$missing" ] || [ -n "$untested" ]; then
	fail names "README names tests that ${suite#"$TOP"/} lacks, or claims without a test:"
	[ -z "$missing" ] || printf '%s\n' "$missing" | detail
	[ -z "$untested" ] || printf '%s\n' "$untested" | sed 's/^/no test: /' | detail
else
	pass names "all $(echo "$named" | wc -l) tests named in the README exist in ${suite#"$TOP"/}"
fi

# 5. results, on 6.12 and on today's kernel: the pages describe both
for k in stock upstream; do
	tsv=$BUILD/results/$k.tsv
	if [ ! -f "$tsv" ]; then
		fail "results-$k" "build/results/$k.tsv not found: run make kselftest KERNEL=$k first"
		continue
	fi
	notpass=$(printf '%s\n' "$named" | while read -r t; do
		r=$(awk -F'\t' -v t="$t" '$3 == t { print $1 }' "$tsv" | sort -u | paste -sd/)
		[ "$r" = PASS ] || printf '%s: %s\n' "$t" "${r:-not run}"
	done)
	if [ -n "$notpass" ]; then
		fail "results-$k" "named tests that did not pass on $k:"
		printf '%s\n' "$notpass" | detail
	else
		pass "results-$k" "all $(echo "$named" | wc -l) named tests PASS in build/results/$k.tsv"
	fi
done

exit $failed
