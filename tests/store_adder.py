"""One writer of tests/test_store.py's concurrency test: adds runs
first..first+count-1 of the synthetic series, one transaction each, as a
command recording its result would."""
from ctxbench.core.store import record
from ctxbench.core.store.db import Store
from test_store import synthetic


def main(url: str, first: int, count: int) -> None:
    s = Store(url)
    for k in range(first, first + count):
        with s.begin() as conn:
            record.add(conn, synthetic(k))
