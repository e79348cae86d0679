"""results gain what `ctxbench export` reads without the documents (issue
49): the kind of quantity, the summary's n and CV, the verification's
verdict, the warnings' codes, the result's core clock and its params, one
column each (param_<name>) and the others as JSON; runs gain the
hypervisor. A store of 10^5 runs exports from these columns in seconds,
where decompressing and reading every document took minutes. Each kept
document fills its rows, as a run added today fills them.

Revision ID: 0006
Revises: 0005
"""
import sys
from types import MappingProxyType

import sqlalchemy as sa
from alembic import op

from ctxbench.core.store.migrations.kept import blobs as kept_blobs

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# The params of today's results (core/schema.PARAM_TYPES) and the kinds of
# their columns, as they were when this revision was written: a later param
# comes with a revision of its own.
PARAMS = (
    ("cpu", "int"), ("groups", "int"), ("iterations", "int"), ("n", "int"), ("pinned", "bool"), ("policy", "str"),
    ("policy_requested", "str"), ("placement", "str"), ("mechanism", "str"), ("kind", "str"), ("size", "int"),
    ("stride", "int"), ("t_single", "str"), ("formula", "str"), ("source", "str"), ("resolution_ns", "float"),
    ("parties", "int"), ("footprint", "int"), ("pair", "str"), ("task_a", "str"), ("task_b", "str"),
    ("scale", "float"), ("rate_hz", "int"), ("task", "str"), ("noise_cpu", "int"), ("runtime", "str"),
    ("peer", "str"), ("cpu_b", "int"), ("pair_cpu", "int"), ("irq_cpu", "int"), ("window_ms", "int"))
TYPES = MappingProxyType({"int": sa.BigInteger, "float": sa.Float, "bool": sa.Boolean, "str": lambda: sa.String(255)})
RESULT_COLUMNS = (("quantity", lambda: sa.String(32)), ("n", sa.Integer), ("cv", sa.Float),
                  ("verdict", lambda: sa.String(16)), ("warning_codes", sa.Text), ("clock_ghz", sa.Float),
                  ("params_other", sa.Text), *((f"param_{name}", TYPES[kind]) for name, kind in PARAMS))


def upgrade() -> None:
    with op.batch_alter_table("runs") as b:
        b.add_column(sa.Column("hypervisor", sa.String(64)))
    with op.batch_alter_table("results") as b:
        for name, kind in RESULT_COLUMNS:
            b.add_column(sa.Column(name, kind()))
    _fill(op.get_bind())




def _fill(conn) -> None:
    """Each kept run's new columns, computed as a run added today computes
    them (core/store/record.py: 0004 took today's digest the same way),
    limited to this revision's columns. Its document is read back as the
    store's readers read it, with today's code (record.document_of:
    decoded, a ctxbench/1 one upgraded); a later change of that code comes
    with a revision of its own. A kept row is paired with the row made for
    it by its id and point (record.add made them in the document's order,
    and points share an id: a ring's parties, a sweep's sizes), in order
    within one pair; a row without its pair is left empty, and so are the
    rows of a run whose document cannot be read back (said in one line on
    standard error: the migration goes on)."""
    from ctxbench.core.errors import UserError
    from ctxbench.core.model import Document
    from ctxbench.core.store import record, tables
    from ctxbench.records import RECORDS
    names = {name for name, _ in RESULT_COLUMNS}
    runs = sa.table("runs", sa.column("id", sa.Integer), sa.column("hypervisor", sa.String),
                    sa.column("document", sa.LargeBinary))
    results = sa.table("results", sa.column("id", sa.Integer), sa.column("run_id", sa.Integer),
                       sa.column("result_id", sa.String), sa.column("point_key", sa.String),
                       *(sa.column(name) for name in sorted(names)))
    update = results.update().where(results.c.id == sa.bindparam("row_id")).values(
        {name: sa.bindparam(f"new_{name}") for name in sorted(names)})
    for run_id, blob in kept_blobs(conn):
        try:
            doc = record.document_of(blob, run_id, RECORDS)
            vendor = Document(doc).environment.hypervisor
            hypervisor = record.fitted(tables.runs, {"hypervisor": vendor if isinstance(vendor, str) else None})
            made = record.result_rows(doc, run_id) + record.effect_rows(doc, run_id)
        except (UserError, TypeError, ValueError, AttributeError, KeyError) as e:  # left empty
            print(f"ctxbench: store: run {run_id}: {getattr(e, 'why', e)}; its export columns are left empty",
                  file=sys.stderr)
            continue
        conn.execute(runs.update().where(runs.c.id == run_id).values(**hypervisor))
        kept = conn.execute(sa.select(results.c.id, results.c.result_id, results.c.point_key)
                            .where(results.c.run_id == run_id).order_by(results.c.id)).all()
        by_point: dict[tuple, list[dict]] = {}
        for new in made:
            by_point.setdefault((new["result_id"], new["point_key"]), []).append(new)
        rows = []
        for row_id, rid, point in kept:
            waiting = by_point.get((rid, point))
            if waiting:
                new = waiting.pop(0)
                rows.append({"row_id": row_id, **{f"new_{k}": v for k, v in new.items() if k in names}})
        if rows:
            conn.execute(update, rows)


def downgrade() -> None:
    with op.batch_alter_table("results") as b:
        for name, _ in reversed(RESULT_COLUMNS):
            b.drop_column(name)
    with op.batch_alter_table("runs") as b:
        b.drop_column("hypervisor")
