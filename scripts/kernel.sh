#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one flavour's bzImage out of tree.
#
#   kernel.sh FLAVOUR [make-args...]
#
# The config is tinyconfig plus config/minimal.config plus the capabilities
# selftest's own config file, as kselftest prescribes. Output goes to
# build/obj/FLAVOUR; the log to build/logs/kernel-FLAVOUR.log.
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: kernel.sh FLAVOUR [make-args...]}
shift
check_flavour "$flavour"
src=$SRC/$flavour
obj=${KOBJ:-$OBJ/$flavour}
log=$LOGS/kernel-$flavour${KOBJ:+-$(basename "$obj")}.log

[ -f "$src/Makefile" ] || die "no kernel tree at $src" "run make tree"
mkdir -p "$obj"
need_space 2000

export KBUILD_BUILD_TIMESTAMP="2000-01-01" KBUILD_BUILD_USER=ambient KBUILD_BUILD_HOST=workbench
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"

# fragments: the selftests' config comes from the product tree, so all
# three kernels are configured alike.
fragments="$TOP/config/minimal.config ${EXTRA_FRAGMENTS:-}"
for f in "$SRC"/ambient/tools/testing/selftests/capabilities/config; do
	[ -f "$f" ] && fragments="$fragments $f"
done

kmake() { make -C "$src" O="$obj" CC="$cc" HOSTCC=gcc -j"$(jobs)" "$@"; }

configure() {
	local want
	want=$(cat $fragments | sha1sum | cut -c1-40)
	[ -f "$obj/.config" ] && [ "$(cat "$obj/.fragments" 2>/dev/null)" = "$want" ] && return
	msg "configuring $flavour"
	{
		kmake tinyconfig
		"$src"/scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" $fragments
		kmake olddefconfig
	} >"$log" 2>&1 || { tail -20 "$log" >&2; die "configuring $flavour failed (log: $log)" "read the log"; }
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
msg "building $flavour${*:+ ($*)}"
if ! kmake "${@:-bzImage}" >>"$log" 2>&1; then
	grep -E 'error:|Error [0-9]|undefined reference' "$log" | head -20 >&2
	die "building $flavour failed (log: $log)" \
	    "fix the error above in build/src/$flavour (or the patch that caused it)"
fi
