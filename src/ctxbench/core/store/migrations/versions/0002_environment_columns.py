"""runs gain the governor and whether the host is a VM, and an index on the
kernel (compare's and history's groups select on them); microcode, which
0001 had a column for but left empty, and the new columns are filled from
each run's kept document, so a store made before this revision answers the
same questions as one made after.

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

from ctxbench.core.store.migrations.kept import documents

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def facts(doc: dict) -> dict:
    """The new columns' values from one kept document (its environment
    record as the engine writes it). Read here, not through the model's
    views: a migration must do tomorrow what it did today."""
    env = doc.get("environment") or {}
    cpu = env.get("cpu") if isinstance(env.get("cpu"), dict) else {}
    virt = env.get("virtualization") if isinstance(env.get("virtualization"), dict) else {}
    freq = env.get("frequency") if isinstance(env.get("frequency"), dict) else {}
    governors = freq.get("governors") if isinstance(freq.get("governors"), dict) else {}
    microcode = cpu.get("microcode")
    vm = virt.get("is_vm")
    return {"microcode": str(microcode)[:64] if microcode is not None else None,
            "governor": ", ".join(sorted({str(v) for v in governors.values()}))[:64] or None,
            "vm": vm if isinstance(vm, bool) else None}


def upgrade() -> None:
    with op.batch_alter_table("runs") as b:
        b.add_column(sa.Column("governor", sa.String(64)))
        b.add_column(sa.Column("vm", sa.Boolean))
    op.create_index("ix_runs_kernel", "runs", ["kernel"])
    conn = op.get_bind()
    runs = sa.table("runs", sa.column("id", sa.Integer), sa.column("microcode", sa.String),
                    sa.column("governor", sa.String), sa.column("vm", sa.Boolean))
    for run_id, doc in documents(conn):
        conn.execute(runs.update().where(runs.c.id == run_id).values(**facts(doc)))


def downgrade() -> None:
    op.drop_index("ix_runs_kernel", "runs")
    with op.batch_alter_table("runs") as b:
        b.drop_column("vm")
        b.drop_column("governor")
