# -*- coding: utf-8 -*-
# The documentation of the action plugin plugins/action/prepare.py, which runs on the control node.
from __future__ import annotations

DOCUMENTATION = r"""
---
module: prepare
short_description: Choose what a host gets for a ctxbench measurement (the measure role's step)
description:
  - Chooses the static ctxbench engine for the host's architecture, and on the wheel way packs
    ctxbench's Python package for the host's Python and says the command lines and the environment
    that unpack and run it inside the host's private directory.
  - Runs on the control node. Used by the C(ctxbench.bench.measure) role.
version_added: 0.1.0
author: ctxbench developers
options:
  plan:
    description: The result of M(ctxbench.bench.plan).
    type: dict
    required: true
  arch:
    description: What C(uname -m) says on the host.
    type: str
    required: true
  directory:
    description: The host's private directory.
    type: str
    required: true
  engines:
    description: Where the static engines are, one folder per architecture (default, ctxbench's).
    type: path
  wheel:
    description: A ctxbench wheel to run on the host (default, the control node's own ctxbench package).
    type: path
  python:
    description: The Python that runs ctxbench on the host (default, the one Ansible uses there).
    type: str
  pip:
    description: Fetch ctxbench's requirements on the host with pip, into the private directory.
    type: bool
    default: false
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Choose the host's engine
  ctxbench.bench.prepare:
    plan: "{{ plan }}"
    arch: x86_64
    directory: /tmp/ctxbench-ansible.x1y2z3
"""

RETURN = r"""
engine:
  description: The static engine's path on the control node.
  returned: success
  type: str
argv:
  description: The measuring command line on the host.
  returned: success
  type: list
environment:
  description: Its environment (the wheel way).
  returned: success
  type: dict
"""
