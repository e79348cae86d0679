"""ctxbench.bench.step_failure: a step the role runs on a host (unpacking
ctxbench's package, pip) that failed, as the one line its `fail` task
says: the host, the step and the command's own last line, escaped,
rather than Ansible's "non-zero return code" with the reason in stderr.

    msg: "{{ measure_unpacked | ctxbench.bench.step_failure(inventory_hostname, 'unpacking ...') }}"
"""
from __future__ import annotations

from ansible_collections.ctxbench.bench.plugins.plugin_utils import front_end, verdict

DOCUMENTATION = r"""
name: step_failure
short_description: A failed step on a host, in one line
description:
  - The command module's result of a step that failed, as C(ctxbench: HOST: WHAT failed (exit status N): LAST LINE),
    the last line being the step's standard error's (else Ansible's message), escaped.
positional: host, what
options:
  _input:
    description: The step's registered result (ansible.builtin.command's).
    type: dict
    required: true
  host:
    description: The host's inventory name.
    type: str
    required: true
  what:
    description: The step, as the line names it.
    type: str
    required: true
"""


def step_failure(ran, host, what) -> str:
    return verdict.step_failed(front_end.plain(dict(ran or {})), str(host), str(what))


class FilterModule:
    def filters(self):
        return {"step_failure": step_failure}
