# -*- coding: utf-8 -*-
# The documentation of the action plugin plugins/action/plan.py, which runs on the control node.
from __future__ import annotations

DOCUMENTATION = r"""
---
module: plan
short_description: Decide how a ctxbench command runs on a host (the measure role's first step)
description:
  - Reads the ctxbench command with ctxbench's own command line parser and decides its way, by
    ctxbench's own rule (C(ctxbench.fleet.job)); C(run) with only a preset's options and C(env) run as
    the static engine alone, any other measuring command as ctxbench itself.
  - Checks, before any host is contacted and in check mode too, everything the control node can check, each
    fault one line naming its variable - the command, the time limits (whole seconds from 1 to a day, the
    connection at most an hour), the commit (1 to 64 characters), the engines' directory (it holds an engine),
    the wheel (a ctxbench wheel, on the wheel way), the output directory (writable, or it can be made) and
    the store (a PostgreSQL server is connected to; in check mode only read).
  - Makes nothing - M(ctxbench.bench.document) makes the output directory (and a new SQLite store's directory
    inside it) when it writes a document.
  - Runs on the control node. Used by the C(ctxbench.bench.measure) role; its result feeds
    M(ctxbench.bench.prepare) and M(ctxbench.bench.document).
version_added: 0.1.0
author: ctxbench developers
options:
  command:
    description: The command line after C(ctxbench), as a string (C(run --quick)) or a list.
    type: raw
    required: true
  install:
    description: C(engine), C(wheel), or C(auto) (the engine alone where the command allows it).
    type: str
    choices: [auto, engine, wheel]
    default: auto
  output_dir:
    description: Where the host's document lands on the control node.
    type: path
    required: true
  store:
    description: The store the document will be recorded in (C(off) for none).
    type: str
  cpu:
    description: The host's CPU to measure on (its C(ctxbench_cpu)).
    type: int
  timeout:
    description: Seconds the measuring command may run on the host (1 to 86400).
    type: raw
    default: 1800
  connect_timeout:
    description: Seconds the role waits for the host to answer (1 to 3600); checked here.
    type: raw
    default: 30
  step_timeout:
    description: Seconds for each other step on the host (1 to 86400); checked here.
    type: raw
    default: 600
  commit:
    description: The git commit the runs measured (1 to 64 characters, as for C(ctxbench store add --commit)).
    type: str
  engines:
    description: Where the static engines are (default, ctxbench's own); it must hold one.
    type: path
  wheel:
    description: A ctxbench wheel for the hosts (the wheel way); it must be one.
    type: path
attributes:
  check_mode:
    support: full
    description: In check mode the same checks run, a PostgreSQL store is only read, and nothing is made.
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Plan a quick run
  ctxbench.bench.plan:
    command: run --quick
    output_dir: results
  register: plan
"""

RETURN = r"""
way:
  description: C(engine) or C(wheel).
  returned: success
  type: str
argv:
  description: The host's command line, in its private directory (the engine way).
  returned: success
  type: list
document:
  description: The document's path on the control node.
  returned: success
  type: str
make:
  description: The directories M(ctxbench.bench.document) makes when it writes the document.
  returned: success
  type: list
msg:
  description: What will be done on the host, in one line.
  returned: always
  type: str
"""
