"""The store's tables as the code queries them (SQLAlchemy Core). The
schema itself is made and changed only by the Alembic migrations in
core/store/migrations/versions/: a change here needs a new migration there
(tests/test_store.py checks that the two agree)."""
from __future__ import annotations

from sqlalchemy import (BigInteger, Boolean, Column, DateTime, Float, ForeignKey, Index, Integer, LargeBinary,
                        MetaData, String, Table, Text)

metadata = MetaData()

# 0006: each param a result may carry (core/schema.PARAM_TYPES) and the kind
# of value its column holds; tests/test_export.py holds the two together, so
# that a new param comes with a migration that adds its column.
PARAM_KINDS = (
    ("cpu", "int"), ("groups", "int"), ("iterations", "int"), ("n", "int"), ("pinned", "bool"), ("policy", "str"),
    ("policy_requested", "str"), ("placement", "str"), ("mechanism", "str"), ("kind", "str"), ("size", "int"),
    ("stride", "int"), ("t_single", "str"), ("formula", "str"), ("source", "str"), ("resolution_ns", "float"),
    ("parties", "int"), ("footprint", "int"), ("pair", "str"), ("task_a", "str"), ("task_b", "str"),
    ("scale", "float"), ("rate_hz", "int"), ("task", "str"), ("noise_cpu", "int"), ("runtime", "str"),
    ("peer", "str"), ("cpu_b", "int"), ("pair_cpu", "int"), ("irq_cpu", "int"), ("window_ms", "int"))


def param_type(kind: str):
    """A param column's type ("text": a param that may hold values of two types, as text)."""
    return {"int": BigInteger, "float": Float, "bool": Boolean, "text": Text}[kind]() if kind != "str" else String(255)


runs = Table(
    "runs", metadata,
    Column("id", Integer, primary_key=True),
    Column("digest", String(64), nullable=False, unique=True),  # sha256 of the document: adding twice is once
    Column("command", String(32)),
    Column("host", String(255)),
    Column("cpu_model", String(255)),
    Column("microcode", String(64)),
    Column("kernel", String(255)),
    Column("mitigations", Text),
    Column("ctxbench_version", String(64)),
    Column("git_commit", String(64)),
    Column("started", DateTime),
    Column("added", DateTime, nullable=False),
    Column("document", LargeBinary, nullable=False),  # the whole JSON, zlib-compressed: re-analysis stays possible
    Column("governor", String(64)),  # 0002
    Column("vm", Boolean),  # 0002
    Column("core_ghz", Float),  # 0003: the core clock the run got (median over its results' groups)
    # 0005: the host's state while it ran (core/host_state.py): the system call's median reading, ns, and shares
    Column("syscall_ns", Float),
    Column("steal_share", Float),
    Column("others_busy_share", Float),
    Column("hypervisor", String(64)),  # 0006: the hypervisor's vendor, where the host is a VM that names one
    Index("ix_runs_host_started", "host", "started"),
    Index("ix_runs_kernel", "kernel"),  # 0002
)

results = Table(
    "results", metadata,
    Column("id", Integer, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("result_id", String(255), nullable=False),
    Column("point_key", String(512), nullable=False),
    Column("unit", String(16)),
    Column("median", Float),
    Column("ci_lo", Float),
    Column("ci_hi", Float),
    Column("mde", Float),
    Column("ok", Boolean),
    Column("runtime_version", String(128)),
    # 0003: the same in core cycles (core/cycles.py), where they apply
    Column("cycles_median", Float),
    Column("cycles_ci_lo", Float),
    Column("cycles_ci_hi", Float),
    Column("cycles_mde", Float),
    Column("cycles_method", String(8)),
    # 0006: what an export reads without the documents (ctxbench export): the kind of quantity, the
    # summary's n and CV, the verification's verdict, the warnings' codes (joined by ';'), the result's
    # core clock, and its params: one column each (param_<name>), the others as JSON (params_other)
    Column("quantity", String(32)),
    Column("n", Integer),
    Column("cv", Float),
    Column("verdict", String(16)),
    Column("warning_codes", Text),
    Column("clock_ghz", Float),
    Column("params_other", Text),
    *(Column(f"param_{name}", param_type(kind)) for name, kind in PARAM_KINDS),
    Index("ix_results_point_run", "point_key", "run_id"),
    Index("ix_results_run", "run_id"),
)
