#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KUnit tests of security/commoncap.c on Linux 7.2, run as upstream
# runs them: tools/testing/kunit/kunit.py in a worktree of
#
#   Linux 7.2 as shipped                    (tag upstream)
#   + upstream/kselftest-docs/*.patch
#   + kunit/*.patch                         (branch kunit, build/src/kunit-upstream)
#
# configured from kunit/upstream.kunitconfig, built in build/kunit/upstream
# and booted in QEMU under TCG.  Prints the result of every case and row,
# the build and run times, and fails when a case fails or none ran.
#
# The branch is laid out again only when the patches or the tag change;
# local commits on it are then refused unless FORCE=1 (export them with
# git format-patch into kunit/ first).
. "$(dirname "$0")/lib.sh"

fixed_identity
series_vars upstream
wt=$SRC/kunit-upstream
branch=kunit
out=$BUILD/kunit/upstream
kunitconfig=$TOP/kunit/upstream.kunitconfig
stamp=$SRC/.kunit-upstream.stamp
log=$LOGS/kunit-upstream.log
json=$BUILD/kunit/upstream.json

lock kunit
[ -f "$kunitconfig" ] || die "kunit/upstream.kunitconfig is missing" "restore it from git"
git_ -C "$SRC/stock" rev-parse -q --verify upstream >/dev/null ||
	die "no tag upstream" "run make tree"
kpatches=$(ls "$TOP"/kunit/[0-9]*.patch 2>/dev/null || true)
[ -n "$kpatches" ] || die "kunit/ holds no patch" "restore kunit/*.patch from git"
patches="$(series_patches_of "$S_DIR") $kpatches"

# unexported HEAD: the commits of HEAD that neither tag upstream nor
# branch kselftest-docs holds and that match no patch of kunit/ (by
# patch-id); a commit of the standalone series (by subject) is laid out
# again from upstream/kselftest-docs/, not lost.
unexported() {
	local ids subjects c id not=upstream
	# shellcheck disable=SC2086
	ids=$(cat $kpatches | git_ -C "$wt" patch-id --stable | cut -d' ' -f1)
	subjects=$(for p in $(series_patches_of "$S_DIR"); do
		git_ mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Subject: //p'
	done)
	git_ -C "$wt" rev-parse -q --verify "refs/heads/$S_BRANCH" >/dev/null &&
		not="$not refs/heads/$S_BRANCH"
	# shellcheck disable=SC2086
	for c in $(git_ -C "$wt" rev-list "$1" --not $not); do
		grep -qxF -- "$(git_ -C "$wt" log -1 --format=%s "$c")" <<<"$subjects" && continue
		id=$(git_ -C "$wt" show "$c" | git_ -C "$wt" patch-id --stable | cut -d' ' -f1)
		[ -z "$id" ] || grep -qx "$id" <<<"$ids" ||
			git_ -C "$wt" log -1 --format='  %h %s' "$c"
	done
}

# The worktree: laid out again from the patches when they or the tag changed.
add_worktree "$wt" upstream
# shellcheck disable=SC2086
want="$(hash_files $patches) $(git_ -C "$wt" rev-parse upstream)"
old_hash='' old_base='' old_head=''
[ ! -f "$stamp" ] || read -r old_hash old_base old_head <"$stamp" || true
if [ "$old_hash $old_base" = "$want" ] &&
   git_ -C "$wt" rev-parse -q --verify "refs/heads/$branch" >/dev/null; then
	git_ -C "$wt" checkout -q "$branch" ||
		die "cannot check out branch $branch in build/src/kunit-upstream" \
		    "commit or discard the changes there (git -C build/src/kunit-upstream status)"
else
	[ -z "$(git_ -C "$wt" status --porcelain --untracked-files=no)" ] ||
		die "uncommitted changes in build/src/kunit-upstream" \
		    "commit them and export the commit to kunit/ (git format-patch), or discard them"
	head=$(git_ -C "$wt" rev-parse -q --verify "refs/heads/$branch" || true)
	if [ -n "$head" ] && [ "$head" != "$old_head" ] && [ "${FORCE:-0}" != 1 ]; then
		lost=$(unexported "$head")
		[ -z "$lost" ] ||
			die "branch $branch of build/src/kunit-upstream has commits that kunit/ does not hold:
$lost" "export them (git -C build/src/kunit-upstream format-patch -o kunit/ kselftest-docs..$branch), or run with FORCE=1 to drop them"
	fi
	msg "laying out branch $branch: tag upstream, upstream/kselftest-docs/, kunit/"
	reset_worktree "$wt" upstream
	# shellcheck disable=SC2086
	apply_patches "$wt" $patches
	git_ -C "$wt" checkout -q -B "$branch"
	echo "$want $(git_ -C "$wt" rev-parse HEAD)" >"$stamp"
