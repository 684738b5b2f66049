# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts in this directory; sourced, never run.
#
# Every script runs from the package's top directory (the Makefile does
# this) and keeps everything it makes under $BUILD.

set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# AMBIENT_BUILD moves build/ elsewhere (the set-up test uses it).
BUILD=$(realpath -m "${AMBIENT_BUILD:-$TOP/build}")
case $BUILD in
/ | "${HOME:-/}" | "$TOP")
	printf '%s: error: AMBIENT_BUILD=%s would mix generated files with others\n%s: next step: %s\n' \
		"${0##*/}" "$BUILD" "${0##*/}" "unset AMBIENT_BUILD, or point it to a directory of its own" >&2
	exit 1 ;;
esac
LOGS=$BUILD/logs
FLAVOURS="stock pre-ambient ambient"	# Linux 6.12: the series and its controls
ALL_FLAVOURS="$FLAVOURS upstream"	# and today's upstream with the standalone series

# The Debian source package the package is built and tested against, the
# suites that carry it (scripts/debian-pkg.sh fetches it into build/debian).
SOURCE_PKG=linux-source-6.12
SOURCE_PIN=6.12.118-1~deb12u1
SOURCE_SUITES="bookworm bookworm-updates bookworm-security"
SOURCE_TARBALL=${BUILD}/debian/$SOURCE_PKG/root/usr/src/linux-source-6.12.tar.xz

# Today's upstream: Debian unstable's newest Linux, as shipped; the
# flavour upstream is it plus the standalone series (upstream/kselftest-docs/).
UPSTREAM_PKG=linux-source-7.2
UPSTREAM_PIN=7.2.13-1
UPSTREAM_SUITES=sid
UPSTREAM_TARBALL=${BUILD}/debian/$UPSTREAM_PKG/root/usr/src/linux-source-7.2.tar.xz

# b4 as today's kernel developers use it: bookworm's 0.12 lacks prep
# --check, so Debian trixie's b4 (pure Python, and its dependencies are
# bookworm's b4's, which make deps installs) runs from build/debian/b4.
B4_PKG=b4
B4_PIN=0.14.2-2
B4_SUITES=trixie

# gVisor's runsc as Debian builds it, for make conformance RUNTIME=gvisor
# (scripts/conformance.sh): NAME PIN SUITES PLATFORM, one build a line.
# Each is fetched into build/debian/runsc-NAME, never installed.
GVISOR_BUILDS="bookworm 0.0~20221219.0-2+b3 bookworm,bookworm-updates,bookworm-security ptrace
sid 0.0~20240729.0-7+b1 sid systrap"

# ccache, wherever a script compiles through it: sources named relative to
# the package (a fresh clone hits another clone's objects), and depend
# mode, in which a miss takes its dependencies from the compiler's own
# -MMD file instead of running the preprocessor a second time (without
# it, a kernel build with an empty cache took 70 % longer than one
# without ccache; with it, 5 %).
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
# A fixed build identity, for every kernel build: an unchanged tree gives
# the same image, whether built from nothing or from another's objects.
export KBUILD_BUILD_TIMESTAMP=2000-01-01 KBUILD_BUILD_USER=ambient \
	KBUILD_BUILD_HOST=workbench KBUILD_BUILD_VERSION=1

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

# die_log LOG CAUSE [NEXT-STEP]: die naming the log and its first error line.
die_log() {
	local log=$1 cause=$2
	shift 2
	die "$cause: $(first_error "$log")
${0##*/}: full log: ${log#"$TOP"/}" "${1:-read the log}"
}

# first_error LOG: the line of LOG that names the cause of a failure (the
# first compiler, make, shell or APT error), else its last line.
first_error() {
	local line
	line=$(grep -m1 -E '(error|Error|ERROR)[: ]|: not found|No rule to make|command not found|^E: |fatal:|undefined reference|No space left' "$1" 2>/dev/null) ||
		line=$(tail -n 1 "$1" 2>/dev/null) || line="(no log)"
	printf '%s' "$line"
}

# loud: a warning that must not scroll past unnoticed.
loud() {
	printf '\n%s\n%s: WARNING: %s\n%s\n\n' \
		'########################################################' \
		"${0##*/}" "$*" \
		'########################################################' >&2
}

check_flavour() {
	case " $ALL_FLAVOURS " in
	*" $1 "*) ;;
	*) die "unknown KERNEL '$1'" "use one of: $ALL_FLAVOURS" ;;
	esac
}

