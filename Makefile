# SPDX-License-Identifier: GPL-2.0
# The single entry point of the package: `make help` lists the targets.

TOP := $(CURDIR)
KERNEL ?= ambient
export TOP KERNEL

SCRIPTS := $(TOP)/scripts

.PHONY: help deps tree kernel kernels payload kselftest check check-full clean-room clean \
	series series-check checkpatch sparse bisect standalone send range-diff trailers \
	upstream-series upstream-check kunit conformance

include $(wildcard $(TOP)/mk/*.mk)

help:
	@echo 'Targets (KERNEL=stock|pre-ambient|ambient|upstream, default ambient):'
	@echo '  deps        install the Debian packages needed (root; prints the command otherwise)'
	@echo '              and fetch the kernel source into build/debian (docs/setup.md)'
	@echo '  tree        lay out build/src/{stock,pre-ambient,ambient} (base/ and series/ applied)'
	@echo '              and build/src/upstream (Linux 7.2 + upstream/kselftest-docs/)'
	@echo '  kernel      build the bzImage of $$KERNEL'
	@echo '  kernels     build all three kernels'
	@echo '  payload     build the test initramfs (selftests, busybox, setpriv, capsh)'
	@echo '  kselftest   build what is stale, boot $$KERNEL in QEMU, run the capabilities kselftests'
	@echo '              (KCONFIG=debug: the UBSAN/KASAN/lockdep build of $$KERNEL)'
	@echo '  check       what CI runs; ends with "check: N passed, N failed"'
	@echo '  check-full  check, plus the debug kernel (UBSAN/KASAN/lockdep), tinyconfig, allnoconfig'
	@echo '              and kunit.py builds'
	@echo '  clean-room  make kselftest in a fresh minimal Debian root, as a new user would (FULL=1:'
	@echo '              make check too); prints the time of each phase'
	@echo '  series      export the ambient branch to series/, refresh selftests/ and Documentation/,'
	@echo '              and the standalone series upstream/kselftest-docs/ (make upstream-series)'
	@echo '  checkpatch  checkpatch.pl --strict on every patch of series/'
	@echo '  sparse      sparse (C=2) and W=1 on the touched objects: nothing new against pre-ambient'
	@echo '  bisect      build every commit of the ambient branch on its own'
	@echo '  standalone  apply the selftest, documentation and MAINTAINERS patches to stock'
	@echo '  send        b4 send the current revision as AUTHOR="Name <email>" (b4 asks first, then'
	@echo '              bumps the version; commit b4/ after); REFLECT=1: to yourself only;'
	@echo '              OUT=dir: write the messages, send nothing; SERIES=upstream: the standalone series'
	@echo '  range-diff  the range-diff of the series against its last sent revision'
	@echo '  trailers    MBOX=thread.mbox: apply the Reviewed-by/Acked-by/Tested-by of replies, export series/'
	@echo '  upstream-series  carry the selftest and documentation commits over to Linux 7.2,'
	@echo '              export them to upstream/kselftest-docs/'
	@echo '  upstream-check   the standalone series through the checkpatch, selftests build,'
	@echo '              htmldocs and get_maintainer.pl of Linux 7.2'
	@echo '  kunit       the KUnit tests of security/commoncap.c (series/ patch 6; kunit/ on 7.2) on'
	@echo '              KERNEL=ambient|upstream|stock, through tools/testing/kunit/kunit.py in QEMU'
	@echo '              under TCG (default KERNEL=ambient); prints every case and row'
	@echo '  kunit-mutants   the mutants in functions the KUnit cases call, against the cases alone'
	@echo '  man-tree, man, man-check, man-series   the man-pages patches (see man-pages/README.md)'
	@echo '  difftest    model-based differential test, 100000 random operations (SEED=n to replay)'
	@echo '  bench       the exec and capability-call paths counted in guest instructions on the three'
	@echo '              6.12 kernels and a layout control: build/bench/{table.txt,results.json,bench.png}'
	@echo '  conformance the suite under another runtime, each test beside stock (RUNTIME=gvisor: Debian'"'"'s'
	@echo '              runsc builds; RUNTIME=qemu KERNEL=...; RUNTIME="CMD ...": a command prefix):'
	@echo '              build/conformance/table-RUNTIME.md, docs/conformance.md'
	@echo '  mutants     plant each bug of tests/mutants/ in turn; the suite must kill every one'
	@echo '  mutants-generated  the same with mutants made from the code (SAMPLE=N: a fixed sample);'
	@echo '              every survivor is killed or listed in tests/mutants/equivalent.tsv'
	@echo '  bench-smoke, difftest-smoke, mutants-smoke   short runs that prove the tools work'
	@echo '  alternatives  the rejected global-mask design: build, boot, compare with ambient;'
	@echo '              writes the table into docs/design.md'
	@echo '  clean       remove build/ (refuses while build/src/ambient has unexported commits)'
	@echo 'Variables: KIMAGE=bzImage to boot another kernel (KVMLINUX=its vmlinux, when not beside it:'
	@echo '  every boot checks the build ID), SELFTESTS_OVERLAY=dir to try a working copy of the'
	@echo '  suite, VM_TIMEOUT=s, ACCEL=kvm|tcg to skip the KVM probe.'

deps:
	@$(SCRIPTS)/deps.sh

tree: deps
	@$(SCRIPTS)/tree.sh && $(SCRIPTS)/upstream-tree.sh

kernel: tree
	@$(SCRIPTS)/kernel.sh $(KERNEL)

kernels: tree
	@for k in stock pre-ambient ambient; do $(SCRIPTS)/kernel.sh $$k || exit 1; done

payload: tree
	@$(SCRIPTS)/payload.sh

kselftest: tree
	@$(SCRIPTS)/kselftest.sh $(KERNEL)

check:
	@$(SCRIPTS)/check.sh

check-full:
	@$(SCRIPTS)/check.sh --full

clean-room: deps
	@$(SCRIPTS)/clean-room.sh

series: tree
	@$(SCRIPTS)/series.sh && $(SCRIPTS)/upstream-series.sh && $(SCRIPTS)/upstream-tree.sh

series-check: tree
	@$(SCRIPTS)/series.sh --check

checkpatch: tree
	@$(SCRIPTS)/checkpatch.sh

sparse: tree
	@$(SCRIPTS)/sparse.sh

bisect: tree
	@$(SCRIPTS)/bisect.sh

standalone: tree
	@$(SCRIPTS)/standalone.sh

send: tree
	@$(SCRIPTS)/send.sh $(if $(OUT)$(DRY_RUN),&& $(SCRIPTS)/outgoing-check.sh)

range-diff: tree
	@$(SCRIPTS)/send.sh --range-diff

trailers: tree
	@$(SCRIPTS)/trailers.sh $(MBOX)

upstream-series: tree
	@$(SCRIPTS)/upstream-series.sh && $(SCRIPTS)/upstream-tree.sh

upstream-check: tree
	@$(SCRIPTS)/upstream-check.sh

kunit: tree
	@$(SCRIPTS)/kunit.sh $(KERNEL)

man-tree: deps

clean:
	@$(SCRIPTS)/clean.sh

conformance: tree
	@$(SCRIPTS)/conformance.sh "$(RUNTIME)"
