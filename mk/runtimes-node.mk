# issue 24, `ctxbench runtimes`: the Node harness (runtimes/node) runs as a
# script under `node` (CTXBENCH_NODE names another); nothing to build.
# `make runtimes` installs Debian's nodejs when there is no node.
.PHONY: runtimes runtimes-node
runtimes: runtimes-node
runtimes-node:
	@command -v node >/dev/null || { echo "installing: nodejs"; $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nodejs; } || \
	  echo "node: not found and not installed; the Node harness is skipped"
