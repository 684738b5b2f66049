# SPDX-License-Identifier: GPL-2.0
# Randomized differential test of the capability sets against the
# reference model; included by the top-level Makefile.
#
#   difftest        DIFFTEST_OPS operations (default 100000) on KERNEL, or
#                   on stock then ambient when KERNEL is not given
#   difftest-smoke  the same with DIFFTEST_SMOKE_OPS (default 20000)
#
# SEED=N re-runs a seed (scripts/difftest.sh prints the one it used).

DIFFTEST_TOP := $(if $(TOP),$(TOP),.)
DIFFTEST_OPS ?= 100000
DIFFTEST_SMOKE_OPS ?= 20000
DIFFTEST_KERNELS := $(if $(filter file undefined,$(origin KERNEL)),stock ambient,$(KERNEL))

.PHONY: difftest difftest-smoke

difftest: tree
	@for k in $(DIFFTEST_KERNELS); do \
		$(DIFFTEST_TOP)/scripts/difftest.sh $$k $(DIFFTEST_OPS) || exit 1; \
	done

difftest-smoke: tree
	@for k in $(DIFFTEST_KERNELS); do \
		$(DIFFTEST_TOP)/scripts/difftest.sh $$k $(DIFFTEST_SMOKE_OPS) || exit 1; \
	done
