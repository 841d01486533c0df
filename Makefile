# SPDX-License-Identifier: GPL-2.0
#
# nvmeof-rdma top-level Makefile.
#
#   make                build nvme-rdma.ko and nvmet-rdma.ko for KVER
#   make check          the fast tier of the tests (what CI runs)
#   make check-full     every test on every kernel, device and pairing
#   make demo           boot a guest and run verified I/O through our modules
#   make install        install into /lib/modules/KVER/updates (as DKMS does)
#   make dkms-install   register, build and install with DKMS
#
# KVER  kernel release to build for (default: running kernel if it has
#       headers, else the newest installed Debian kernel with headers)
# KDIR  kernel build directory (default /lib/modules/KVER/build)
# KSRC  kernel source tree for the private nvme headers (default: Debian's
#       linux-source-X.Y tarball, extracted into the cache)

SHELL := /bin/bash
ROOT := $(CURDIR)

ifeq ($(NVMEOF_NO_DEPS),)
DEPS_OK := $(shell $(ROOT)/scripts/install-deps.sh >&2 && echo ok)
ifneq ($(DEPS_OK),ok)
$(error dependency installation failed)
endif
endif

KVER ?= $(shell $(ROOT)/scripts/kver.sh)
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= $(ROOT)/build/$(KVER)
PKG_VERSION := $(shell cat $(ROOT)/VERSION)
NVMEOF_VERSION ?= $(shell $(ROOT)/scripts/version.sh)

# W=1 and sparse are on by default: the tree builds clean with both.
W ?= 1
C ?= 1
KBUILD_ARGS = -C $(KDIR) M=$(BUILD) W=$(W) C=$(C) \
	NVMEOF_PRIV=$(BUILD)/nvme-private NVMEOF_GEN=$(BUILD)/generated \
	NVMEOF_VERSION=$(NVMEOF_VERSION)

SOURCES := Kbuild $(wildcard host/* target/* common/* compat/*.h kunit/*)

.PHONY: all modules prepare install uninstall dkms-install dkms-remove \
	kunit-modules check check-full faults demo bench bench-insn bench-scale clean style deb

all: modules

# A Debian 13 kernel (its release says +deb13-) whose headers this machine
# lacks is built in the Debian 13 root, with the compiler Debian built it
# with (scripts/debian13-root.sh, made on first use); on a Debian 13
# machine, with its headers installed, here as any other.
ifeq ($(NVMEOF_IN_ROOT)$(if $(findstring +deb13-,$(KVER)),,no)$(wildcard $(KDIR)/Makefile),)
modules kunit-modules:
	$(ROOT)/scripts/debian13-root.sh run make -C $(ROOT) -j$(shell nproc) \
		NVMEOF_NO_DEPS=1 NVMEOF_IN_ROOT=1 KVER=$(KVER) W=$(W) C=$(C) \
		NVMEOF_VERSION=$(NVMEOF_VERSION) $@
else
# Sources are copied into build/KVER so several kernels can be built side by
# side (M= builds in place); the private headers and compat config land there.
# conftest.sh's probes build in a make of their own: '+' hands it make's
# jobs (-jN), as to a recursive make.
prepare:
	@mkdir -p $(BUILD)/generated
	@rsync -a --delete --exclude nvme-private --exclude generated \
		--exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' --exclude '*.mod*' \
		$(wildcard $(addprefix $(ROOT)/,Kbuild host target common compat kunit)) \
		$(BUILD)/
	@$(ROOT)/scripts/nvme-private-headers.sh $(KDIR) $(BUILD)/nvme-private $(KSRC)
	+@$(ROOT)/compat/conftest.sh $(KDIR) $(BUILD)/nvme-private $(BUILD)/generated/compat-config.h

# The layout guard compares the private structs as our modules were built
# with them against the kernel's own BTF: a mismatched source is refused.
modules: prepare
	$(MAKE) $(KBUILD_ARGS) modules
	@$(ROOT)/scripts/layout-guard.sh $(KVER) $(KDIR) $(BUILD)/host/nvme-rdma.ko \
		$(BUILD)/target/nvmet-rdma.ko || \
		{ rm -f $(BUILD)/host/nvme-rdma.ko $(BUILD)/target/nvmet-rdma.ko; exit 1; }
	@echo "$(NVMEOF_VERSION)" > $(BUILD)/version
	@echo "built for $(KVER): $(BUILD)/host/nvme-rdma.ko $(BUILD)/target/nvmet-rdma.ko"

kunit-modules: prepare
	$(MAKE) $(KBUILD_ARGS) NVMEOF_KUNIT=1 modules
	@echo "$(NVMEOF_VERSION)" > $(BUILD)/version
endif

install: modules
	install -D -m 644 $(BUILD)/host/nvme-rdma.ko $(DESTDIR)/lib/modules/$(KVER)/updates/nvme-rdma.ko
	install -D -m 644 $(BUILD)/target/nvmet-rdma.ko $(DESTDIR)/lib/modules/$(KVER)/updates/nvmet-rdma.ko
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)

uninstall:
	rm -f /lib/modules/$(KVER)/updates/nvme-rdma.ko /lib/modules/$(KVER)/updates/nvmet-rdma.ko
	depmod -a $(KVER)

dkms-install:
	$(ROOT)/scripts/dkms.sh install $(KVER)

dkms-remove:
	$(ROOT)/scripts/dkms.sh remove $(KVER)

# the Debian package: sources for DKMS, installed with apt-get install ./FILE
deb:
	@$(ROOT)/scripts/deb.sh

# the fast tier: each hazard once (Documentation/testing.md, "Tiers")
check:
	@$(ROOT)/tests/run -T fast

check-full:
	@$(ROOT)/tests/run -T full

# the fault scenarios alone (tests/faults/: two guests on a wire), in all
# their pairings on Debian 12's kernels and the debug kernel, and the
# mixed-kernel pairs (the oldest kernel against each other one, Debian 13's
# newest too); make check-full runs each in its full-pairs on every
# kernel, make check in its fast= pairs
FAULTS := $(subst $(eval) ,|,$(sort $(basename $(notdir $(wildcard $(ROOT)/tests/faults/*.sh)))))
faults:
	@RIG_FAULTS=all $(ROOT)/tests/run -k "deb12 debug trixie-newest" -t '^($(FAULTS))$$'

demo:
	@$(ROOT)/scripts/demo.sh

bench:
	@$(ROOT)/scripts/bench.sh

# connect and reset by queue count, many hosts' memory and storm, ours
# against stock (real time, two guests on a wire; Documentation/benchmark.md)
bench-scale:
	@$(ROOT)/scripts/bench-scale.sh

# exact instructions per I/O by function (Documentation/benchmark.md)
bench-insn:
	@BENCH_INSN=$${BENCH_INSN:-randread-4k-qd1} \
		BENCH_RUNS=$${BENCH_RUNS:-"stock/stock ours/ours"} $(ROOT)/scripts/bench.sh

style:
	$(ROOT)/scripts/style.sh

clean:
	rm -rf $(ROOT)/build
