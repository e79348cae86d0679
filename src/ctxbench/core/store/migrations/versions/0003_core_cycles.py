"""results gain their median, interval and MDE in core cycles and the
method that counted them (probe or pmu); runs gain the core clock the run
got (the median over its results' groups, GHz), so that compare, history
and the run table can say how fast the host ran each run. Both are filled
from each kept document that holds them (ctxbench wrote `cycles` into
every analysed result from issue 32 on); older documents have no probe,
and their columns stay empty.

Revision ID: 0003
Revises: 0002
"""
import math
import statistics

import sqlalchemy as sa
from alembic import op

from ctxbench.core.store.migrations.kept import documents

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _num(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def cycles_of(result: dict) -> dict:
    """The new result columns from one result as the document keeps it.
    Read here, not through the model's views: a migration must do
    tomorrow what it did today."""
    c = result.get("cycles") if isinstance(result.get("cycles"), dict) else {}
    s = c.get("summary") if isinstance(c.get("summary"), dict) and c.get("applies") else {}
    ci = s.get("ci95") if isinstance(s.get("ci95"), list) and len(s.get("ci95")) == 2 else [None, None]
    method = c.get("method") if s else None
    return {"cycles_median": _num(s.get("median")), "cycles_ci_lo": _num(ci[0]), "cycles_ci_hi": _num(ci[1]),
            "cycles_mde": _num(s.get("mde")), "cycles_method": str(method)[:8] if method else None}


def core_ghz(doc: dict) -> float | None:
    """The run's core clock: the median of its results' clocks."""
    clocks = []
    for r in doc.get("results") or []:
        c = r.get("cycles") if isinstance(r, dict) and isinstance(r.get("cycles"), dict) else {}
        clock = c.get("clock") if isinstance(c.get("clock"), dict) else {}
        if _num(clock.get("ghz_median")) is not None:
            clocks.append(clock["ghz_median"])
    return float(statistics.median(clocks)) if clocks else None


def upgrade() -> None:
    with op.batch_alter_table("results") as b:
        b.add_column(sa.Column("cycles_median", sa.Float))
        b.add_column(sa.Column("cycles_ci_lo", sa.Float))
        b.add_column(sa.Column("cycles_ci_hi", sa.Float))
        b.add_column(sa.Column("cycles_mde", sa.Float))
        b.add_column(sa.Column("cycles_method", sa.String(8)))
    with op.batch_alter_table("runs") as b:
        b.add_column(sa.Column("core_ghz", sa.Float))
    conn = op.get_bind()
    runs = sa.table("runs", sa.column("id", sa.Integer), sa.column("core_ghz", sa.Float))
    results = sa.table("results", sa.column("id", sa.Integer), sa.column("run_id", sa.Integer),
                       sa.column("result_id", sa.String), sa.column("point_key", sa.String),
                       *(sa.column(n, sa.Float) for n in ("cycles_median", "cycles_ci_lo", "cycles_ci_hi",
                                                          "cycles_mde")),
                       sa.column("cycles_method", sa.String))
    for run_id, doc in documents(conn):
        ghz = core_ghz(doc)
        if ghz is None:
            continue  # a document from before the probe: nothing to fill
        conn.execute(runs.update().where(runs.c.id == run_id).values(core_ghz=ghz))
        # the rows were made in the document's order (record.result_rows)
        kept = conn.execute(sa.select(results.c.id, results.c.result_id).where(results.c.run_id == run_id)
                            .order_by(results.c.id)).all()
        docs = [r for r in doc.get("results") or [] if isinstance(r, dict)]
        for (row_id, rid), r in zip(kept, docs):
            if rid == r.get("id"):
                conn.execute(results.update().where(results.c.id == row_id).values(**cycles_of(r)))


def downgrade() -> None:
    with op.batch_alter_table("runs") as b:
        b.drop_column("core_ghz")
    with op.batch_alter_table("results") as b:
        for n in ("cycles_method", "cycles_mde", "cycles_ci_hi", "cycles_ci_lo", "cycles_median"):
            b.drop_column(n)
