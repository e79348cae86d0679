# A static x86-64 engine for hosts that are not this one (`--host` and
# `ctxbench fleet` copy it over SSH): `make engine-x86_64` gives build/x86_64/ctxbench-engine,
# which needs nothing on the target. zlib and libcrypto come from this
# machine's static archives (zlib1g-dev, libssl-dev); hwloc is left out, as in
# the ARM builds (its static archive drags in libudev and libxml2; the engine
# reads the topology from sysfs without it).

X64_DIR := $(BUILD)/x86_64
# `make run` builds it on an x86-64 machine: `--host` and `fleet` to x86-64 hosts need it
ifeq ($(ARCH_NATIVE),x86_64)
RUN_PREREQS += engine-x86_64
endif
X64_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Wno-unused-parameter -fno-omit-frame-pointer -D_GNU_SOURCE
X64_ARCHIVES := /usr/lib/x86_64-linux-gnu/libcrypto.a /usr/lib/x86_64-linux-gnu/libz.a
X64_DEFS = -DCTXBENCH_VERSION='"$(VERSION)"' -DCTXBENCH_STATIC=1 -DCTXBENCH_CFLAGS='"$(X64_CFLAGS) -static"' \
           -DCTXBENCH_LIBS_NOTE='"static zlib, libcrypto from this build machine; no hwloc"' -DHAVE_ZLIB -DHAVE_LIBCRYPTO
X64_OBJS = $(patsubst engine/src/%.c,$(X64_DIR)/obj/%.o,$(ENGINE_SRC)) \
           $(patsubst engine/arch/x86_64/%.S,$(X64_DIR)/obj/arch_%.o,$(sort $(wildcard engine/arch/x86_64/*.S)))

.PHONY: engine-x86_64
engine-x86_64: $(X64_DIR)/ctxbench-engine
$(X64_DIR)/obj/%.o: engine/src/%.c mk/static.mk | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(X64_CFLAGS) $(DEPFLAGS) $(X64_DEFS) -Iengine/src -c -o $@ $<
$(X64_DIR)/obj/arch_%.o: engine/arch/x86_64/%.S mk/static.mk
	@mkdir -p $(dir $@)
	$(CC) $(X64_CFLAGS) -Wa,--noexecstack -Iengine/src -c -o $@ $<
$(X64_DIR)/ctxbench-engine: $(X64_OBJS)
	$(CC) $(X64_CFLAGS) -static -o $@ $^ $(X64_ARCHIVES) -lpthread -lm
-include $(wildcard $(X64_DIR)/obj/*/*.d)