# The two series and what each is made against. series_vars NAME sets
#   S_DIR     its patches and cover letter      S_BASE    the tag it applies to
#   S_TREE    the worktree of its branch        S_BRANCH  its branch
#   S_COVER   the cover letter's text           S_OUT     b4's messages
#   S_PREFIX  what its subjects add after [PATCH
# ambient: the whole series on pre-ambient (6.12); upstream: the selftest,
# documentation and MAINTAINERS patches alone, on Linux 7.2.
series_vars() {
	case $1 in
	ambient)
		S_DIR=$TOP/series S_BASE=pre-ambient S_TREE=$SRC/ambient S_BRANCH=ambient
		S_COVER=$TOP/cover-letter.txt S_OUT=$BUILD/outgoing S_PREFIX="RFC " ;;
	upstream)
		S_DIR=$TOP/upstream/kselftest-docs S_BASE=upstream S_TREE=$SRC/upstream
		S_BRANCH=kselftest-docs S_COVER=$TOP/upstream/kselftest-docs/cover-letter.txt
		S_OUT=$BUILD/outgoing-upstream S_PREFIX= ;;
	*) die "unknown series '$1'" "use SERIES=ambient or SERIES=upstream" ;;
	esac
}

# series_patches_of DIR: the patches of a series directory, cover letter excluded.
series_patches_of() { ls "$1"/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true; }

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
# phase run through RUNNER, default phase; not when up_to_date) and IMAGE
# is its bzImage.
kernel_image() {
	local name
	name=$(build_name "$1")
	if [ -n "${KIMAGE:-}" ]; then
		IMAGE=$KIMAGE
		return 0
	fi
	up_to_date "$name" || "${2:-phase}" "kernel $name" "$TOP/scripts/kernel.sh" "$1" || return
	IMAGE=$OBJ/$name/arch/x86/boot/bzImage
}

# up_to_date NAME: make check built NAME (a build name, or payload,
# payload-upstream) in this run, and nothing changes it before the run
# ends: check.sh lists those in UP_TO_DATE, so that the guests it boots
# afterwards skip a make that would find nothing to do.
up_to_date() {
	case " ${UP_TO_DATE:-} " in *" $1 "*) return 0 ;; esac
	return 1
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

# sources_uris: "URI SUITE" for every enabled deb source of the system that
# carries the component main (APT_ETC, default /etc/apt), from both the
# deb822 (.sources) and the one-line (.list) formats.
sources_uris() {
	local f etc=${APT_ETC:-/etc/apt}
	for f in "$etc"/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" } {
			t = u = s = c = ""; on = 1
			for (j = 1; j <= NF; j++) {
				if ($j ~ /^Types:/) t = $j
				if ($j ~ /^URIs:/) { u = $j; sub(/^URIs:[ \t]*/, "", u) }
				if ($j ~ /^Suites:/) { s = $j; sub(/^Suites:[ \t]*/, "", s) }
				if ($j ~ /^Enabled:[ \t]*no/) on = 0
				if ($j ~ /^Components:/) c = $j
			}
			if (!on || t !~ /(^|[ \t:])deb([ \t]|$)/ || c !~ /[ \t]main([ \t]|$)/) next
			n = split(u, us, /[ \t]+/); m = split(s, ss, /[ \t]+/)
			for (a = 1; a <= n; a++) for (b = 1; b <= m; b++) print us[a], ss[b]
		}' "$f"
	done
	for f in "$etc"/sources.list "$etc"/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
			for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i, $(i + 1); next } }' "$f"
	done
}

# debian_archives: set MIRROR and SECURITY to the Debian archive and its
# security archive as the system's APT sources name them: the sources of
# component main for the suites bookworm and bookworm-security (the
# package's base); a third-party source of another suite or component is
# passed over (one that claims both would still be taken). DEBIAN_MIRROR and
# DEBIAN_SECURITY override them; SECURITY defaults to MIRROR-security,
# Debian's own layout.
debian_archives() {
	local uri suite
	MIRROR=${DEBIAN_MIRROR:-}
	SECURITY=${DEBIAN_SECURITY:-}
	while read -r uri suite; do
		case $uri in http://* | https://* | file:/*) ;; *) continue ;; esac
		case $suite in
		bookworm-security | bookworm/updates) [ -n "$SECURITY" ] || SECURITY=$uri ;;
		bookworm) [ -n "$MIRROR" ] || MIRROR=$uri ;;
		esac
	done < <(sources_uris)
	[ -n "$MIRROR" ] ||
		die "the system's APT sources name no Debian bookworm archive" \
		    "add one to /etc/apt/sources.list (deb URI bookworm main), or set DEBIAN_MIRROR=URI"
	[ -n "$SECURITY" ] || SECURITY=${MIRROR%/}-security
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

