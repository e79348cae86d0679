"""runs gain the host's state while they ran (core/host_state.py, issue 48):
the median reading of the kernel's entry and exit (a rejected system
call, ns) and the measured CPU's steal and the other CPUs' busy share, so
that a run can be held against the best its host has recorded. No document kept before this
revision holds the sensors (the engine wrote them from the same change),
so nothing is filled.

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

COLUMNS = ("syscall_ns", "steal_share", "others_busy_share")


def upgrade() -> None:
    with op.batch_alter_table("runs") as b:
        for name in COLUMNS:
            b.add_column(sa.Column(name, sa.Float))


def downgrade() -> None:
    with op.batch_alter_table("runs") as b:
        for name in reversed(COLUMNS):
            b.drop_column(name)
