# ctxbench peers runs the context-switch benchmarks people quote beside
# ctxbench's own ids. `make peers` installs the Debian packages that bring
# them; lmbench's lat_ctx is not packaged (an lmbench build on PATH is used
# where there is one). A package this distribution does not have is said
# and skipped: the peer it brings then costs one line of `ctxbench peers`.
# perf: Debian's linux-perf, Ubuntu's linux-tools-generic.
PEER_PKGS := linux-perf/linux-tools-generic stress-ng rt-tests sysbench
PEERS_STAMP := $(BUILD)/.peers-$(shell echo $(PEER_PKGS) | md5sum | cut -c1-12)
TEST_PKG_STAMPS += $(PEERS_STAMP)

.PHONY: peers
peers: $(PEERS_STAMP)
$(PEERS_STAMP): | $(DEPS_STAMP)
	@want=""; for alts in $(PEER_PKGS); do \
	  for p in $$(echo $$alts | tr "/" " "); do \
	    if dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed'; then continue 2; fi; \
	  done; \
	  want="$$want $$alts"; \
	done; \
	if [ -n "$$want" ]; then \
	  $(SUDO) apt-get update -qq; \
	  for alts in $$want; do \
	    for p in $$(echo $$alts | tr "/" " "); do \
	      if apt-cache show $$p >/dev/null 2>&1; then echo "installing: $$p"; \
	        DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$p && continue 2; fi; \
	    done; \
	    echo "not packaged here: $$alts (ctxbench peers will skip it)"; \
	  done; \
	fi
	@mkdir -p $(BUILD) && touch $@
