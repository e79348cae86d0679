"""runs and results: the first schema of the store.

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("command", sa.String(32)),
        sa.Column("host", sa.String(255)),
        sa.Column("cpu_model", sa.String(255)),
        sa.Column("microcode", sa.String(64)),
        sa.Column("kernel", sa.String(255)),
        sa.Column("mitigations", sa.Text),
        sa.Column("ctxbench_version", sa.String(64)),
        sa.Column("git_commit", sa.String(64)),
        sa.Column("started", sa.DateTime),
        sa.Column("added", sa.DateTime, nullable=False),
        sa.Column("document", sa.LargeBinary, nullable=False),
    )
    op.create_index("ix_runs_host_started", "runs", ["host", "started"])
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("result_id", sa.String(255), nullable=False),
        sa.Column("point_key", sa.String(512), nullable=False),
        sa.Column("unit", sa.String(16)),
        sa.Column("median", sa.Float),
        sa.Column("ci_lo", sa.Float),
        sa.Column("ci_hi", sa.Float),
        sa.Column("mde", sa.Float),
        sa.Column("ok", sa.Boolean),
        sa.Column("runtime_version", sa.String(128)),
    )
    op.create_index("ix_results_point_run", "results", ["point_key", "run_id"])
    op.create_index("ix_results_run", "results", ["run_id"])


def downgrade() -> None:
    op.drop_table("results")
    op.drop_table("runs")
