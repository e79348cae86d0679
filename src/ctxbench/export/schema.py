"""The two tables `ctxbench export` writes and `ctxbench.load` returns, each
column with its Arrow type and meaning, declared once: the same from files
and from the store (files.py, store.py), and what docs/export.md lists.

No column holds values of two types: each param has its own column of the
type core/schema.PARAM_TYPES declares (the store's columns,
core/store/tables.PARAM_KINDS, which a test holds to it), a param another
type of value would need a text column, and whatever else a result's params
hold is one JSON text column. `started` is an instant in UTC (times.py)."""
from __future__ import annotations

from types import MappingProxyType

import pyarrow as pa

from ctxbench.core.store.tables import PARAM_KINDS

TIME = pa.timestamp("us", tz="UTC")
# a param column's type by its kind (core/store/tables.PARAM_KINDS; text: values of two types, as text)
KIND = MappingProxyType({"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(), "str": pa.string(),
                         "text": pa.string()})
TEXT, NUMBER, COUNT, FLAG = pa.string(), pa.float64(), pa.int64(), pa.bool_()

# (column, type, meaning): what a run says, repeated on each of its rows
RUN = (
    ("run_id", TEXT, "the run's digest (what it measured): the same whether read from its file or from a store "
                     "it was added to, so the two join"),
    ("source", TEXT, "the file the row was read from, or the store (its password masked)"),
    ("command", TEXT, "the command that measured the run (run, sweep, tasks, ...)"),
    ("started", TIME, "when the run started, in UTC (see the time-zone rule)"),
    ("host", TEXT, "the host's name"),
    ("cpu_model", TEXT, "the CPU's model name"),
    ("microcode", TEXT, "the CPU's microcode revision"),
    ("kernel", TEXT, "the kernel release (uname -r)"),
    ("mitigations", TEXT, "the kernel's mitigation for each vulnerability, 'name: state' joined by ', '"),
    ("vm", FLAG, "whether the host is a virtual machine (null: not said)"),
    ("hypervisor", TEXT, "the hypervisor's vendor, where a virtual machine names one"),
    ("governor", TEXT, "the CPU frequency governors, joined by ', '"),
    ("core_ghz", NUMBER, "the core clock the run got, GHz (median over its results)"),
    ("ctxbench_version", TEXT, "the ctxbench that measured it"),
    ("git_commit", TEXT, "the commit `store add --commit` gave (null from files)"),
)
# (column, type, meaning): what one result says
RESULT = (
    ("id", TEXT, "the result's id (kernel/thread/pipe/same-cpu, ...)"),
    ("point_key", TEXT, "the id and the params that tell its points apart (a sweep's size, a ring's parties)"),
    ("quantity", TEXT, "what the number is: switch, handoff, run, ... ; effect: a tasks pair's cost derived over "
                       "rounds (per_switch, per_task), not a result"),
    ("unit", TEXT, "the unit of median, ci_lo, ci_hi, mde and the samples (ns, or a runtime's bytes)"),
    *((f"param_{name}", KIND[kind], f"the param {name}") for name, kind in PARAM_KINDS),
    ("params_other", TEXT, "every other param (and any declared one of another type), as JSON with sorted keys"),
    ("median", NUMBER, "the median of the kept samples, as the command printed it"),
    ("ci_lo", NUMBER, "the 95% interval's lower end"),
    ("ci_hi", NUMBER, "the 95% interval's upper end"),
    ("cv", NUMBER, "the coefficient of variation of the kept samples (a fraction)"),
    ("n", COUNT, "how many samples were kept"),
    ("mde", NUMBER, "the smallest change between two such runs a 5% test finds 80% of the time"),
    ("cycles_median", NUMBER, "the median in core cycles, where cycles apply"),
    ("cycles_ci_lo", NUMBER, "its interval's lower end"),
    ("cycles_ci_hi", NUMBER, "its interval's upper end"),
    ("cycles_mde", NUMBER, "its MDE"),
    ("cycles_method", TEXT, "how the cycles were counted: probe or pmu"),
    ("clock_ghz", NUMBER, "the core clock this result's groups got, GHz"),
    ("verified", FLAG, "the switch counts matched the method (null: not checked)"),
    ("verdict", TEXT, "the verification's verdict: ok, not verified or failed (null: not checked)"),
    ("warnings", pa.list_(TEXT), "the codes of its warnings (docs/results-file.md#warnings); in CSV joined by ';'"),
)
RESULTS = pa.schema([pa.field(name, t) for name, t, _ in (*RUN, *RESULT)])

SAMPLE = (
    ("run_id", TEXT, "the run's digest, as in the results table"),
    ("source", TEXT, "the file the row was read from, or the store"),
    ("id", TEXT, "the result's id"),
    ("point_key", TEXT, "the result's point, as in the results table"),
    ("sample", COUNT, "the sample's index in its result, from 0"),
    ("group", COUNT, "the group (round) the sample was measured in: fresh parties each (null: not grouped)"),
    ("value", NUMBER, "the sample, in the result's unit"),
    ("unit", TEXT, "the unit of value"),
    ("kept", FLAG, "kept by the verification (false: disturbed and dropped from the median)"),
    ("cycles", NUMBER, "the sample in core cycles: its value times its group's clock (null where cycles do not "
                       "apply)"),
)
SAMPLES = pa.schema([pa.field(name, t) for name, t, _ in SAMPLE])

# an export column read from a store column of another name
STORE_NAME = MappingProxyType({"run_id": "digest", "id": "result_id", "verified": "ok", "warnings": "warning_codes"})


def store_name(column: str) -> str:
    return STORE_NAME.get(column, column)


def batch(schema: pa.Schema, columns: dict) -> pa.RecordBatch:
    """A record batch of `schema` from its columns by name: Arrow arrays,
    or sequences of Python values as a file's rows or the store's driver
    give them, each made its declared type (column())."""
    arrays = []
    for f in schema:
        col = columns[f.name]
        col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
        arrays.append(col if isinstance(col, pa.Array) and col.type == f.type else column(f.type, col))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def column(t: pa.DataType, values) -> pa.Array:
    """Values (an array, or Python values) as an array of type `t`: a flag
    from 0/1 (SQLite keeps no booleans) as from True/False; a list of codes
    from their text joined by ';' (the store's warning_codes; None: none)."""
    if pa.types.is_list(t):
        import pyarrow.compute as pc
        text = values if isinstance(values, pa.Array) else pa.array(values, type=pa.string())
        return pc.fill_null(pc.split_pattern(text, ";"), pa.scalar([], type=t)).cast(t)
    if isinstance(values, pa.Array):
        return values.cast(t)
    return pa.array(values).cast(t) if pa.types.is_boolean(t) else pa.array(values, type=t)
