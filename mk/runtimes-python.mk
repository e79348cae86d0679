# issue 24, `ctxbench runtimes`: the Python harness (runtimes/python) runs as
# a script under the project's .venv python (CTXBENCH_PYTHON names another);
# its greenlet and uvloop come from pip (pyproject's `runtimes` extra), for
# `make runtimes` and for `make test`. Without them the harness says those
# mechanisms are skipped.
.PHONY: runtimes runtimes-python
runtimes: runtimes-python
runtimes-python: $(VENV)/.runtimes-ok
$(VENV)/.runtimes-ok: $(VENV)/.ok pyproject.toml
	$(PIP_INSTALL) -e '.[runtimes]'
	@touch $@
TEST_PREREQS += runtimes-python