# make_objdir SRC OBJ: create OBJ, the object directory of the kernel tree
# SRC, as a link to SRC/.obj-NAME (NAME: OBJ's own name). With its objects
# in a direct subdirectory, Kbuild names every source relative to it
# ("../security/commoncap.c"), so all trees compile with the same command
# lines and ccache hands one flavour's objects to the next (and to another
# clone): only the files that really differ are compiled again.
make_objdir() {
	local src=$1 obj=$2 real
	real=$1/.obj-${2##*/}
	if [ -L "$obj" ] && [ "$(readlink "$obj")" = "$real" ] && [ -d "$real" ]; then
		return 0
	fi
	[ -d "$obj" ] && [ ! -L "$obj" ] && return 0	# an older layout still works
	mkdir -p "$real" "${obj%/*}" && ln -sfn "$real" "$obj" ||
		die "cannot create the object directory $real" "check the free space"
}

# seed_objdir FROM SRC OBJ: fill OBJ, the empty object directory of the
# kernel tree SRC, from the objects of the tree build/src/FROM, so that
# make compiles only what SRC changes. Kbuild compiles again what depends
# on a file newer than its object and, through fixdep, what reads a
# configuration symbol that changed. So FROM's objects are copied and
# stamped now, and then the files in which SRC differs from FROM's are
# stamped newer. objtool's own build records paths that name FROM's
# trees: they are renamed, else objtool is built again and every object
# after it.
seed_objdir() {
	local from=$1 src=$2 obj=$3 fobj real head now
	fobj=$(readlink -f "$OBJ/$from") && real=$(readlink -f "$obj") ||
		die "no object directory build/obj/$from or ${obj#"$TOP"/}" "run make kernel"
	head=$(git -C "$SRC/$from" rev-parse HEAD) ||
		die "build/src/$from is not a git worktree" "run make tree"
	msg "starting ${obj##*/} from the objects of $from"
	# Made aside and moved in whole: a partial copy is never taken for a
	# configured object directory.
	rm -rf "$real.seed"
	now=$(date +%s.%N)
	if ! (lock "obj-$from" && cp -a "$fobj/." "$real.seed/") ||
	   ! { grep -rlIZ -e "$SRC/$from/" -e "/${fobj##*/}/" "$real.seed" || true; } |
		xargs -0 -r sed -i -e "s|$SRC/$from/|$src/|g" -e "s|/${fobj##*/}/|/${real##*/}/|g" ||
	   ! find "$real.seed" -exec touch -h -d "@$now" {} + ||
	   ! { git -C "$src" diff -z --name-only "$head" &&
		git -C "$SRC/$from" diff -z --name-only HEAD; } |
		(cd "$src" && xargs -0 -r touch -c --) ||
	   ! { rm -rf "$real" && mv "$real.seed" "$real"; }; then
		rm -rf "$real.seed"
		die "cannot start ${obj#"$TOP"/} from build/obj/$from" \
		    "check the free space, and that build/src/$from is a git worktree (make tree)"
	fi
}

# kernel_cc: the C compiler of every kernel build: gcc, through ccache
# when there is one, but never for a source that uses .incbin, whose input
# depend mode cannot see (scripts/ccache-gcc.sh).
kernel_cc() {
	if command -v ccache >/dev/null; then
		printf '%s' "$TOP/scripts/ccache-gcc.sh"
	else
		printf gcc
	fi
}

# kmake SRC OBJ MAKE-ARGS...: make in the kernel tree SRC with its objects in
# OBJ (made by make_objdir), on every CPU, with kernel_cc.
kmake() {
	local src=$1 obj=$2 cc
	shift 2
	make_objdir "$src" "$obj"
	cc=$(kernel_cc)
	make -C "$src" O="$obj" CC="$cc" HOSTCC="$cc" -j"$(ncpus)" "$@"
}

# Which kernel is which. A bzImage carries its kernel compressed; the
# GNU build ID that the linker writes into vmlinux (a hash of its whole
# contents) names that kernel, whichever objects or caches made it.
#
# build_id ELF: the build ID of the ELF file ELF, in hex; nothing when it
# has none.
build_id() {
	readelf -n "$1" 2>/dev/null |
		sed -n 's/^[[:space:]]*Build ID: \([0-9a-f]*\)$/\1/p;T;q' || true
}

# built_id IMAGE: the build ID of the vmlinux that the build of the
# bzImage IMAGE produced: that of the object directory's vmlinux for
# OBJ/arch/x86/boot/bzImage, or the one a copy carries in IMAGE.build-id
# (scripts/mutants.sh writes it beside the images it keeps). Fails when
# neither is there.
built_id() {
	local vmlinux id
	if [ -f "$1.build-id" ]; then
		id=$(cat "$1.build-id")
	else
		case $1 in
		*/arch/x86/boot/bzImage) vmlinux=${1%/arch/x86/boot/bzImage}/vmlinux ;;
		*) return 1 ;;
		esac
		[ -f "$vmlinux" ] || return 1
		id=$(build_id "$vmlinux")
	fi
	[ -n "$id" ] && printf '%s\n' "$id"
}

