# User-level switches (issue 3): the aarch64 and armv7 switch files and
# their tests, cross-compiled statically and run under qemu-user by
# tests/test_user_cross.py; and the Boost.Context fiber helper for
# `ctxbench userbench` (built only when Boost.Context is installed).

# libboost-context-dev: Boost.Context's fiber, measured side by side with
# the assembly switch by `ctxbench userbench` (the issue's performance target).
TEST_PKGS += gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf qemu-user g++ libboost-context-dev

USER_CROSS := $(BUILD)/cross-user
USER_CROSS_TESTS := test_user_regs test_user_volume test_user_green
USER_CROSS_SRC := engine/src/user/uctx.c engine/src/user/green.c engine/src/user/green_sync.c engine/src/core/placement.c
USER_CROSS_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -static \
                     -Iengine/src -Iengine/tests
USER_CROSS_HDR := engine/src/user/uctx.h engine/src/user/green.h engine/src/user/green_internal.h engine/src/core/placement.h \
                  engine/tests/check.h engine/tests/user_probe.h

# aarch64 with branch protection, so the BTI landing pads are assembled in.
$(USER_CROSS)/aarch64/%: engine/tests/%.c $(USER_CROSS_SRC) engine/arch/aarch64/switch_aapcs64.S $(USER_CROSS_HDR) | $(TEST_DEPS_STAMP)
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc $(USER_CROSS_CFLAGS) -mbranch-protection=standard -o $@ $< $(USER_CROSS_SRC) engine/arch/aarch64/switch_aapcs64.S

$(USER_CROSS)/armv7/%: engine/tests/%.c $(USER_CROSS_SRC) engine/arch/armv7/switch_aapcs_vfp.S $(USER_CROSS_HDR) | $(TEST_DEPS_STAMP)
	@mkdir -p $(dir $@)
	arm-linux-gnueabihf-gcc $(USER_CROSS_CFLAGS) -o $@ $< $(USER_CROSS_SRC) engine/arch/armv7/switch_aapcs_vfp.S

.PHONY: user-cross-tests
user-cross-tests: $(foreach a,aarch64 armv7,$(addprefix $(USER_CROSS)/$(a)/,$(USER_CROSS_TESTS)))

# Boost.Context fiber, for the side-by-side comparison (not a test).
BOOST_FIBER := $(BUILD)/native/ctxbench-boost-fiber
.PHONY: boost-fiber
boost-fiber: | $(TEST_DEPS_STAMP)
	@if [ -f /usr/include/boost/context/fiber.hpp ] && [ -f "$$($(CXX) -print-file-name=libboost_context.so)" ]; then \
	  $(MAKE) --no-print-directory $(BOOST_FIBER); \
	else echo "Boost.Context not installed (libboost-context-dev): userbench will skip it"; fi
$(BOOST_FIBER): engine/bench/boost_fiber.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -o $@ $< -lboost_context

TEST_PREREQS += user-cross-tests boost-fiber
