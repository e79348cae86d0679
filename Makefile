# ctxbench: `make run` and `make test` are the two commands a user needs.
# Both install what is missing (Debian/Ubuntu, root or sudo), build the
# engine and the Python front end, then run.
#
# Feature-specific rules (cross builds, extra tests) live in mk/*.mk; each
# may add Debian packages to APT_PKGS, targets to TEST_PREREQS, compiler
# defines to EXTRA_DEFS and libraries to EXTRA_LIBS (native build).

SHELL := /bin/bash
ROOT := $(abspath .)
BUILD := $(ROOT)/build
VENV := $(ROOT)/.venv
PY ?= python3
VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' pyproject.toml)

CC ?= cc
CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra -Wno-unused-parameter -fno-omit-frame-pointer -D_GNU_SOURCE

# Engine sources: every .c in engine/src, plus the assembly of the target
# architecture (engine/arch/<arch>/*.S). main.c only goes into the binary,
# the rest also into the unit tests (engine/tests/test_*.c).
ENGINE_SRC := $(sort $(wildcard engine/src/*.c))
ENGINE_LIB_SRC := $(filter-out engine/src/main.c,$(ENGINE_SRC))
ENGINE_HDR := $(wildcard engine/src/*.h)
ARCH_NATIVE := $(shell uname -m)
ENGINE_ASM_NATIVE := $(sort $(wildcard engine/arch/$(ARCH_NATIVE)/*.S))

# Native build: hwloc when pkg-config finds it.
APT_PKGS := build-essential pkg-config libhwloc-dev hwloc zlib1g-dev libssl-dev python3-venv python3-dev
TEST_PREREQS :=
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

.PHONY: all deps engine unit-tests venv run test clean

all: engine venv

# ---- dependencies ---------------------------------------------------------
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEPS_STAMP := $(BUILD)/.deps-$(shell echo $(sort $(APT_PKGS)) | md5sum | cut -c1-12)

deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	@missing=$$(for p in $(APT_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@mkdir -p $(BUILD) && touch $@

# ---- engine -----------------------------------------------------------------
engine: $(ENGINE)
$(OBJ)/%.o: engine/src/%.c $(ENGINE_HDR) Makefile | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(NATIVE_DEFS) -Iengine/src -c -o $@ $<
$(OBJ)/arch_%.o: engine/arch/$(ARCH_NATIVE)/%.S Makefile | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Iengine/src -c -o $@ $<
$(ENGINE): $(LIB_OBJS) $(OBJ)/main.o
	$(CC) $(CFLAGS) -o $@ $^ $(NATIVE_LIBS)

# Unit tests: one binary per engine/tests/test_*.c, linked with the engine.
unit-tests: $(UNIT_TESTS)
$(BUILD)/native/tests/%: engine/tests/%.c $(LIB_OBJS) $(wildcard engine/tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(NATIVE_DEFS) -Iengine/src -Iengine/tests -o $@ $< $(LIB_OBJS) $(NATIVE_LIBS)

# ---- python front end -----------------------------------------------------
venv: $(VENV)/.ok
$(VENV)/.ok: pyproject.toml | $(DEPS_STAMP)
	@[ -x $(VENV)/bin/python ] || $(PY) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@
$(VENV)/bin/ctxbench-engine: $(ENGINE) $(VENV)/.ok
	ln -sf $(ENGINE) $@

# ---- the two commands -------------------------------------------------------
run: $(ENGINE) $(VENV)/bin/ctxbench-engine
	@mkdir -p results
	$(VENV)/bin/ctxbench run -o results/run-$$(date +%Y%m%d-%H%M%S).json

test: $(ENGINE) $(VENV)/bin/ctxbench-engine unit-tests $(TEST_PREREQS)
	$(VENV)/bin/python -m pytest -q tests

clean:
	rm -rf $(BUILD) $(VENV)
