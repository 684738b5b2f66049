#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fixture test of scripts/mutants-generate.py: a tiny git repository whose
# "series" adds two small functions to security/commoncap.c (old and new
# creds, a compound if, cap_raised, -EPERM, cap_clear) and three lines to a
# large function of kernel/auditsc.c; the generator must make the expected
# mutated lines for every operator, and only where the series is ours,
# give IDs that do not move with the lines, patches that apply, no two
# mutants alike, and the same --sample every time. No kernel, no build:
# it takes seconds.
#
#   tests/mutants/generate-test.sh
#
# Prints "ok N - CASE" / "not ok N - CASE" and a last line
# "mutants-generate: N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

gen=$(cd "$(dirname "$0")/../../scripts" && pwd)/mutants-generate.py
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
repo=$work/repo out=$work/out

n=0 passed=0 failed=0
result() {	# result CASE STATUS
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n - $1"
		passed=$((passed + 1))
	else
		echo "not ok $n - $1"
		failed=$((failed + 1))
	fi
}
check() {	# check CASE COMMAND...: the case passes if the command does
	local what=$1
	shift
	"$@"
	result "$what" $?
}
g() { git -C "$repo" -c user.name=Fixture -c user.email=fixture@example.org "$@"; }
# The fixture is written with 8-space indents; the kernel's are tabs.
tabs() { unexpand --first-only; }

# ---- the fixture: a base, then the "series" on top

mkdir -p "$repo/security" "$repo/kernel" "$repo/tools/testing" "$repo/include/uapi/linux"
g init -q
tabs >"$repo/security/commoncap.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
/* Fixture of tests/mutants/generate-test.sh */
#include <linux/capability.h>

int cap_untouched(const struct cred *old, struct cred *new)
{
        if (old == new && !cap_isclear(old->cap_bset))
                return -EPERM;
        return 0;
}
EOF
tabs >"$repo/kernel/auditsc.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
void audit_big(struct audit_context *ctx, const struct cred *new)
{
        int n = 0;

        if (ctx->type == 1 && n < 3)
                ctx->cap.permitted = new->cap_permitted;
        audit_log_end(ctx);
}
EOF
echo 'int tool(void) { return 1 == 1; }' >"$repo/tools/testing/tool.c"
echo 'int x_test(void) { return 1 == 1; }' >"$repo/security/commoncap_test.c"
echo '#define PR_X 1' >"$repo/include/uapi/linux/prctl.h"
g add -A && g commit -qm base && g tag base
branch=$(g symbolic-ref --short HEAD)

tabs >>"$repo/security/commoncap.c" <<'EOF'

static bool fixture_ok(const struct cred *cred, unsigned long cap)
{
        if (cap >= 64)
                return false;
        return cap_isclear(cred->cap_ambient);
}

/*
 * fixture_ambient - old and new creds, a compound if, cap_raised, -EPERM
 * and cap_clear: if (old->cap_ambient && new) is a comment, not code.
 */
static int fixture_ambient(const struct cred *old, struct cred *new,
                           unsigned long cap, unsigned long arg4)
{
        int ret = 0;

        if (arg4 != 0)
                return -EINVAL;
        if (!cap_raised(old->cap_permitted, cap) ||
            !cap_raised(old->cap_inheritable, cap))
                return -EPERM;
        cap_clear(new->cap_ambient);
        if (fixture_ok(old, cap) && cap < 32)
                cap_raise(new->cap_ambient, cap);
        new->cap_effective = cap_combine(new->cap_effective,
                                         old->cap_ambient);
        return ret;
}
EOF
python3 - "$repo/kernel/auditsc.c" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read().replace(
    '\taudit_log_end(ctx);\n',
    '\tctx->cap.ambient = new->cap_ambient;\n'
    '\taudit_log_flush(ctx);\n\taudit_log_flush(ctx);\n'
    '\taudit_log_end(ctx);\n')
open(p, 'w').write(s)
EOF
echo 'int tool2(void) { return 2 == 2; }' >>"$repo/tools/testing/tool.c"
echo 'int y_test(void) { return 2 == 2; }' >>"$repo/security/commoncap_test.c"
echo '#define PR_Y (1 == 1)' >>"$repo/include/uapi/linux/prctl.h"
g add -A && g commit -qm series

# ---- run it

"$gen" "$repo" base "$out" >"$work/summary" 2>&1
check "the generator runs on the fixture and exits 0" [ $? -eq 0 ]
"$gen" "$repo" base "$out" --list >"$work/list" 2>&1
listed=$(wc -l <"$work/list") written=$(find "$out" -name '*.patch' | wc -l)
check "--list prints one line per patch written" [ "$listed" -eq "$written" ]
check "the fixture gives some 70 mutants" [ "$listed" -gt 50 ]
check "the summary counts per operator and per function and ends with the total" \
	grep -qE "^total: $listed mutants" "$work/summary"
