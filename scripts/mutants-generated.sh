#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Mutation testing with mutants made from the code rather than by hand:
# scripts/mutants-generate.py applies the usual operators to every line of
# the functions the series adds or changes (build/mutants-generated/),
# scripts/mutants.sh plants each in turn, and this script scores them.
#
#   mutants-generated.sh            every generated mutant
#   mutants-generated.sh N [SEED]   a fixed sample of N (SEED default 1)
#   MUTANTS="ID..." mutants-generated.sh   those alone
#
# A mutant that does not build is stillborn and not scored. A survivor is
# either listed in tests/mutants/equivalent.tsv (ID, then why no test can
# tell it from the unmutated kernel) or a hole in the suite. Prints the
# number generated, stillborn, killed, equivalent and survived, every
# survivor with what it changes, the score and the time; exits non-zero
# when a survivor is unexplained.
. "$(dirname "$0")/lib.sh"

out=$BUILD/mutants-generated
equiv=$TOP/tests/mutants/equivalent.tsv
summary=$BUILD/results/mutants-generated.tsv
start=$SECONDS

mkdir -p "$out" || die "cannot create ${out#"$TOP"/}" "check the free space"
sample=()
[ -z "${1:-}" ] || sample=(--sample "$1" --seed "${2:-1}")
[ -n "${1:-}" ] || [ -z "${2:-}" ] || die "a SEED without a SAMPLE size" "use make mutants-generated SAMPLE=N SEED=S"
python3 "$TOP/scripts/mutants-generate.py" "$SRC/ambient" pre-ambient "$out" "${sample[@]}" \
	>"$LOGS/mutants-generate.log" 2>&1 ||
	die_log "$LOGS/mutants-generate.log" "generating the mutants failed" "read the log"
msg "$(tail -n 1 "$LOGS/mutants-generate.log")"

# shellcheck disable=SC2086 # a list of names
set -- ${MUTANTS:-}
rm -f "$summary"
# In this mode mutants.sh fails only when it could not judge every mutant
# (the unmutated tree fails, a patch does not apply, a wrong kernel booted):
# then no score is given.
MUTANTS_GENERATED=$out "$TOP/scripts/mutants.sh" "$@" ||
	die "scripts/mutants.sh stopped before judging every mutant (above)" "fix the cause it names and run again"

# what DIR/ID.patch says it does: its first line
what() { head -n 1 "$out/$1.patch"; }
reason() { awk -F'\t' -v id="$1" '$1 == id { print $2; exit }' "$equiv" 2>/dev/null; }

n=$(wc -l <"$summary")
read -r killed stillborn < <(awk -F'\t' '$2 == "killed" { k++ } $2 == "stillborn" { s++ }
	END { print k + 0, s + 0 }' "$summary")
equivalent=0 survived=0
while IFS=$'\t' read -r id verdict _; do
	[ "$verdict" = survived ] || continue
	r=$(reason "$id")
	if [ -n "$r" ]; then
		equivalent=$((equivalent + 1))
		printf 'equivalent %s: %s\n    because: %s\n' "$id" "$(what "$id")" "$r"
	else
		survived=$((survived + 1))
		printf 'SURVIVED   %s: %s\n' "$id" "$(what "$id")"
	fi
done <"$summary"
scored=$((n - stillborn - equivalent))
[ "$scored" -gt 0 ] ||
	die "no generated mutant could be scored: $n run, $stillborn stillborn, $equivalent equivalent" \
	    "read build/logs/mutants/ID-build.log of a stillborn one: a broken toolchain or a full disk?"
printf 'generated mutants: %d run, %d stillborn, %d killed, %d equivalent, %d survived;' \
	"$n" "$stillborn" "$killed" "$equivalent" "$survived"
printf ' score %d of %d (%s %%) in %d s\n' "$killed" "$scored" \
	"$([ "$scored" -gt 0 ] && echo "scale=1; 100 * $killed / $scored" | bc || echo -)" $((SECONDS - start))
[ "$survived" -eq 0 ] ||
	die "$survived generated mutant(s) survived unexplained (above)" \
	    "add the test that kills each, or list it in tests/mutants/equivalent.tsv with the reason"
