# SPDX-License-Identifier: GPL-2.0
# Benchmarks of the three kernels (scripts/bench.sh); included by the
# top-level Makefile.
#
#   bench        3 rounds of stock, pre-ambient and ambient, alternating:
#                build/bench/{table.txt,results.json,bench.png}
#   bench-smoke  one short round that proves the benchmark runs (build/bench/smoke)

BENCH_TOP := $(if $(TOP),$(TOP),.)

.PHONY: bench bench-smoke

bench: tree
	@$(BENCH_TOP)/scripts/bench.sh

bench-smoke: tree
	@SMOKE=1 $(BENCH_TOP)/scripts/bench.sh
