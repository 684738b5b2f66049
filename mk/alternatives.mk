# SPDX-License-Identifier: GPL-2.0
# The first design, kept as a tested alternative: a global
# /proc/sys/kernel/cap_inheritable mask (alternatives/sysctl-cap-inheritable/,
# scripts/alternatives.sh); included by the top-level Makefile.
#
#   alternatives   apply the series on pre-ambient, build that kernel, boot
#                  it: its kselftest and the comparison scenario; the same scenario
#                  on the ambient kernel; writes the table into docs/design.md
#                  (make check runs it with --check)

ALT_TOP := $(if $(TOP),$(TOP),.)

.PHONY: alternatives

alternatives: tree
	@$(ALT_TOP)/scripts/alternatives.sh
