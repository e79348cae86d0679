# ctxbench: `make run` and `make test` are the two commands a user needs.
# Both install what is missing (Debian/Ubuntu, root or sudo), build the
# engine and the Python front end, then run.

SHELL := /bin/bash
ROOT := $(abspath .)
BUILD := $(ROOT)/build
VENV := $(ROOT)/.venv
PY ?= python3
VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' pyproject.toml)

CC ?= cc
CFLAGS_BASE := -std=c11 -O2 -g -Wall -Wextra -Wno-unused-parameter -fno-omit-frame-pointer -D_GNU_SOURCE
CFLAGS ?= $(CFLAGS_BASE)
ENGINE_SRC := $(sort $(wildcard engine/src/*.c))
ENGINE_HDR := $(wildcard engine/src/*.h)

# Native build: hwloc, zlib, libcrypto when present (pkg-config decides).
HAVE_HWLOC := $(shell pkg-config --exists hwloc 2>/dev/null && echo 1)
NATIVE_DEFS := -DCTXBENCH_VERSION='"$(VERSION)"' -DCTXBENCH_STATIC=0
NATIVE_LIBS := -lpthread -lm
ifeq ($(HAVE_HWLOC),1)
NATIVE_DEFS += -DHAVE_HWLOC $(shell pkg-config --cflags hwloc)
NATIVE_LIBS += $(shell pkg-config --libs hwloc)
endif
ARCH_NATIVE := $(shell uname -m)
ENGINE_ASM_NATIVE := $(sort $(wildcard engine/arch/$(ARCH_NATIVE)/*.S))

ENGINE := $(BUILD)/native/ctxbench-engine

.PHONY: all deps engine venv run run-quick test test-engine clean

all: engine venv

# ---- dependencies ---------------------------------------------------------
# Debian packages the build and the tests need; installed only if missing.
APT_PKGS := build-essential pkg-config libhwloc-dev hwloc zlib1g-dev libssl-dev python3-venv python3-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

deps: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok: Makefile
	@missing=$$(for p in $(APT_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@mkdir -p $(BUILD) && touch $@

# ---- engine -----------------------------------------------------------------
engine: $(ENGINE)
$(ENGINE): deps $(ENGINE_SRC) $(ENGINE_HDR) $(ENGINE_ASM_NATIVE) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(NATIVE_DEFS) -DCTXBENCH_CFLAGS='"$(CFLAGS)"' -Iengine/src -o $@ $(ENGINE_SRC) $(ENGINE_ASM_NATIVE) $(NATIVE_LIBS)

# ---- python front end -----------------------------------------------------
venv: $(VENV)/.ok
$(VENV)/.ok: deps pyproject.toml $(ENGINE)
	@[ -x $(VENV)/bin/python ] || $(PY) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
	ln -sf $(ENGINE) $(VENV)/bin/ctxbench-engine
	@touch $@

# ---- the two commands -------------------------------------------------------
run: engine venv
	@mkdir -p results
	$(VENV)/bin/ctxbench run -o results/run-$$(date +%Y%m%d-%H%M%S).json

test: engine venv
	$(VENV)/bin/python -m pytest -q tests

clean:
	rm -rf $(BUILD) $(VENV)
