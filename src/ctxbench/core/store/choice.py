"""Which store a measuring command records its run in (without importing
SQLAlchemy): --store, else $CTXBENCH_STORE, else the default SQLite file
in the data directory (None here, db.default_url() there); "off" (or
--no-store) records nothing."""
from __future__ import annotations

import os

STORE_ENV = "CTXBENCH_STORE"
OFF = "off"


def chosen(flag: str | None) -> str | None:
    if flag:
        return flag
    env = os.environ.get(STORE_ENV, "").strip()
    return env or None
