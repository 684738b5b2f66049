# SPDX-License-Identifier: GPL-2.0
# The single entry point of the package: `make help` lists the targets.

TOP := $(CURDIR)
KERNEL ?= ambient
export TOP KERNEL

SCRIPTS := $(TOP)/scripts

.PHONY: help deps tree kernel kernels payload kselftest check clean

help:
	@echo 'Targets (KERNEL=stock|pre-ambient|ambient, default ambient):'
	@echo '  deps        install the Debian packages needed (root; prints the command otherwise)'
	@echo '  tree        lay out build/src/{stock,pre-ambient,ambient} (base/ and series/ applied)'
	@echo '  kernel      build the bzImage of $$KERNEL'
	@echo '  kernels     build all three kernels'
	@echo '  payload     build the test initramfs (selftests, busybox, setpriv, capsh)'
	@echo '  kselftest   build what is stale, boot $$KERNEL in QEMU, run the capabilities kselftests'
	@echo '  check       everything the package verifies; ends with "check: N passed, N failed"'
	@echo '  clean       remove build/ (refuses while build/src/ambient has unexported commits)'
	@echo 'Variables: KIMAGE=bzImage to boot another kernel, SELFTESTS_OVERLAY=dir to try a'
	@echo '  working copy of the suite, VM_TIMEOUT=s, ACCEL=kvm|tcg to skip the KVM probe.'

deps:
	@$(SCRIPTS)/deps.sh

tree: deps
	@$(SCRIPTS)/tree.sh

kernel: tree
	@$(SCRIPTS)/kernel.sh $(KERNEL)

kernels: tree
	@for k in stock pre-ambient ambient; do $(SCRIPTS)/kernel.sh $$k || exit 1; done

payload: tree
	@$(SCRIPTS)/payload.sh

kselftest: tree
	@$(SCRIPTS)/kselftest.sh $(KERNEL)

check: tree
	@$(SCRIPTS)/check.sh

clean:
	@$(SCRIPTS)/clean.sh