fi
[ -x "$wt/tools/testing/kunit/kunit.py" ] || die "no kunit.py in build/src/kunit-upstream" "run make tree"

# kunit.py starts QEMU with "-accel kvm -accel hvf -accel tcg"; opening
# /dev/kvm can hang on a host that has it without working KVM, and neither
# --qemu_args nor --qemu_config can take an -accel away.  A qemu-system-x86_64
# of our own, first in PATH, replaces every -accel with "-accel tcg".
bin=$BUILD/kunit/bin
qemu=$(PATH=${PATH//"$bin:"/} command -v qemu-system-x86_64) ||
	die "qemu-system-x86_64 is not installed" "run make deps"
mkdir -p "$bin" "$out"
cat >"$bin/qemu-system-x86_64.new" <<EOF
#!/bin/bash
# Written by scripts/kunit.sh: QEMU for kunit.py, under TCG alone.
args=()
while [ \$# -gt 0 ]; do
	case \$1 in
	-accel) shift 2 ;;
	*) args+=("\$1"); shift ;;
	esac
done
printf '%s\n' "\${args[*]} -accel tcg" >"$bin/qemu.cmdline"
exec "$qemu" "\${args[@]}" -accel tcg
EOF
if ! { chmod +x "$bin/qemu-system-x86_64.new" &&
	mv "$bin/qemu-system-x86_64.new" "$bin/qemu-system-x86_64"; }; then
	die "cannot write build/kunit/bin/qemu-system-x86_64" "check the free space"
fi

need_space 3000
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
msg "kunit.py run --arch=x86_64 in build/src/kunit-upstream (log: ${log#"$TOP"/})"
rm -f "$json" "$bin/qemu.cmdline"
rc=0
(cd "$wt" && PATH=$bin:$PATH CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 \
	KBUILD_BUILD_TIMESTAMP="2000-01-01" KBUILD_BUILD_USER=ambient KBUILD_BUILD_HOST=workbench \
	python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
		--kunitconfig="$kunitconfig" --build_dir="$out" \
		--make_options "CC=$cc" --make_options "HOSTCC=$cc" \
		--jobs "$(ncpus)" --timeout 900 --json="$json") >"$log" 2>&1 || rc=$?

grep -q 'Running tests with' "$log" ||
	die_log "$log" "kunit.py stopped before the tests ran (configuration or build)" \
		"read the log; a kunitconfig option missing from .config names a dependency to add to kunit/upstream.kunitconfig"
[ -f "$bin/qemu.cmdline" ] ||
	die "kunit.py did not start QEMU through build/kunit/bin/qemu-system-x86_64" \
	    "check how tools/testing/kunit/kunit_kernel.py names the QEMU binary, and adapt scripts/kunit.sh"
msg "QEMU ran with: $(grep -o -- '-accel [a-z]*' "$bin/qemu.cmdline" | paste -sd' ')"
[ -s "$json" ] ||
	die_log "$log" "kunit.py wrote no results (the kernel did not boot or print KTAP)" \
		"read the log; the console output of the guest is at its end"

# One line per case, or per row of a parameterised case; then the counts.
python3 - "$json" <<'EOF' || rc=1
import json, sys

counts = {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}

def walk(group, path):
    for case in group["test_cases"]:
        counts[case["status"]] = counts.get(case["status"], 0) + 1
        print("%-5s %s" % (case["status"], ": ".join(path + [case["name"]])))
    for sub in group["sub_groups"]:
        walk(sub, path + [sub["name"]])

top = json.load(open(sys.argv[1]))
for suite in top["sub_groups"]:
    walk(suite, [suite["name"]])
ran = sum(counts.values())
print("kunit: %d ran, %d passed, %d failed, %d skipped, %d crashed"
      % (ran, counts["PASS"], counts["FAIL"], counts["SKIP"], counts["ERROR"]))
sys.exit(0 if ran and counts["PASS"] + counts["SKIP"] == ran else 1)
EOF

# kunit.py: "Elapsed time: Ts total, Cs configuring, Bs building, Rs running"
times=$(sed -n 's/^.*Elapsed time: \([0-9.]*\)s total, \([0-9.]*\)s configuring, \([0-9.]*\)s building, \([0-9.]*\)s running.*/\1 \2 \3 \4/p' "$log" | tail -n 1)
if [ -n "$times" ]; then
	read -r t_total t_conf t_build t_run <<<"$times"
	printf 'kunit: build %.0f s, run %.0f s (configure %.0f s, total %.0f s) on %s CPUs\n' \
		"$t_build" "$t_run" "$t_conf" "$t_total" "$(ncpus)"
fi
[ $rc -eq 0 ] || die "KUnit cases failed or did not run (above; kunit.py's report: ${log#"$TOP"/})" \
	"read the failed expectations in the log, fix security/commoncap.c or the test under build/src/kunit-upstream, commit, and export the commit to kunit/"