# image_id IMAGE: the build ID of the kernel that the bzImage IMAGE
# carries, which is what QEMU runs (scripts/extract-vmlinux of a kernel
# tree unpacks it); nothing when it cannot be read.
image_id() {
	local x tmp
	for x in "$SRC"/*/scripts/extract-vmlinux; do
		[ -f "$x" ] && break
	done
	[ -f "$x" ] || return 0
	tmp=$(mktemp "$BUILD/.vmlinux.XXXXXX") || return 0
	sh "$x" "$1" >"$tmp" 2>/dev/null && build_id "$tmp"
	rm -f "$tmp"
}

# booted_id LOG: the build ID of the kernel that a guest of
# scripts/guest/init ran, from the hex dump of /sys/kernel/notes it prints
# ("@@ kernel-notes HEX"): the descriptor of the note of type 3
# (NT_GNU_BUILD_ID) named "GNU". Nothing when the guest printed none.
booted_id() {
	[ -f "$1" ] || return 0
	sed -n 's/^@@ kernel-notes \([0-9a-f]*\)$/\1/p' "$1" | head -n 1 |
		awk '{
			# each note: namesz, descsz, type (32-bit little-endian),
			# then the name and the descriptor, each padded to 4 bytes
			for (i = 1; i + 24 <= length($0); ) {
				n = le32(substr($0, i, 8)); d = le32(substr($0, i + 8, 8))
				t = le32(substr($0, i + 16, 8))
				name = substr($0, i + 24, 2 * n)
				desc = substr($0, i + 24 + 2 * pad(n), 2 * d)
				if (t == 3 && name == "474e5500" && length(desc) == 2 * d) { print desc; exit }
				i += 24 + 2 * pad(n) + 2 * pad(d)
			}
		}
		function pad(x) { return int((x + 3) / 4) * 4 }
		function le32(h,   v, k) {
			v = 0
			for (k = 7; k >= 1; k -= 2) v = v * 256 + hex(substr(h, k, 2))
			return v
		}
		function hex(h) { return index("0123456789abcdef", substr(h, 1, 1)) * 16 - 16 + \
			index("0123456789abcdef", substr(h, 2, 1)) - 1 }'
}

# refuse_unproven NAME: stop when the last boot of NAME (scripts/vm.sh) ran
# another build's kernel, or one it could not identify: nothing that boot
# printed may be read as a result.
refuse_unproven() {
	local st
	st=$(cat "$BUILD/results/$1.status" 2>/dev/null) || return 0
	case $st in
	wrong-kernel | unverified)
		die "the boot of $1 is not proven to have run its build's kernel ($st): $(cat "$BUILD/results/$1.identity" 2>/dev/null)" \
		    "no output of that boot counts; rebuild the kernel from nothing (remove its object directory) and report the cause" ;;
	esac
}

# configure_from FLAVOUR SRC OBJ LOG: configure OBJ, the objects of kernel
# tree SRC, with FLAVOUR's .config (make olddefconfig); again only when that
# .config changed, so that an unchanged one costs no rebuild. An OBJ never
# configured starts from FLAVOUR's objects (seed_objdir).
configure_from() {
	local flavour=$1 src=$2 obj=$3 log=$4
	[ -f "$OBJ/$flavour/.config" ] ||
		die "build/obj/$flavour is not configured" "run make kernel KERNEL=$flavour"
	make_objdir "$src" "$obj"
	[ -f "$obj/.config" ] || [ ! -f "$OBJ/$flavour/arch/x86/boot/bzImage" ] ||
		seed_objdir "$flavour" "$src" "$obj"
	cmp -s "$OBJ/$flavour/.config" "$obj/.config.$flavour" && return 0
	msg "configuring ${obj#"$TOP"/} from build/obj/$flavour/.config"
	need_space 1500
	cp "$OBJ/$flavour/.config" "$obj/.config" ||
		die "cannot copy build/obj/$flavour/.config" "check the free space"
	kmake "$src" "$obj" olddefconfig >"$log" 2>&1 ||
		die_log "$log" "make olddefconfig failed"
	cp "$OBJ/$flavour/.config" "$obj/.config.$flavour" ||
		die "cannot copy build/obj/$flavour/.config" "check the free space"
}

# fill_cover DIR TEXT: fill the cover letter that git format-patch wrote to
# DIR from TEXT (first line: the subject; the rest: the blurb), dated as the
# last patch so that the output is stable.
fill_cover() {
	local last
	last=$(ls "$1"/*.patch | tail -n 1) || die "no patches in $1" "run format-patch first"
	python3 -c '
import sys, re
cover, text, last = sys.argv[1:]
subject, _, blurb = open(text).read().partition("\n")
date = next(l for l in open(last) if l.startswith("Date: "))
s = open(cover).read()
s = s.replace("*** SUBJECT HERE ***", subject.strip())
s = s.replace("*** BLURB HERE ***", blurb.strip("\n"))
s = re.sub(r"^Date: .*\n", date, s, count=1, flags=re.M)
open(cover, "w").write(s)
' "$1/0000-cover-letter.patch" "$2" "$last" ||
		die "cannot fill the cover letter of $1 from $2" "check that $2 exists"
}

# standalone_files: true if every file named on standard input is one the
# series may change without the kernel patches (selftests, the user-space
# API guide, MAINTAINERS): such patches make the standalone series.
standalone_files() {
	! grep -qvE '^(tools/testing/selftests/|Documentation/userspace-api/|MAINTAINERS$)'
}

# fixed_identity: commits made from here on use a fixed identity and date,
# so the same inputs give the same commit ids on every machine (the cover
# letters' base-commit).
fixed_identity() {
	export GIT_AUTHOR_NAME="Debian linux-source" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org"
	export GIT_COMMITTER_NAME="ambient-caps workbench" GIT_COMMITTER_EMAIL="workbench@localhost"
	export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
}
git_() { git -c advice.detachedHead=false -c gc.auto=0 "$@"; }

# hash_files FILE...: one hash of the files' contents (of nothing: a constant).
hash_files() { { [ $# -eq 0 ] || cat "$@" 2>/dev/null || true; } | sha1sum | cut -c1-40; }

# apply_patches WORKTREE PATCH...: git am, naming the patch and hunk on failure.
apply_patches() {
	local wt=$1 p out
	shift
	for p in "$@"; do
		if ! out=$(git_ -C "$wt" am --committer-date-is-author-date \
				--whitespace=nowarn "$p" 2>&1); then
			git_ -C "$wt" am --abort >/dev/null 2>&1 || true
			printf '%s\n' "$out" | grep -E '^(error|Patch failed|Applying)' >&2 || true
			die "patch does not apply: ${p#"$TOP"/} (failing hunk above)" \
			    "rebase the patch on $(basename "$wt") (edit under build/src, commit, make series)"
		fi
	done
}

# add_worktree PATH REF: a detached worktree of the kernel repository at
# PATH, added at REF when it is missing (an existing one is left as it is).
add_worktree() {
	local path=$1 ref=$2
	git -C "$path" rev-parse --git-dir >/dev/null 2>&1 && return 0
	git -C "$SRC/stock" worktree prune 2>/dev/null || die "no stock tree" "run make tree"
	git -C "$SRC/stock" -c advice.detachedHead=false worktree add -q --detach "$path" "$ref" ||
		die "cannot add the worktree ${path#"$TOP"/} at $ref" "run make tree"
}

# add_sparse_worktree PATH REF [DIR...]: as add_worktree, but only the
# top-level files and DIRs are checked out (git sparse-checkout, cone mode;
# git am and cherry-pick still write whatever a patch touches).  For trees
# that only apply, pick or send patches: about 1 MiB and a fraction of a
# second instead of 1.7 GiB and 14 s each.  An existing full worktree of an
# older layout is thinned to the same set.
add_sparse_worktree() {
	local path=$1 ref=$2
	shift 2
	if ! git -C "$path" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$SRC/stock" worktree prune 2>/dev/null || die "no stock tree" "run make tree"
		git -C "$SRC/stock" worktree add -q --detach --no-checkout "$path" "$ref" ||
			die "cannot add the worktree ${path#"$TOP"/} at $ref" "run make tree"
	fi
	git -C "$path" sparse-checkout set --cone "$@" &&
		git -C "$path" -c advice.detachedHead=false checkout -q --detach "$ref" ||
		die "cannot check out $ref sparsely in ${path#"$TOP"/}" \
		    "remove it (git -C build/src/stock worktree remove --force ${path#"$TOP"/}) and run again"
}

# reset_worktree PATH REF: PATH's files as REF has them, detached, with any
# git am in progress dropped.
reset_worktree() {
	git -C "$1" am --abort >/dev/null 2>&1 || true
	git -C "$1" -c advice.detachedHead=false checkout -q --detach -f "$2" ||
		die "cannot check out $2 in ${1#"$TOP"/}" \
		    "remove it (git -C build/src/stock worktree remove --force ${1#"$TOP"/}) and run again"
}

# initramfs_root ROOT: a fresh guest root: busybox and its applet links,
# the guest's /init, and the two users the tests run as (root, nobody).
initramfs_root() {
	local root=$1 a
	[ -x /bin/busybox ] || die "/bin/busybox is missing" "run make deps"
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/libexec/ambient,etc,proc,sys,dev,tmp,root} ||
		die "cannot create $root" "check the free space"
	cp /bin/busybox "$root/bin/busybox" || die "cannot copy /bin/busybox" "check the free space"
	for a in $(/bin/busybox --list-full); do
		[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a" ||
			die "cannot link $a to busybox" "check the free space"
	done
	cp "$TOP/scripts/guest/init" "$root/init" ||
		die "cannot copy scripts/guest/init" "restore it from git"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' \
		>"$root/etc/passwd" &&
		printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group" ||
		die "cannot write $root/etc" "check the free space"
}

# pack_initramfs ROOT OUT: ROOT as a reproducible gzipped newc cpio at OUT,
# replaced only once it is complete.
pack_initramfs() {
	(cd "$1" && find . | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -n -1 >"$2.new" &&
		mv "$2.new" "$2" || die "cannot write $2" "check the free space"
}

# The one identity of the series (From:, Signed-off-by:, the cover letter).
# The placeholder is fine for building and checking; sending refuses it.
# b4 ARGS...: run the pinned b4 (make deps fetches it) in the current
# directory.
b4() {
	local lib=$BUILD/debian/$B4_PKG/root/usr/lib/python3/dist-packages
	[ -f "$lib/b4/command.py" ] || die "b4 $B4_PIN is not unpacked in build/debian/$B4_PKG" "run make deps"
	PYTHONPATH=$lib /usr/bin/python3 -m b4.command "$@"
}

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

# suite_names DIR: the test names of the harness programs in DIR, as the
# harness prints them: global.NAME for TEST(NAME),
# FIXTURE.NAME for TEST_F, FIXTURE.VARIANT.NAME for fixtures with variants.
# A variant may also be added through a helper macro whose body has
# FIXTURE_VARIANT_ADD(FIXTURE, <first macro argument>).
suite_names() {
	cat "$1"/*.c | tr -d ' \t' | awk -F'[(,)]' '
		/^#define[A-Za-z_0-9]+\(/ { m = substr($1, 8); inmacro = 1 }
		inmacro && /FIXTURE_VARIANT_ADD\(/ {
			split(substr($0, index($0, "FIXTURE_VARIANT_ADD(")), a, "[(,)]")
			helper[m] = a[2]
		}
		inmacro && !/\\$/ { inmacro = 0; next }
		inmacro { next }
		/^FIXTURE_VARIANT_ADD\(/ { var[$2] = var[$2] " " $3; next }
		/^TEST(_SIGNAL)?\(/ { print "global." $2; next }
		/^TEST_F(_SIGNAL|_TIMEOUT)?\(/ { tf[$2] = tf[$2] " " $3; next }
		($1 in helper) { var[helper[$1]] = var[helper[$1]] " " $2 }
		END {
			for (f in tf) {
				n = split(tf[f], t, " ")
				m = split(var[f], v, " ")
				for (i = 1; i <= n; i++)
					if (m == 0) print f "." t[i]
					else for (j = 1; j <= m; j++) print f "." v[j] "." t[i]
			}
		}' | sort -u
}

# touched_sources: the kernel C files the series changes (pre-ambient to
# ambient), one per line; tools, samples and documentation left out.
touched_sources() {
	git -C "$SRC/ambient" diff --name-only pre-ambient..ambient -- '*.c' |
		{ grep -vE '^(tools|samples|Documentation)/' || true; }
}

# kunit_patch: the KUnit patch of series/ (its last), or stop.
kunit_patch() {
	local p
	p=$(ls "$TOP"/series/[0-9]*-capabilities-add-KUnit-tests-*.patch 2>/dev/null || true)
	[ -n "$p" ] || die "series/ has no KUnit patch" "run make series"
	echo "$p"
}

# reset_tree: build/src/mutant back at the tip of the ambient branch.
reset_tree() {
	git -C "$SRC/mutant" reset -q --hard ambient && git -C "$SRC/mutant" clean -q -fd
}

# mutant_worktree: build/src/mutant at the tip of the ambient branch, for
# mutants.sh and kunit-mutants.sh (each holding obj-mutant), and put back
# there when the script exits.
mutant_worktree() {
	git -C "$SRC/ambient" rev-parse -q --verify ambient >/dev/null ||
		die "no ambient branch" "run make tree"
	add_worktree "$SRC/mutant" ambient
	trap 'reset_tree || loud "could not reset build/src/mutant to the ambient branch"' EXIT
	reset_tree
}

# tap_results LOG: the per-test results of the kselftest runner's output
# in LOG, as RESULT<TAB>program<TAB>test[<TAB>reason of a SKIP]: from the
# runner's nested TAP ("# ok N name"), and a FAIL for a test program that
# failed as a whole ("not ok N selftests: capabilities: PROG"), which the
# runner's own exit status does not show.
tap_results() {
	awk -v OFS='\t' '
		/^not ok [0-9]+ selftests: / {
			print "FAIL", $6, "(program exit status)"; next
		}
		/^# selftests: / { prog = $NF; next }
		/^# (not )?ok [0-9]+ / {
			line = $0; sub(/^# /, "", line)
			res = (line ~ /^not ok/) ? "FAIL" : "PASS"
			why = ""
			if (line ~ /# (SKIP|skip)/) {
				res = "SKIP"; why = line
				sub(/^.*# (SKIP|skip) */, "", why)
			}
			sub(/^(not )?ok [0-9]+ /, "", line); sub(/ *# .*$/, "", line)
			if (why != "") print res, prog, line, why
			else print res, prog, line
		}' "$1"
}

# The suite's program of the other sets' rules (securebits, bounding set,
# pE): it never touches pA, so it also judges a kernel without the
# ambient set (check.sh's negative control, scripts/conformance.sh).
OTHER_SETS=cap_sets_test

# What make check plants (mutants.sh --check, and kunit-mutants.sh --check
# those of them in the KUnit cases' reach): a third of tests/mutants/, one
# per rule area.
MUTANTS_CHECK_SET="setuid-exec-keeps-ambient raise-ignores-inheritable
	fcap-exec-keeps-ambient capset-keeps-ambient userns-keeps-ambient
	setuid-from-root-keeps-ambient ambient-exec-is-secure
	session-to-parent-drops-ambient no-setuid-fixup-ignored
	noroot-securebit-ignored audit-fcaps-pa-shows-old-ambient
	no-new-privs-ignores-file-caps"
