# The image `ctxbench fleet --emit k8s` runs (k8s/Dockerfile, docs/kubernetes.md):
# the static engines of K8S_ARCHES (ctxbench's names: x86_64 aarch64 armv7)
# put in a build context by Docker's architecture names, then one image for
# those platforms. Nothing here is built by `make run` or `make test`.
#
#   make k8s-image                                   # x86_64, loaded as ctxbench-engine:<version>
#   make k8s-image K8S_ARCHES="x86_64 aarch64" K8S_IMAGE=registry.example/ctxbench-engine:0.1.0 \
#        K8S_BUILD_FLAGS=--push                      # several platforms: pushed (a local store takes one)

K8S_ARCHES ?= x86_64
K8S_IMAGE ?= ctxbench-engine:$(VERSION)
K8S_BUILD_FLAGS ?= --load
DOCKER ?= docker
K8S_CONTEXT := $(BUILD)/k8s
# ctxbench's architecture -> Docker's (TARGETARCH, the context's folder) and its platform
K8S_DOCKER_x86_64 := amd64
K8S_DOCKER_aarch64 := arm64
K8S_DOCKER_armv7 := arm
K8S_PLATFORM_x86_64 := linux/amd64
K8S_PLATFORM_aarch64 := linux/arm64
K8S_PLATFORM_armv7 := linux/arm/v7
K8S_EMPTY :=
K8S_SPACE := $(K8S_EMPTY) $(K8S_EMPTY)
K8S_COMMA := ,

.PHONY: k8s-context k8s-image
k8s-context: $(addprefix engine-,$(K8S_ARCHES))
	rm -rf $(K8S_CONTEXT)
	$(foreach a,$(K8S_ARCHES),install -D -m 0555 $(BUILD)/$(a)/ctxbench-engine \
	    $(K8S_CONTEXT)/$(K8S_DOCKER_$(a))/ctxbench-engine &&) true
k8s-image: k8s-context
	$(DOCKER) buildx build -f k8s/Dockerfile -t $(K8S_IMAGE) $(K8S_BUILD_FLAGS) \
	    --platform $(subst $(K8S_SPACE),$(K8S_COMMA),$(strip $(foreach a,$(K8S_ARCHES),$(K8S_PLATFORM_$(a))))) \
	    $(K8S_CONTEXT)
