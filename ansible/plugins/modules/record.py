# -*- coding: utf-8 -*-
# The documentation of the action plugin plugins/action/record.py, which runs on the control node.
from __future__ import annotations

DOCUMENTATION = r"""
---
module: record
short_description: Record ctxbench results documents in a ctxbench store
description:
  - Adds results documents (files that C(ctxbench) commands, C(ctxbench fleet) or the
    C(ctxbench.bench.measure) role wrote) to a ctxbench results store, a SQLite file or a
    PostgreSQL server, with ctxbench's own store code, as C(ctxbench store add) does.
  - Runs on the control node, in the Python that runs Ansible, which must be able to import ctxbench.
  - Each run is kept once however often it is added. Every document is read and checked before the
    store is touched, and all of them are added in one transaction.
  - A document that cannot be read fails the task of the host it belongs to, in one line.
  - With no document the task is ok and unchanged, and makes no store.
version_added: 0.1.0
author: ctxbench developers
options:
  documents:
    description: Paths on the control node of the results documents to record.
    type: list
    elements: path
    required: true
  store:
    description:
      - The store, a SQLite file or a C(postgresql://) URL; C(off) records nothing.
      - Default is ctxbench's own, C($CTXBENCH_STORE), else C(store.sqlite) in ctxbench's data directory.
    type: str
  commit:
    description: The git commit the runs measured, kept with each (1 to 64 characters).
    type: str
attributes:
  check_mode:
    support: full
    description: In check mode the documents are read and nothing is written.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - This is an action plugin; it never runs on the managed host.
"""

EXAMPLES = r"""
- name: Record a fleet's documents in a team's PostgreSQL store
  ctxbench.bench.record:
    documents: "{{ query('ansible.builtin.fileglob', 'results/*.json') }}"
    store: postgresql://ctxbench@db.example/ctxbench
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
runs:
  description: One entry per document, in the order given.
  returned: when a store was written
  type: list
  elements: dict
  contains:
    document:
      description: The document's path.
      type: str
    run:
      description: The run's id in the store.
      type: int
    added:
      description: Whether it was added now (false, already kept).
      type: bool
store:
  description: The store's name, as ctxbench says it.
  returned: when a store was written
  type: str
msg:
  description: Each document as added or already kept, and how many were added.
  returned: always
  type: str
"""
