# SPDX-License-Identifier: GPL-2.0
# Mutation testing of the capabilities kselftests; included by the
# top-level Makefile. Each tests/mutants/NAME.patch is one plausible bug in
# the series; scripts/mutants.sh builds and boots each and reports whether
# the suite kills it.
#
#   mutants         every mutant (MUTANTS="NAME..." selects some)
#   mutants-smoke   the third of them that make check plants
#   kunit-mutants   the mutants in functions the KUnit cases call, against
#                   the KUnit cases alone (scripts/kunit-mutants.sh)
#   mutants-generated  mutants made from the code by scripts/mutants-generate.py
#                   (SAMPLE=N [SEED=S]: a fixed sample; MUTANTS=ID... some)

MUTANTS_TOP := $(if $(TOP),$(TOP),.)
MUTANTS ?=

.PHONY: mutants mutants-smoke kunit-mutants mutants-generated
SAMPLE ?=
SEED ?=

mutants: tree
	@$(MUTANTS_TOP)/scripts/mutants.sh $(MUTANTS)

mutants-smoke: tree
	@$(MUTANTS_TOP)/scripts/mutants.sh --check

kunit-mutants: tree
	@$(MUTANTS_TOP)/scripts/kunit-mutants.sh $(MUTANTS)

mutants-generated: tree
	@MUTANTS="$(MUTANTS)" $(MUTANTS_TOP)/scripts/mutants-generated.sh "$(SAMPLE)" "$(SEED)"
