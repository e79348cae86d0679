# ARM cross builds: `make engine-aarch64` and `make engine-armv7` give static
# build/<arch>/ctxbench-engine binaries to copy to a board (no Python there).
# Sources: every engine/src/*/*.c plus engine/arch/<arch>/*.S. zlib and
# libcrypto come statically from Debian's ARM packages when they can be
# fetched (mk/arm-sysroot.sh), else they are left out and the binary's
# tool/build/libraries record says so. hwloc is left out (sysfs fallback).

TEST_PKGS += qemu-user
TEST_PREREQS += engine-aarch64 engine-armv7 arm-unit-tests
# the cross compilers alone (`make wheel` carries the ARM engines and needs no test package)
ARM_PKGS := gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
ARM_DEPS_STAMP := $(BUILD)/.arm-deps
TEST_PKG_STAMPS += $(ARM_DEPS_STAMP)
$(ARM_DEPS_STAMP):
	$(call APT_INSTALL,$(ARM_PKGS))

ARM_ARCHES := aarch64 armv7
ARM_CROSS_aarch64 := aarch64-linux-gnu-
ARM_CROSS_armv7 := arm-linux-gnueabihf-
ARM_DEB_aarch64 := arm64
ARM_DEB_armv7 := armhf
ARM_TRIPLET_aarch64 := aarch64-linux-gnu
ARM_TRIPLET_armv7 := arm-linux-gnueabihf
ARM_MFLAGS_aarch64 :=
ARM_MFLAGS_armv7 := -march=armv7-a -mfpu=vfpv3-d16 -mfloat-abi=hard
ARM_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Wno-unused-parameter -fno-omit-frame-pointer -D_GNU_SOURCE

.PHONY: engine-arm arm-unit-tests $(addprefix engine-,$(ARM_ARCHES)) $(addprefix arm-unit-tests-,$(ARM_ARCHES))
engine-arm: $(addprefix engine-,$(ARM_ARCHES))
arm-unit-tests: $(addprefix arm-unit-tests-,$(ARM_ARCHES))

# $(1) = aarch64 | armv7
define ARM_TARGET
ARM_DIR_$(1) := $$(BUILD)/$(1)
ARM_CC_$(1) := $$(ARM_CROSS_$(1))gcc
ARM_SYS_$(1) := $$(ARM_DIR_$(1))/sysroot
ARM_ASM_$(1) := $$(sort $$(wildcard engine/arch/$(1)/*.S))
ARM_OBJS_$(1) = $$(patsubst engine/src/%.c,$$(ARM_DIR_$(1))/obj/%.o,$$(ENGINE_LIB_SRC)) \
                $$(patsubst engine/arch/$(1)/%.S,$$(ARM_DIR_$(1))/obj/arch_%.o,$$(ARM_ASM_$(1)))
# flags read when each recipe runs, after the sysroot is prepared
ARM_DEFS_$(1) = $$(ARM_MFLAGS_$(1)) -DCTXBENCH_VERSION='"$$(VERSION)"' -DCTXBENCH_STATIC=1 \
    -DCTXBENCH_CFLAGS='"$$(strip $$(ARM_CFLAGS) $$(ARM_MFLAGS_$(1))) -static"' \
    -DCTXBENCH_LIBS_NOTE="\"$$$$(cat $$(ARM_SYS_$(1))/note)\"" $$$$(cat $$(ARM_SYS_$(1))/cflags)
ARM_LIBS_$(1) = $$$$(cat $$(ARM_SYS_$(1))/libs) -lpthread -lm

$$(ARM_SYS_$(1))/note: mk/arm-sysroot.sh | $$(ARM_DEPS_STAMP)
	@sh mk/arm-sysroot.sh $$(ARM_DEB_$(1)) $$(ARM_TRIPLET_$(1)) $$(ARM_SYS_$(1))

$$(ARM_DIR_$(1))/obj/%.o: engine/src/%.c mk/arm.mk $$(ARM_SYS_$(1))/note
	@mkdir -p $$(dir $$@)
	$$(ARM_CC_$(1)) $$(ARM_CFLAGS) $$(DEPFLAGS) $$(ARM_DEFS_$(1)) -Iengine/src -c -o $$@ $$<
$$(ARM_DIR_$(1))/obj/arch_%.o: engine/arch/$(1)/%.S mk/arm.mk | $$(ARM_DEPS_STAMP)
	@mkdir -p $$(dir $$@)
	$$(ARM_CC_$(1)) $$(ARM_CFLAGS) $$(ARM_MFLAGS_$(1)) -Wa,--noexecstack -Iengine/src -c -o $$@ $$<
ARM_CLI_OBJS_$(1) = $$(patsubst engine/src/%.c,$$(ARM_DIR_$(1))/obj/%.o,$$(ENGINE_CLI_SRC))
$$(ARM_DIR_$(1))/ctxbench-engine: $$(ARM_OBJS_$(1)) $$(ARM_CLI_OBJS_$(1))
	$$(ARM_CC_$(1)) $$(ARM_CFLAGS) $$(ARM_MFLAGS_$(1)) -static -o $$@ $$^ $$(ARM_LIBS_$(1))
engine-$(1): $$(ARM_DIR_$(1))/ctxbench-engine
-include $$(wildcard $$(ARM_DIR_$(1))/obj/*/*.d)

# engine unit tests, cross-built; tests/test_arm_cross.py runs them under qemu
ARM_UNITS_$(1) = $$(patsubst engine/tests/%.c,$$(ARM_DIR_$(1))/tests/%,$$(sort $$(wildcard engine/tests/test_*.c)))
$$(ARM_DIR_$(1))/tests/%: engine/tests/%.c $$(ARM_OBJS_$(1)) $$(wildcard engine/tests/*.h)
	@mkdir -p $$(dir $$@)
	$$(ARM_CC_$(1)) $$(ARM_CFLAGS) $$(ARM_DEFS_$(1)) -static -Iengine/src -Iengine/tests -o $$@ $$< $$(ARM_OBJS_$(1)) $$(ARM_LIBS_$(1))
arm-unit-tests-$(1): $$(ARM_UNITS_$(1))
endef

$(foreach a,$(ARM_ARCHES),$(eval $(call ARM_TARGET,$(a))))
