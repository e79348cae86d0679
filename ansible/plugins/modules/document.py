# -*- coding: utf-8 -*-
# The documentation of the action plugin plugins/action/document.py, which runs on the control node.
from __future__ import annotations

DOCUMENTATION = r"""
---
module: document
short_description: Make a host's ctxbench results document from what its command brought back
description:
  - Judges the measuring command's result (time limit, signal, failure, with its last line) and makes
    the host's results document with the function C(ctxbench fleet) uses, the engine's raw output
    analysed on the control node, with the fleet's record naming the inventory host.
  - Writes it atomically to the plan's document path and removes the fetched file.
  - Runs on the control node. Used by the C(ctxbench.bench.measure) role.
version_added: 0.1.0
author: ctxbench developers
options:
  plan:
    description: The result of M(ctxbench.bench.plan).
    type: dict
    required: true
  ran:
    description: The registered result of the measuring command.
    type: dict
    required: true
  arch:
    description: What C(uname -m) says on the host.
    type: str
attributes:
  check_mode:
    support: none
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Make the document
  ctxbench.bench.document:
    plan: "{{ plan }}"
    ran: "{{ ran }}"
    arch: x86_64
"""

RETURN = r"""
path:
  description: The document's path on the control node.
  returned: success
  type: str
partial:
  description: Which ids failed where some did (the others' results are in the document), else empty.
  returned: success
  type: str
"""
