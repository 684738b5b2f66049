#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one flavour's bzImage out of tree.
#
#   kernel.sh FLAVOUR [make-args...]
#
# KCONFIG selects the configuration:
#   minimal (default)  tinyconfig + config/minimal.config + the capabilities
#                      selftest's own config file, as kselftest prescribes,
#                      + config/kunit.config where the tree has the KUnit
#                      cases; output in build/obj/FLAVOUR
#   debug              minimal + config/debug.config (UBSAN, KASAN, lockdep,
#                      list and atomic-sleep debugging); build/obj/FLAVOUR-debug
#   tinyconfig, allnoconfig
#                      the plain kernel targets, to prove the code builds
#                      with everything optional off; build/obj/FLAVOUR-KCONFIG
# The log goes to build/logs/kernel-FLAVOUR[-KCONFIG].log. TREE=NAME
# builds the worktree build/src/NAME instead (into build/obj/NAME, log
# kernel-NAME.log), configured as FLAVOUR: the bisection's steps.
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: kernel.sh FLAVOUR [make-args...]}
shift
check_flavour "$flavour"
kconfig=${KCONFIG:-minimal}
case $kconfig in
minimal | debug | tinyconfig | allnoconfig) ;;
*) die "unknown KCONFIG '$kconfig'" "use minimal, debug, tinyconfig or allnoconfig" ;;
esac
tree=${TREE:-$flavour}
src=$SRC/$tree
obj=$OBJ/$(build_name "$tree")
log=$LOGS/kernel-$(build_name "$tree").log

lock "obj-$(build_name "$tree")"
[ -f "$src/Makefile" ] || die "no kernel tree at $src" "run make tree"
make_objdir "$src" "$obj"
need_space 2000

# The first build of a 6.12 tree other than stock starts from stock's
# objects (lib.sh, seed_objdir): the 6.12 trees are configured alike but
# for the KUnit cases' symbol and differ in a few files, so make then
# compiles little. ccache alone cannot do this: the KUnit symbol changes
# the generated autoconf.h, which every object includes.
if [ "$kconfig" = minimal ] && [ ! -f "$obj/.config" ] && [ "$tree" != stock ] &&
   [ "$flavour" != upstream ] && [ -f "$OBJ/stock/arch/x86/boot/bzImage" ]; then
	seed_objdir stock "$src" "$obj"
fi

# fragments: the selftests' config comes from the series' branch (not
# whatever commit its worktree has checked out), so the 6.12 kernels, and
# every step of a bisection, are configured alike; upstream takes it from
# the standalone series.
fragments="$TOP/config/minimal.config"
# The KUnit cases are built in where the tree has them (not on stock or
# pre-ambient, nor at the bisection's steps before the patch that adds
# them); only a boot in KUnit mode runs them (scripts/vm.sh).
[ -f "$src/security/commoncap_test.c" ] && fragments="$fragments $TOP/config/kunit.config"
[ "$kconfig" = debug ] && fragments="$fragments $TOP/config/debug.config"
case $flavour in upstream) series_vars upstream ;; *) series_vars ambient ;; esac
if git -C "$S_TREE" show "$S_BRANCH:tools/testing/selftests/capabilities/config" \
	>"$obj/.selftests.config" 2>/dev/null; then
	fragments="$fragments $obj/.selftests.config"
fi

configure() {
	local want
	if [ "$kconfig" = tinyconfig ] || [ "$kconfig" = allnoconfig ]; then
		[ -f "$obj/.config" ] && return
		kmake "$src" "$obj" "$kconfig" >"$log" 2>&1 ||
			die_log "$log" "make $kconfig failed"
		return
	fi
	want=$(cat $fragments | sha1sum | cut -c1-40) ||
		die "cannot read the config fragments:$fragments" "restore config/ from git"
	[ -f "$obj/.config" ] && [ "$(cat "$obj/.fragments" 2>/dev/null)" = "$want" ] && return
	msg "configuring $flavour"
	# Configure aside and keep the old .config when nothing changed, so
	# that a fragment edit with no effect costs no rebuild.
	[ -f "$obj/.config" ] && cp -p "$obj/.config" "$obj/.config.prev"
	{
		kmake "$src" "$obj" tinyconfig &&
			"$src"/scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" $fragments &&
			kmake "$src" "$obj" olddefconfig
	} >"$log" 2>&1 || die_log "$log" "configuring $flavour failed"
	if [ -f "$obj/.config.prev" ] && cmp -s "$obj/.config" "$obj/.config.prev"; then
		mv "$obj/.config.prev" "$obj/.config"
	fi
	rm -f "$obj/.config.prev"
	# every requested symbol must have survived olddefconfig
	local line bad=
	for line in $(cat $fragments | grep -E '^CONFIG_[A-Z0-9_]+=' ); do
		grep -qxF "$line" "$obj/.config" || bad="$bad $line"
	done
	[ -z "$bad" ] || die "config symbols did not take effect:$bad" \
		"a dependency is missing: add it to config/minimal.config"
	echo "$want" >"$obj/.fragments"
}

configure
msg "building $flavour ($kconfig${*:+, $*})"
kmake "$src" "$obj" "${@:-bzImage}" >>"$log" 2>&1 ||
	die_log "$log" "building $flavour failed" \
		"fix it in build/src/$flavour (or the patch that caused it)"
