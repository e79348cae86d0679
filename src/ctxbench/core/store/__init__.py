"""The results store (issue 25): every run's whole document, kept with
indexed columns for what history queries ask (id, host, CPU, kernel,
mitigations, versions, time, median, interval, MDE), in SQLite under the
user's data directory or in a shared PostgreSQL given by URL.

SQLAlchemy Core speaks both; Alembic owns the schema's versions and
migrations (core/store/migrations/); nothing here re-implements either.
Imported only by the commands that use the store: the CLI starts without
SQLAlchemy."""
