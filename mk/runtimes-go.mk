# issue 24, `ctxbench runtimes`: the Go harness (runtimes/go), no modules
# beyond the standard library. `make runtimes` installs Debian's Go when
# there is none (a Go older than go.mod's fetches the newer toolchain
# through the Go module proxy, GOTOOLCHAIN=auto) and builds it; `make test`
# only builds it where Go is already there (tests skip it otherwise).
RT_GO := $(BUILD)/runtimes/go/ctxbench-rt-go
RT_GO_SRC := $(wildcard runtimes/go/*.go) runtimes/go/go.mod
.PHONY: runtimes runtimes-go runtimes-go-build
runtimes: runtimes-go
runtimes-go:
	@command -v go >/dev/null || { echo "installing: golang-go"; $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq golang-go; } || true
	@$(MAKE) --no-print-directory runtimes-go-build
runtimes-go-build:
	@if command -v go >/dev/null; then $(MAKE) --no-print-directory $(RT_GO); \
	else echo "go: not found; \`make runtimes\` installs it"; fi
$(RT_GO): $(RT_GO_SRC)
	@mkdir -p $(dir $@)
	cd runtimes/go && nice -n 10 go build -trimpath -o $@ .
TEST_PREREQS += runtimes-go-build
