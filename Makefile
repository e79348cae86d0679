# ctxbench: `make run` and `make test` are the two commands a user needs.
# Both install what is missing (Debian/Ubuntu, root or sudo), build the
# engine and the Python front end, then run.
#
# Feature-specific rules (cross builds, extra tests) live in mk/*.mk; each
# may add Debian packages to RUN_PKGS (needed to build and run) or
# TEST_PKGS (needed only by tests or by an optional target), targets to
# TEST_PREREQS, stamps of their own package installs to TEST_PKG_STAMPS,
# compiler defines to EXTRA_DEFS and libraries to EXTRA_LIBS.

SHELL := /bin/bash
ROOT := $(abspath .)
BUILD := $(ROOT)/build
VENV := $(ROOT)/.venv
PY ?= python3
VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' pyproject.toml)

CC ?= cc
CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra -Wno-unused-parameter -fno-omit-frame-pointer -D_GNU_SOURCE
# header dependencies tracked by the compiler (.d files beside the objects)
DEPFLAGS := -MMD -MP

# Engine sources: every .c in the folders of engine/src (one per layer or
# benchmark family: docs/ARCHITECTURE.md), plus the assembly of the target
# architecture (engine/arch/<arch>/*.S). The command line (cli/) only goes
# into the binary, the rest also into the unit tests (engine/tests/test_*.c).
# Includes name their folder: #include "core/bench.h".
ENGINE_SRC := $(sort $(wildcard engine/src/*/*.c))
ENGINE_CLI_SRC := $(filter engine/src/cli/%,$(ENGINE_SRC))
ENGINE_LIB_SRC := $(filter-out engine/src/cli/%,$(ENGINE_SRC))
ARCH_NATIVE := $(shell uname -m)
ENGINE_ASM_NATIVE := $(sort $(wildcard engine/arch/$(ARCH_NATIVE)/*.S))

# What building and running needs (hwloc is used when pkg-config finds it).
RUN_PKGS := build-essential pkg-config libhwloc-dev hwloc zlib1g-dev libssl-dev python3-venv python3-dev
# What only the tests or optional targets need: mk/*.mk add to it.
TEST_PKGS := clang-format
TEST_PREREQS :=
TEST_PKG_STAMPS :=
-include $(sort $(wildcard mk/*.mk))

HAVE_HWLOC = $(shell pkg-config --exists hwloc 2>/dev/null && echo 1)
NATIVE_DEFS = -DCTXBENCH_VERSION='"$(VERSION)"' -DCTXBENCH_STATIC=0 -DCTXBENCH_CFLAGS='"$(CFLAGS)"' $(EXTRA_DEFS) \
              $(if $(HAVE_HWLOC),-DHAVE_HWLOC $(shell pkg-config --cflags hwloc))
NATIVE_LIBS = -lpthread -lm $(EXTRA_LIBS) $(if $(HAVE_HWLOC),$(shell pkg-config --libs hwloc))

OBJ := $(BUILD)/native/obj
ENGINE := $(BUILD)/native/ctxbench-engine
LIB_OBJS = $(patsubst engine/src/%.c,$(OBJ)/%.o,$(ENGINE_LIB_SRC)) \
           $(patsubst engine/arch/$(ARCH_NATIVE)/%.S,$(OBJ)/arch_%.o,$(ENGINE_ASM_NATIVE))
UNIT_TESTS = $(patsubst engine/tests/%.c,$(BUILD)/native/tests/%,$(sort $(wildcard engine/tests/test_*.c)))

.PHONY: all deps test-deps engine unit-tests venv test-venv run test check record-engine bench lint clean

all: engine venv

# ---- dependencies ---------------------------------------------------------
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEPS_STAMP := $(BUILD)/.deps-$(shell echo $(sort $(RUN_PKGS)) | md5sum | cut -c1-12)
TEST_DEPS_STAMP := $(BUILD)/.test-deps-$(shell echo $(sort $(TEST_PKGS)) | md5sum | cut -c1-12)

# $(1): the packages; installs only those missing
define APT_INSTALL
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@mkdir -p $(BUILD) && touch $@
endef

deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	$(call APT_INSTALL,$(RUN_PKGS))
test-deps: $(TEST_DEPS_STAMP)
$(TEST_DEPS_STAMP): | $(DEPS_STAMP)
	$(call APT_INSTALL,$(TEST_PKGS))

# ---- engine -----------------------------------------------------------------
engine: $(ENGINE)
$(OBJ)/%.o: engine/src/%.c Makefile | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(NATIVE_DEFS) -Iengine/src -c -o $@ $<
$(OBJ)/arch_%.o: engine/arch/$(ARCH_NATIVE)/%.S Makefile | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Iengine/src -c -o $@ $<
CLI_OBJS = $(patsubst engine/src/%.c,$(OBJ)/%.o,$(ENGINE_CLI_SRC))
$(ENGINE): $(LIB_OBJS) $(CLI_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(NATIVE_LIBS)
-include $(wildcard $(OBJ)/*/*.d)

# Unit tests: one binary per engine/tests/test_*.c, linked with the engine.
unit-tests: $(UNIT_TESTS)
$(BUILD)/native/tests/%: engine/tests/%.c $(LIB_OBJS) $(wildcard engine/tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(NATIVE_DEFS) -Iengine/src -Iengine/tests -o $@ $< $(LIB_OBJS) $(NATIVE_LIBS)

# ---- python front end -----------------------------------------------------
venv: $(VENV)/.ok
# `make run` installs what running needs; the test extras come with `make test`.
# signal-processing-algorithms (E-divisive means for `ctxbench history`) declares numpy<2 and
# gevent, which its change-point code does not use: installed with them, pip would put the whole
# project on numpy 1.26. It runs on numpy 2 (tests/test_history.py), so it is installed alone, and
# what it imports (more-itertools, structlog) is in pyproject.toml. It builds a C extension.
SPA := signal-processing-algorithms==2.1.6
# one pip at a time in the virtualenv: `make test` builds in parallel, and the test and runtimes
# extras would otherwise be installed by two pips at once
# --no-compile: pip byte-compiles every file it installs (ansible-core alone has thousands), which
# was half of the virtualenv's 30 s here; Python compiles what is imported, when it is first imported.
PIP = flock $(VENV)/.pip-lock $(VENV)/bin/python -m pip
PIP_INSTALL = $(PIP) install -q --disable-pip-version-check --no-compile
$(VENV)/.ok: pyproject.toml | $(DEPS_STAMP)
	@[ -x $(VENV)/bin/python ] || $(PY) -m venv $(VENV)
	$(PIP_INSTALL) -e .
	$(PIP_INSTALL) --no-deps '$(SPA)'
	@touch $@
test-venv: $(VENV)/.test-ok
$(VENV)/.test-ok: $(VENV)/.ok pyproject.toml
	$(PIP_INSTALL) -e '.[test]'
	@# the bytecode of what a ctxbench process imports, once (tools/compile_imports.py says why)
	@$(VENV)/bin/python tools/compile_imports.py
	@touch $@
$(VENV)/bin/ctxbench-engine: $(ENGINE) $(VENV)/.ok
	ln -sf $(ENGINE) $@

# ---- the two commands -------------------------------------------------------
run: $(ENGINE) $(VENV)/bin/ctxbench-engine $(RUN_PREREQS)
	@mkdir -p results
	$(VENV)/bin/ctxbench run -o results/run-$$(date +%Y%m%d-%H%M%S).json

# Everything: the test-only packages (cross toolchains, qemu-user, chromium,
# Boost.Context) are installed first. After the linters, the tests that
# judge no measured number run FLOW_JOBS at a time (pytest-xdist): the unmarked
# ones and the `flow` ones, which run the engine but check only statuses,
# files and processes. Then the other `machine` tests one at a time: a
# measurement beside another would be disturbed by it. Both steps run, and
# either failing fails the target.
#
# What the tests need is made in two steps: the Debian packages (one
# apt-get at a time: TEST_PKG_STAMPS), then the rest TEST_JOBS at a time
# (pip waits on the network while the compilers run; the cross engines,
# the harnesses and the virtualenv do not wait for each other).
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# The first step's processes: one per CPU (3 on 2 vCPUs took 321 s of a fresh clone where 2 took 278 s).
FLOW_JOBS ?= $(TEST_JOBS)
TEST_PKG_STAMPS := $(DEPS_STAMP) $(TEST_DEPS_STAMP) $(TEST_PKG_STAMPS)
.PHONY: test-ready
test-ready: $(ENGINE) $(VENV)/bin/ctxbench-engine $(VENV)/.test-ok unit-tests $(TEST_PREREQS) lint
test:
	@$(MAKE) --no-print-directory $(TEST_PKG_STAMPS)
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target test-ready
	@status=0; \
	$(VENV)/bin/python -m pytest -q -n $(FLOW_JOBS) --dist loadfile -m "not machine or flow" tests || status=1; \
	$(VENV)/bin/python -m pytest -q -m "machine and not flow" tests || status=1; \
	exit $$status

# Everyday: the unmarked tests, in CHECK_JOBS processes (pytest-xdist): no
# engine and no runtime harness starts (the engine's answers are replayed
# from tests/fixtures/engine/recordings; docs/testing.md), no cross builds,
# no browser, no `slow` test: under a minute on 2 vCPUs. It needs no engine built.
CHECK_JOBS ?= 2
check: $(VENV)/.test-ok lint
	$(VENV)/bin/python -m pytest -q -n $(CHECK_JOBS) -m "not machine and not cross and not browser and not slow" tests

# Record again what the real engine answers to every engine command of the
# unmarked tests (tools/record_engine.py), after the engine's output or a
# test's engine command changed. It measures: a quiet machine.
record-engine: $(ENGINE) $(VENV)/.test-ok
	$(VENV)/bin/python tools/record_engine.py

# Comparisons of two measured numbers (bench/): a report of this machine,
# not a verdict on the code, so neither `test` nor `check` runs them.
bench: $(ENGINE) $(VENV)/bin/ctxbench-engine $(VENV)/.test-ok
	$(VENV)/bin/python -m pytest -q -s bench

# ruff (pyproject.toml) and clang-format (.clang-format); clang-format is
# skipped with a note where it is not installed (make test installs it).
C_FORMATTED = $(wildcard engine/src/*/*.c engine/src/*/*.h engine/tests/*.c engine/tests/*.h engine/bench/*.cpp)
lint: $(VENV)/.test-ok
	$(VENV)/bin/ruff check src tests bench tools ansible
	@if command -v clang-format >/dev/null; then clang-format --dry-run -Werror $(C_FORMATTED) && echo "clang-format: ok"; \
	else echo "clang-format not installed: C formatting not checked"; fi

clean:
	rm -rf $(BUILD) $(VENV)
