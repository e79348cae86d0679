# issue 24, `ctxbench runtimes`: the C++20 harness (runtimes/cpp): coroutines
# with symmetric transfer, Boost.Context fibers, std::thread. `make runtimes`
# installs its Debian packages (Boost.Context, nlohmann's JSON) and builds it
# into build/runtimes/cpp; where they cannot be installed, one line says so
# and the front end reports cpp as absent.
RT_CPP_PKGS := g++ libboost-context-dev nlohmann-json3-dev
RT_CPP := $(BUILD)/runtimes/cpp/ctxbench-rt-cpp
RT_CPP_STD := -std=c++20
RT_CPP_FLAGS := $(RT_CPP_STD) -O2 -g -Wall -Wextra -pthread
RT_CPP_DEPS := $(BUILD)/.rt-cpp-deps
.PHONY: runtimes runtimes-cpp
runtimes: runtimes-cpp
TEST_PREREQS += runtimes-cpp
TEST_PKG_STAMPS += $(RT_CPP_DEPS)  # installed before `make test` builds in parallel
runtimes-cpp: $(RT_CPP_DEPS)
	@if [ -f /usr/include/boost/context/fiber.hpp ] && [ -f /usr/include/nlohmann/json.hpp ] && command -v $(CXX) >/dev/null; then \
	  $(MAKE) --no-print-directory $(RT_CPP); \
	else echo "cpp: $(CXX), Boost.Context or nlohmann/json.hpp missing; \`make runtimes\` installs $(RT_CPP_PKGS) (root or sudo)"; fi
# the packages, where root or sudo can install them (no failure otherwise: the line above says what is missing)
$(RT_CPP_DEPS):
	@missing=$$(for p in $(RT_CPP_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then echo "installing:" $$missing; \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; } || exit 0; fi; \
	mkdir -p $(BUILD) && touch $@
$(RT_CPP): $(wildcard runtimes/cpp/*.cpp runtimes/cpp/*.hpp) mk/runtimes-cpp.mk
	@mkdir -p $(dir $@)
	nice -n 10 $(CXX) $(RT_CPP_FLAGS) -DRT_CXXFLAGS='"$(RT_CPP_FLAGS)"' -o $@ $(filter %.cpp,$^) -lboost_context
