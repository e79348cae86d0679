"""A run's digest is of what it measured, not of what was derived from it
(core/store/record.digest): before, it was of the whole analysed
document, so the same file added again by a newer ctxbench, which
analyses it differently, was kept as a second run. Each kept document's
digest is computed anew; runs that now turn out to be the same
measurement are kept once, the first added, and the others' rows go.

Revision ID: 0004
Revises: 0003
"""
import sqlalchemy as sa
from alembic import op

from ctxbench.core.store.migrations.kept import documents

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The digest of today's code: a later change of it comes with its own
    # migration, which computes every digest anew from the documents again.
    from ctxbench.core.store.record import digest
    conn = op.get_bind()
    runs = sa.table("runs", sa.column("id", sa.Integer), sa.column("digest", sa.String))
    results = sa.table("results", sa.column("run_id", sa.Integer))
    first: dict[str, int] = {}
    for run_id, doc in documents(conn):
        d = digest(doc)
        if d in first:  # the same measurement, added again under another analysis
            conn.execute(results.delete().where(results.c.run_id == run_id))
            conn.execute(runs.delete().where(runs.c.id == run_id))
            continue
        first[d] = run_id
        conn.execute(runs.update().where(runs.c.id == run_id).values(digest=d))


def downgrade() -> None:
    # the old digests (of whole documents) are not restored: a digest only
    # tells runs apart, and these still do
    pass
