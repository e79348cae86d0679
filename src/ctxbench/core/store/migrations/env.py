"""Alembic's environment for the store: always given a live connection by
store/db.py (config.attributes["connection"]), never a URL of its own."""
from alembic import context

from ctxbench.core.store.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