check "tools/, include/uapi/ and *_test.c are left alone" \
	bash -c "! grep -qE 'tools/|uapi|_test\\.c' '$work/list'"
check "a function the series does not touch gets no mutant" \
	bash -c "! grep -q cap_untouched '$work/list'"
check "in other files only the added lines are mutated (not audit_big's own if)" \
	bash -c "! grep -q '^-.*ctx->type == 1' '$out'/audit_big-*.patch &&
		 ! grep -q 'audit_big-\\(and-or\\|off-by-one\\|early-return\\)' '$work/list'"
check "declarations and comments are never mutated" \
	bash -c "! grep -qE '^-.*(int ret = 0;|is a comment)' '$out'/*.patch"

# found OP LINE...: some patch of operator OP has all these lines
found() {
	local op=$1 p l
	shift
	for p in "$out"/*-"$op"-*.patch; do
		[ -f "$p" ] || continue
		for l in "$@"; do
			grep -qxF -- "$l" "$p" || continue 2
		done
		return 0
	done
	return 1
}
T=$'\t'
check "negate-cond: if (!(arg4 != 0))" found negate-cond "-${T}if (arg4 != 0)" "+${T}if (!(arg4 != 0))"
check "negate-cond: a bool helper's return is negated" \
	found negate-cond "+${T}return !(cap_isclear(cred->cap_ambient));"
check "and-or: || becomes &&, one at a time" \
	found and-or "+${T}if (!cap_raised(old->cap_permitted, cap) &&"
check "eq-ne: != becomes ==" found eq-ne "+${T}if (arg4 == 0)"
check "drop-clause: the first operand of a two-line condition goes" \
	found drop-clause "-${T}if (!cap_raised(old->cap_permitted, cap) ||" \
	"-${T}    !cap_raised(old->cap_inheritable, cap))" \
	"+${T}if (!cap_raised(old->cap_inheritable, cap))"
check "drop-clause: the second operand goes" \
	found drop-clause "+${T}if (!cap_raised(old->cap_permitted, cap))"
check "drop-clause: && cap < 32 goes" found drop-clause "+${T}if (fixture_ok(old, cap))"
check "old-new: old becomes new on the second line of a statement" \
	found old-new "+${T}${T}${T}${T}${T} new->cap_ambient);"
check "old-new: new becomes old where it is read" \
	found old-new "+${T}new->cap_effective = cap_combine(old->cap_effective,"
check "old-new: never a write through the const old" \
	bash -c "! grep -qE '^\\+.*(old->cap_effective =|cap_clear\\(old|cap_raise\\(old)' '$out'/*.patch"
check "raised: !cap_raised becomes cap_raised" \
	found raised "+${T}if (cap_raised(old->cap_permitted, cap) ||"
check "errno: -EPERM becomes -EINVAL" found errno "-${T}${T}return -EPERM;" "+${T}${T}return -EINVAL;"
check "errno: -EINVAL becomes -EPERM" found errno "-${T}${T}return -EINVAL;" "+${T}${T}return -EPERM;"
check "delete-stmt: cap_clear(new->cap_ambient) is deleted" \
	bash -c "grep -lxF -- '-${T}cap_clear(new->cap_ambient);' '$out'/fixture_ambient-delete-stmt-*.patch |
		 xargs grep -L '^+[^+]' | grep -q ."
check "delete-stmt: a statement on two lines goes whole" \
	found delete-stmt "-${T}new->cap_effective = cap_combine(new->cap_effective," \
	"-${T}${T}${T}${T}${T} old->cap_ambient);"
check "delete-stmt: the sole statement of an if becomes { }" \
	found delete-stmt "-${T}${T}cap_raise(new->cap_ambient, cap);" "+${T}${T}{ }"
check "set-swap: cap_ambient becomes each of the other four sets" \
	[ "$(grep -lxE "\\+${T}cap_clear\\(new->cap_(permitted|inheritable|effective|bset)\\);" \
		"$out"/fixture_ambient-set-swap-*.patch | wc -l)" -eq 4 ]
check "set-swap: the audit field .ambient becomes .permitted" \
	found set-swap "+${T}ctx->cap.permitted = new->cap_ambient;"
check "early-return: return 0; after the declarations" \
	found early-return "+${T}return 0;" " ${T}if (arg4 != 0)"
check "early-return: return false; and return true; in a bool function" \
	bash -c "grep -qxF '+${T}return false;' '$out'/fixture_ok-early-return-*.patch &&
		 grep -qxF '+${T}return true;' '$out'/fixture_ok-early-return-*.patch"
check "off-by-one: >= becomes >" found off-by-one "+${T}if (cap > 64)"
check "off-by-one: < becomes <=" found off-by-one "+${T}if (fixture_ok(old, cap) && cap <= 32)"
check "cap-op: cap_raise becomes cap_lower" found cap-op "+${T}${T}cap_lower(new->cap_ambient, cap);"
check "cap-op: cap_combine becomes cap_intersect" \
	found cap-op "+${T}new->cap_effective = cap_intersect(new->cap_effective,"
check "cap-op: cap_isclear is negated" found cap-op "+${T}return !cap_isclear(cred->cap_ambient);"
check "bool-const: false becomes true" found bool-const "-${T}${T}return false;" "+${T}${T}return true;"

line=$(grep -n 'cap_raise(new' "$repo/security/commoncap.c" | cut -d: -f1)
want="cap-op at security/commoncap.c:$line in fixture_ambient(): \`cap_raise(new->cap_ambient, cap);\` becomes \`cap_lower(new->cap_ambient, cap);\` (mutants-generate.py)."
# shellcheck disable=SC2016 # the arguments expand in the inner shell
check "the first line says operator, file:line, function, original and mutated text" \
	bash -c 'head -qn1 "$1"/fixture_ambient-cap-op-*.patch | grep -qxF -- "$2"' _ "$out" "$want"
check "IDs are FUNCTION-OPERATOR-8 hex digits" \
	bash -c "! cut -f1 '$work/list' | grep -vqE '^[a-z_]+-[a-z-]+-[0-9a-f]{8}\$'"

# ---- every patch applies, and gives a file no other mutant gives

# sources: the sha1 of the fixture's C files as they are
sources() { (cd "$repo" && cat security/commoncap.c kernel/auditsc.c | sha1sum); }
applies=0 sums=$work/sums original=$(sources)
for p in "$out"/*.patch; do
	g apply --check "$p" 2>/dev/null || { echo "# does not apply: $p"; applies=1; }
	g apply "$p" 2>/dev/null && sources >>"$sums"
	g checkout -q -- .
done
check "every patch applies to HEAD with git apply" [ "$applies" -eq 0 ]
check "no two mutants give the same file, none gives the original" \
	bash -c "[ -z \"\$(sort '$sums' | uniq -d)\" ] && ! grep -qxF '$original' '$sums'"
check "the mutant that would repeat another (a repeated line deleted) is dropped" \
	grep -q '(1 duplicates dropped)' "$work/summary"

# ---- stable IDs, deterministic samples

g checkout -q -b moved
sed -i 's/^static bool fixture_ok/\n&/' "$repo/security/commoncap.c"
sed -i 's/^void audit_big/\n&/' "$repo/kernel/auditsc.c"
g commit -qam 'a blank line above the functions'
"$gen" "$repo" base "$out" --list >"$work/list-moved" 2>&1
check "IDs do not change when a blank line is inserted above the functions" \
	cmp -s <(cut -f1 "$work/list" | sort) <(cut -f1 "$work/list-moved" | sort)
check "... while their line numbers do" \
	bash -c "! cmp -s <(cut -f3 '$work/list' | sort) <(cut -f3 '$work/list-moved' | sort)"
g checkout -q "$branch"

"$gen" "$repo" base "$out" --list --sample 10 --seed 7 >"$work/s1" 2>&1
"$gen" "$repo" base "$out" --list --sample 10 --seed 7 >"$work/s2" 2>&1
"$gen" "$repo" base "$out" --list --sample 10 --seed 8 >"$work/s3" 2>&1
check "--sample 10 keeps 10 of the mutants" \
	bash -c "[ \$(wc -l <'$work/s1') -eq 10 ] && [ -z \"\$(comm -23 <(sort '$work/s1') <(sort '$work/list'))\" ]"
check "--sample is the same for the same seed and another for another seed" \
	bash -c "cmp -s '$work/s1' '$work/s2' && ! cmp -s '$work/s1' '$work/s3'"
check "--sample gives the same IDs after the lines moved" \
	bash -c "cmp -s <(cut -f1 '$work/s1') <(cd '$repo' && git checkout -q moved &&
		'$gen' '$repo' base '$out' --list --sample 10 --seed 7 | cut -f1)"
g checkout -q "$branch"
echo 'A hand-written mutant.' >"$out/hand-written.patch"
"$gen" "$repo" base "$out" --sample 10 --seed 7 >/dev/null 2>&1
check "a sampled run writes its patches, removes stale generated ones, keeps others" \
	bash -c "[ \$(ls '$out'/*.patch | wc -l) -eq 11 ] && [ -f '$out/hand-written.patch' ]"

echo "mutants-generate: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
