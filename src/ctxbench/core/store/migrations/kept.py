"""The kept runs' documents, for the migrations that fill or change
columns from them (versions/0002 on)."""
import json
import zlib

import sqlalchemy as sa

BATCH = 500  # documents decompressed at a time: memory stays bounded on a large store


def blobs(conn):
    """(run id, its kept document's compressed bytes) of every kept run, in
    id order, BATCH at a time. A run the caller deletes meanwhile is no
    trouble: each batch starts after the last id read."""
    runs = sa.table("runs", sa.column("id", sa.Integer), sa.column("document", sa.LargeBinary))
    last = 0
    while True:
        rows = conn.execute(sa.select(runs.c.id, runs.c.document).where(runs.c.id > last)
                            .order_by(runs.c.id).limit(BATCH)).all()
        if not rows:
            return
        yield from rows
        last = rows[-1][0]


def documents(conn):
    """(run id, its document as builtins) of every kept run, in id order."""
    for run_id, document in blobs(conn):
        yield run_id, json.loads(zlib.decompress(document))
