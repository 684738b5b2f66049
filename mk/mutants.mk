# SPDX-License-Identifier: GPL-2.0
# Mutation testing of the capabilities kselftests; included by the
# top-level Makefile. Each tests/mutants/NAME.patch is one plausible bug in
# the series; scripts/mutants.sh builds and boots each and reports whether
# the suite kills it.
#
#   mutants         every mutant (MUTANTS="NAME..." selects some)
#   mutants-smoke   a fixed pair, for make check

MUTANTS_TOP := $(if $(TOP),$(TOP),.)
MUTANTS ?=
MUTANTS_SMOKE := setuid-exec-keeps-ambient raise-ignores-inheritable

.PHONY: mutants mutants-smoke

mutants: tree
	@$(MUTANTS_TOP)/scripts/mutants.sh $(MUTANTS)

mutants-smoke: tree
	@$(MUTANTS_TOP)/scripts/mutants.sh $(MUTANTS_SMOKE)
