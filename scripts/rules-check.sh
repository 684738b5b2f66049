#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the rule table tests/rules.md against the suite, the mutants and
# the KUnit cases: every test it names exists in selftests/ (a * matches
# the variants of a fixture), every mutant it names is in tests/mutants/,
# every KUnit pattern matches a row of the KUnit patch (series/, the rule
# string of each row), every rule has a test or a KUnit row, and every
# test of the suite, every mutant and every KUnit row belongs to some rule.
# Prints the counts; exits 1 on any failure.
. "$(dirname "$0")/lib.sh"

TABLE=$TOP/tests/rules.md
SUITE=$TOP/selftests
MUTDIR=$TOP/tests/mutants
[ -f "$TABLE" ] || die "tests/rules.md is missing" "restore it from git"
kpatch=$(kunit_patch)

# Rows: | # | area | rule | tests | mutants | KUnit rows |
rows() { awk -F'|' 'NF >= 8 && $2 ~ /^ *[0-9]+ *$/' "$TABLE"; }
names() { { grep -oE '`[^`]+`' || true; } | tr -d '`' | sort -u; }

suite=$(suite_names "$SUITE")
[ -n "$suite" ] || die "no harness tests found in selftests/" "run make series"
named=$(rows | awk -F'|' '{ print $5 }' | names)
mutants=$(rows | awk -F'|' '{ print $6 }' | names)
kpatterns=$(rows | awk -F'|' '{ print $7 }' | names)
# the rule string of every row of the KUnit tables
krows=$(sed -n 's/^+[[:space:]]*\.rule = "\(.*\)",$/\1/p' "$kpatch" | sort -u)
[ -n "$krows" ] || die "no KUnit rows (.rule = \"...\") in ${kpatch#"$TOP"/}" "check the patch"
bad=0

# matches NAME PATTERNS: whether NAME matches one of the lines of PATTERNS
# (no pipes: a reader that stops early must not fail the pipeline).
matches() {
	local p
	while read -r p; do
		# shellcheck disable=SC2254 # the name is a pattern on purpose
		case $1 in $p) return 0 ;; esac
	done <<<"$2"
	return 1
}
# covers PATTERN NAMES: whether PATTERN matches one of the lines of NAMES.
covers() {
	local n
	while read -r n; do
		# shellcheck disable=SC2254
		case $n in $1) return 0 ;; esac
	done <<<"$2"
	return 1
}

missing=$(while read -r t; do
	[ -z "$t" ] || covers "$t" "$suite" || echo "$t"
done <<<"$named")
[ -z "$missing" ] || { echo "tests named in tests/rules.md but not in the suite:"; sed 's/^/  /' <<<"$missing"; bad=1; }

untested=$(rows | awk -F'|' '$5 !~ /`/ && $7 !~ /`/ { print "rule" $2 }')
[ -z "$untested" ] || { echo "rules without a test or KUnit row:"; sed 's/^/  /' <<<"$untested"; bad=1; }

kmissing=$(while read -r k; do
	[ -z "$k" ] || covers "$k" "$krows" || echo "$k"
done <<<"$kpatterns")
[ -z "$kmissing" ] || { echo "KUnit rows named in tests/rules.md but not in ${kpatch#"$TOP"/}:"; sed 's/^/  /' <<<"$kmissing"; bad=1; }

kruleless=$(while read -r r; do
	matches "$r" "$kpatterns" || echo "$r"
done <<<"$krows")
[ -z "$kruleless" ] || { echo "KUnit rows that no rule names:"; sed 's/^/  /' <<<"$kruleless"; bad=1; }

unknown=$(while read -r m; do
	[ -z "$m" ] || [ -f "$MUTDIR/$m.patch" ] || echo "$m"
done <<<"$mutants")
[ -z "$unknown" ] || { echo "mutants named in tests/rules.md but not in tests/mutants/:"; sed 's/^/  /' <<<"$unknown"; bad=1; }

ruleless=$(while read -r s; do
	matches "$s" "$named" || echo "$s"
done <<<"$suite")
[ -z "$ruleless" ] || { echo "tests of the suite that no rule names:"; sed 's/^/  /' <<<"$ruleless"; bad=1; }

orphans=$(for p in "$MUTDIR"/*.patch; do
	m=$(basename "$p" .patch)
	grep -qxF "$m" <<<"$mutants" || echo "$m"
done)
[ -z "$orphans" ] || { echo "mutants that no rule names:"; sed 's/^/  /' <<<"$orphans"; bad=1; }

nrules=$(rows | wc -l)
nomut=$(rows | awk -F'|' '$6 !~ /`/' | wc -l)
nokunit=$(rows | awk -F'|' '$7 !~ /`/' | wc -l)
echo "rules: $nrules rules, $(wc -l <<<"$suite") tests, $(wc -l <<<"$mutants") mutants and $(wc -l <<<"$krows") KUnit rows named; $nomut rules have no mutant, $nokunit no KUnit row"
[ $bad -eq 0 ] || die "tests/rules.md does not match the suite, the mutants and the KUnit rows (above)" \
	"name every test, mutant and KUnit row in a rule, or fix the names"
