"""The results model: what every reader (tables, figures, report, compare,
the analyses) reads a result through.

- `analyse` judges a raw engine result once (verification.judge) and adds
  its summary, its verification record (with the dropped samples' indices)
  and its own warnings. Readers never judge again: `Result.keep` is that
  judgement.
- Warnings are `{code, text}` objects: readers select by code, never by
  parsing text. Old files' plain-text warnings are given a code on reading.
- `Result`, `Params`, `Summary`, `Environment` and `Document` are read-only
  views over the core/results records (or the builtins of one a command
  is still building), with one accessor per member a reader uses; each
  member is declared, with its kind, in schema.py.
- The analyses return new results (`with_members`), never change one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import msgspec
import numpy as np

from ctxbench.core import cycles, results, schema, verification
from ctxbench.core.results import codec, upgrade
from ctxbench.core.results.document import SCHEMA as _V2
from ctxbench.core.results.warnings import CODES, SEVERITY
from ctxbench.stats import drift, summary as stats
from ctxbench.stats.numbers import finite_or_nan

SCHEMA = _V2
# what the reader reads: ctxbench/1 through core/results/upgrade.py
SUPPORTED_SCHEMAS = (upgrade.V1, SCHEMA)

# ---- warnings -------------------------------------------------------------

# the codes analyse() writes (re-derived on every analysis)
_OWN = ("dropped", "verification", "outliers", "negative", "clock_probe")


@dataclass(frozen=True)
class Note:
    """A warning attached to a result: its code (CODES), severity
    (SEVERITY), text, and the numbers the text was made from."""
    code: str
    text: str
    severity: str = "warning"
    data: dict = field(default_factory=dict, hash=False, compare=False)


def warning(code: str, text: str, **data) -> dict:
    """The stored form of a warning: {code, severity, text, data}; `data`
    holds the numbers the text was made from, so that warnings of one code
    are grouped and read by those, never by their text."""
    assert code in CODES, code
    return {"code": code, "severity": SEVERITY[code], "text": text, "data": data}


def coded(w) -> dict:
    """A warning in the stored form: the engine's plain text gets code
    `engine` (what older files hold is upgraded on reading:
    core/results/upgrade.py)."""
    w = results.plain(w)
    if isinstance(w, dict) and not isinstance(w.get("text"), str):
        w = dict(w, text=str(w.get("text", "")))
    return upgrade.warning(w if isinstance(w, (str, dict)) else str(w), SEVERITY)


def without(warnings: list, *codes: str) -> list[dict]:
    """`warnings` (any stored form) with those codes left out."""
    return [c for c in map(coded, warnings or []) if c["code"] not in codes]


# ---- analysis of a raw result -------------------------------------------------

def analyse(result, cls: type | None = None) -> results.Result:
    """A raw engine result (the engine's JSON, or a record read back) as
    a Result record, with its summary, verification and judgement-based
    warnings: where engine output becomes a record (idempotent:
    re-analysing recomputes from the samples). The record is `cls`, by
    default the type of a record given, else the core's (what the engine
    writes): a result with a feature's members is the registry's
    (ctxbench.records.RECORDS.Result). results.ValidationError for a
    result the model refuses."""
    r = dict(results.plain(result))
    rec, keep = verification.judge(r)
    rec["dropped_samples"] = [i for i, k in enumerate(keep) if not k]
    samples = r.get("samples") or []
    groups = r.get("group")
    if not isinstance(groups, list) or len(groups) != len(samples):
        groups = None  # an old or foreign file: samples resampled one by one
    kept = [x for x, k in zip(samples, keep) if k and x is not None]
    kept_groups = [g for x, g, k in zip(samples, groups, keep) if k and x is not None] if groups else None
    r["summary"] = stats.summarize(kept, kept_groups)
    r["summary_all"] = stats.summarize(samples, groups) if rec["dropped"] else r["summary"]
    r["summary"]["mde"] = cycles.mde_between_runs(r["summary"])
    r["verification"] = rec
    r["cycles"] = cycles.record_of(r, keep)
    warnings = without(r.get("warnings"), *_OWN)
    s = r["summary"]
    if rec["checked"] and rec["dropped"]:
        why = ", ".join(f"{k}: {v}" for k, v in sorted(rec["reasons"].items()))
        warnings.append(warning("dropped", f"{rec['dropped']} of {len(samples)} samples disturbed and dropped ({why})",
                                dropped=rec["dropped"], samples=len(samples), reasons=dict(rec["reasons"])))
    if rec["checked"] and rec.get("verdict") == "failed":
        warnings.append(warning("verification", "verification failed: the switch counts do not match the method",
                                verdict="failed"))
    elif rec["checked"] and rec.get("verdict") == "not verified":
        warnings.append(warning("verification", f"not verified: {rec['disturbed']} of {len(samples)} samples met "
                                "other load on the CPU; the rest may be the lucky part of a busy machine",
                                verdict="not verified", disturbed=rec["disturbed"], samples=len(samples)))
    if s.get("outliers"):
        warnings.append(warning("outliers", f"{s['outliers']} statistical outliers (> {stats.OUTLIER_MADS:g} MADs "
                                "from the median; kept): an interruption the switch counts cannot see, e.g. the "
                                "hypervisor", outliers=s["outliers"], samples=s["n"]))
    chk = _obj(_obj(r["cycles"].get("clock")).get("check"))
    if chk.get("ok") is False:
        warnings.append(warning("clock_probe", f"the probe's check chain ran {chk['ratio']:.2f}x the add chain per "
                                f"op, not {chk['expected']}x: cycles may be a multiple of core cycles here",
                                ratio=chk["ratio"], expected=chk["expected"]))
    if s["n"] and math.isfinite(s["median"]) and s["median"] < 0:
        warnings.append(warning("negative", "negative derived cost (printed as measured): the subtracted part "
                                "varies more than the quantity itself", median=s["median"]))
    r["warnings"] = warnings
    return codec.record(r, cls or (type(result) if isinstance(result, results.Result) else results.Result))


def relabel_groups(r: dict, label) -> dict:
    """`r` with every group label g made label(g): the samples' `group` and
    the core-clock probe's, which must keep naming the same groups (a
    sweep's round, a task job's rounds after another job's)."""
    r = results.plain(r)  # a result measured and analysed is a record
    out = dict(r)
    if isinstance(r.get("group"), list):
        out["group"] = [label(int(g)) for g in r["group"]]
    probe = r.get("clock_probe")
    if isinstance(probe, dict) and isinstance(probe.get("group"), list):
        out["clock_probe"] = dict(probe, group=[label(int(g)) for g in probe["group"]])
    ch = r.get("chunks")
    if isinstance(ch, dict) and isinstance(ch.get("runs"), list):
        out["chunks"] = dict(ch, runs=[dict(x, group=label(int(x["group"]))) for x in ch["runs"]])
    return out


def append_samples(a: dict, b: dict, per_sample: tuple[str, ...] = ("samples", "group")) -> dict:
    """Raw result `b`'s samples appended to raw result `a`'s (two engine
    jobs of one id: tasks' pilot and the rest, a sweep point's rounds):
    the `per_sample` members, every per-sample array under `raw` and
    `verify`, and every per-group array of the core-clock probe; anything
    else (params, verify's `source`, the probe's constants) is `a`'s.
    Groups are taken as they are: the caller numbers b's after a's
    (relabel_groups). The result is raw again (summary and verification
    come from analyse())."""
    a, b = results.plain(a), results.plain(b)  # a point read back from a file is a record
    out = {k: v for k, v in a.items() if k not in ("summary", "summary_all", "verification", "indirect", "cycles")}
    for k in per_sample:
        out[k] = list(a.get(k) or []) + list(b.get(k) or [])
    for k in ("raw", "verify", "clock_probe"):
        x, y = _obj(a.get(k)), _obj(b.get(k))
        if k == "clock_probe" and not (x and y):  # one side without readings: no cycles for either
            out.pop(k, None)
            continue
        out[k] = {name: (x[name] + y[name] if isinstance(x[name], list) and isinstance(y.get(name), list)
                         else x[name]) for name in x if name in y}
    ca, cb = _obj(a.get("chunks")), _obj(b.get("chunks"))
    if ca or cb:  # the chunk records of both jobs (a job without any has none to add)
        out["chunks"] = dict(ca or cb, runs=list(ca.get("runs") or []) + list(cb.get("runs") or []))
    return out


def with_points(rs: list, points: list) -> list:
    """`rs` with each derived result (a point: tasks', irq's) replaced by
    the one of its id in `points`, in place, so that a re-analysis says
    what changed result by result in the file's order; a point `rs`
    lacks is added at the end."""
    new = {Result(p).id: p for p in points}
    out = [new.pop(Result(r).id, r) if Result(r).derived else r for r in rs]
    return out + list(new.values())


def round_series(results: list[dict], unit: str = "ns") -> tuple[list[int], list[tuple[np.ndarray, np.ndarray]]]:
    """Of the results measured by group: their indices, and per result its
    kept samples with their round labels (stats.drift's series); with
    unit "cycles", of the results cycles apply to, their samples in cycles."""
    which, series = [], []
    for i, r in enumerate(results):
        v = Result(r)
        g = v.groups
        if g is None or (unit == "cycles" and not v.cycles.applies):
            continue
        xs = v.samples if unit == "ns" else v.cycles.samples
        kept = [(float(x), int(k)) for x, k, keep in zip(xs, g, v.keep)
                if keep and x is not None and math.isfinite(finite_or_nan(x))]
        if kept:
            which.append(i)
            series.append((np.array([x for x, _ in kept]), np.array([k for _, k in kept])))
    return which, series


def apply_drift(res: list[dict]) -> tuple[list[dict], dict]:
    """Estimate the machine's common drift from results measured interleaved
    by group and widen each one's interval by it, in ns and, for the
    results cycles apply to, in cycles (what is left of the drift once each
    group's clock is taken out). Returns the results (new ones where
    widened; `res` is not changed) and the record the document keeps:
    rounds, relative sd, per-round factor, and the same in cycles."""
    out, rec = list(res), {}
    for unit in ("ns", "cycles"):
        which, series = round_series(out, unit)
        factor = drift.common_factor(series)
        rel = drift.relative_sd(factor)
        for i in which:
            v = Result(out[i])
            if unit == "ns" and v.summary:
                out[i] = with_members(out[i], summary=with_mde(drift.widen(v.summary.as_dict(), rel)))
            elif unit == "cycles" and v.cycles.summary:
                out[i] = with_members(out[i], cycles=dict(v.cycles.as_dict(), summary=with_mde(
                    drift.widen(v.cycles.summary.as_dict(), rel))))
        unit_rec = {"rounds": int(factor.size), "ids": len(which), "block_rounds": drift.BLOCK,
                    "relative_sd": rel if math.isfinite(rel) else None,
                    "factor": [round(float(x), 6) if math.isfinite(x) else None for x in factor]}
        if unit == "ns":
            rec = unit_rec
        else:
            rec["cycles"] = unit_rec
    return out, rec


def with_members(r, **members):
    """A new result: `r` (a record, or the builtins an analysis is
    building) with `members` set; `r` is not changed. A record whose type
    does not declare one of them (the core's, which analyse makes of an
    engine result, given a feature's member) is builtins again: the
    registry's document() makes it its record."""
    if isinstance(r, msgspec.Struct) and all(hasattr(r, k) for k in members):
        return results.replace(r, **members)
    return dict(results.plain(r), **members)


def with_mde(summary: dict) -> dict:
    """A (new) summary with its MDE between runs made from its interval."""
    return dict(summary, mde=cycles.mde_between_runs(summary))


def apply_next_run(res: list[dict]) -> tuple[list[dict], dict]:
    """For results measured interleaved by group: each one's interval made
    the interval that holds another run's median (stats.drift.next_run:
    this run's rounds, the common drift and the point's own drift). Returns
    the results (new ones where changed; `res` is not changed) and the
    record the document keeps: what apply_drift keeps, plus the pooled
    persistence the own drifts come from."""
    which, series = round_series(res)
    table = drift.log_table(series)
    factor = drift.factor_of(table)
    rel = drift.relative_sd(factor)
    resid = table - factor
    rho = drift.persistence(resid)
    out = list(res)
    for i, row in zip(which, resid):
        s = Result(out[i]).summary
        if s:
            out[i] = with_members(out[i], summary=drift.next_run(s.as_dict(), rel, drift.own_sd(row, rho),
                                                                 int(np.isfinite(row).sum())))
    return out, {"rounds": int(factor.size), "ids": len(which), "block_rounds": drift.BLOCK,
                 "relative_sd": rel if math.isfinite(rel) else None,
                 "persistence": rho if math.isfinite(rho) else None,
                 "interval": "another run's median: sqrt(2) x t x (rounds resampled, common and own drift)",
                 "factor": [round(float(x), 6) if math.isfinite(x) else None for x in factor]}


def document(tool: dict, environment: dict, results_: list, extra: dict | None = None, *,
             records: results.Records) -> results.Document:
    """A ctxbench/2 document: the `records`' Document record (the
    registry's: ctxbench.records.RECORDS) of the engine's tool and
    environment, the results (records or builtins) and the command's
    section and other members (`extra`). results.ValidationError (with the
    JSON path) if it does not fit the model: lifecycle.document keeps such
    a document in a fallback file rather than losing the measurement."""
    from ctxbench.core.writer import jsonable  # nan is null in the file, so None in the record
    doc = {"schema": SCHEMA, "tool": tool, "environment": environment, "results": list(results_)}
    return records.document(jsonable({**doc, **(extra or {})}))


# ---- read-only views ----------------------------------------------------------

_g = results.member  # a member of a record or of its builtins (UNSET: the default)


def _is_record(x) -> bool:
    return isinstance(x, (dict, msgspec.Struct))


def _rec(x):
    """What a view wraps: a record or its builtins; {} for anything else."""
    return x if _is_record(x) else {}


def _obj(x) -> dict:
    """A member as builtins, {} where it is not an object."""
    return x if isinstance(x, dict) else results.plain(x) if isinstance(x, msgspec.Struct) else {}


def _dict_or_none(x) -> dict | None:
    return _obj(x) if _is_record(x) else None


def _reads(*paths: tuple[str, str]):
    """One read-only accessor per (name, path) of a view's record (its
    `get`): the path as it is, None where the record lacks it."""
    def add(cls):
        for name, path in paths:
            setattr(cls, name, property(lambda s, p=path: s.get(p)))
        return cls
    return add


class Summary:
    """stats.summarize's record: numbers as floats, nan where unknown."""
    __slots__ = ("d",)

    def __init__(self, d):
        self.d = _rec(d)

    def __bool__(self) -> bool:
        return bool(self.d) if isinstance(self.d, dict) else True

    median = property(lambda s: finite_or_nan(_g(s.d, "median")))
    # a power.effect record reads as a summary: its estimate is the mean
    mean = property(lambda s: finite_or_nan(_g(s.d, "mean", _g(s.d, "estimate_ns"))))
    mde = property(lambda s: finite_or_nan(_g(s.d, "mde_ns", _g(s.d, "mde"))))
    sd = property(lambda s: finite_or_nan(_g(s.d, "sd_ns", _g(s.d, "stdev"))))
    min = property(lambda s: finite_or_nan(_g(s.d, "min")))
    max = property(lambda s: finite_or_nan(_g(s.d, "max")))
    cv = property(lambda s: finite_or_nan(_g(s.d, "cv")))
    n = property(lambda s: int(_g(s.d, "n") or 0))
    # what the interval is for ("another run", stats.drift) and over what it resampled ("groups"), None if unsaid
    ci95_for = property(lambda s: _g(s.d, "ci95_for"))
    ci95_resampled = property(lambda s: _g(s.d, "ci95_resampled"))
    # a runtimes row's interval over its launches (runtimes/analysis.launch_interval), {} if none
    launch_interval = property(lambda s: _obj(_g(s.d, "launch_interval")))

    @property
    def ci95(self) -> tuple[float, float]:
        ci = _g(self.d, "ci95")
        return (finite_or_nan(ci[0]), finite_or_nan(ci[1])) if isinstance(ci, list) and len(ci) == 2 else (math.nan, math.nan)

    def as_dict(self) -> dict:
        """A copy of the record (builtins), for an analysis that builds a new one from it."""
        return dict(_obj(self.d))


class Effect(Summary):
    """A power.effect record (an effect over rounds, such as a sweep point's
    `indirect`) read as one: a Summary (median = the estimate) plus its
    verdicts, standard error, simultaneous interval and the method that
    made the interval ("" in files from before issue 23, which named none)."""
    __slots__ = ()

    estimate = property(lambda s: finite_or_nan(_g(s.d, "estimate_ns")))
    se = property(lambda s: finite_or_nan(_g(s.d, "se_ns")))
    resolved = property(lambda s: bool(_g(s.d, "resolved")))
    below_mde = property(lambda s: bool(_g(s.d, "below_mde")))
    method = property(lambda s: str(_g(s.d, "method") or ""))
    rounds = property(lambda s: int(_g(s.d, "rounds") or _g(s.d, "n") or 0))
    # its degrees of freedom (rounds - 1), None where it has none (the normal's)
    df = property(lambda s: int(df) if isinstance(df := _g(s.d, "df"), (int, float)) else None)

    @property
    def ci_simultaneous(self) -> tuple[float, float]:
        ci = _g(self.d, "ci_simultaneous")
        return (finite_or_nan(ci[0]), finite_or_nan(ci[1])) if isinstance(ci, list) and len(ci) == 2 else (math.nan, math.nan)


class Cycles:
    """A result in core cycles (core/cycles.py): whether they apply and
    why not, the method (probe or pmu), the run's clock, the summary in
    cycles, and the samples in cycles (each its ns times its group's f)."""
    __slots__ = ("d", "c")

    def __init__(self, result):
        self.d = result
        c = _g(result, "cycles")
        self.c = c if _is_record(c) else {"applies": False, "why": cycles.ns_only_reason(
            {k: _g(result, k) for k in ("id", "quantity", "params")}) or "not analysed in cycles"}

    applies = property(lambda s: bool(_g(s.c, "applies")))
    why = property(lambda s: str(_g(s.c, "why") or ""))
    method = property(lambda s: str(_g(s.c, "method") or ""))
    summary = property(lambda s: Summary(_g(s.c, "summary")))
    clock = property(lambda s: _obj(_g(s.c, "clock")))
    ghz = property(lambda s: finite_or_nan(_obj(_g(s.c, "clock")).get("ghz_median")))

    def as_dict(self) -> dict:
        """A copy of the cycles record (builtins), for an analysis that builds a new one from it."""
        return dict(_obj(self.c))

    @property
    def samples(self) -> list[float]:
        """Every sample in cycles (nan where its group has no clock)."""
        g = _g(self.d, "group")
        s = _g(self.d, "samples") or []
        if not isinstance(g, list) or len(g) != len(s):
            return [math.nan] * len(s)
        return [float(x) for x in cycles.to_cycles(s, g, cycles.group_clock(_obj(_g(self.d, "clock_probe"))))]


class _Parts(dict):
    """A derived result's parts by name; one the file lacks reads as an empty
    summary (every number nan: printed n/a), not a KeyError."""

    def __missing__(self, name: str) -> Summary:
        return Summary({})


class _Effects(dict):
    def __missing__(self, name: str) -> dict:
        return {}


@_reads(*((name, name) for name in ("cpu", "placement", "mechanism", "kind", "parties", "footprint", "pair", "n",
                                    "task", "rate_hz", "policy", "policy_requested", "pinned")))
class Params:
    """A result's params (schema.py declares which kind has which)."""
    __slots__ = ("d",)

    def __init__(self, d):
        self.d = _obj(d)  # a typed map: builtins in the record too

    def get(self, name: str, default=None):
        return self.d.get(name, default)

    def __contains__(self, name: str) -> bool:
        return name in self.d

    def __getitem__(self, name: str):
        return self.d[name]

    def items(self):
        return self.d.items()

    size = property(lambda s: _g(s.d, "size") or 0)
    stride = property(lambda s: _g(s.d, "stride") or 0)


# params that tell two points of one id apart (ring, sweep, tasks, irq)
POINT_PARAMS = ("parties", "footprint", "size", "stride", "pair", "task", "rate_hz")


class Result:
    """One analysed result: a core/results.Result record (or, where an
    analysis still builds one, its builtins)."""
    __slots__ = ("d",)

    def __init__(self, d):
        self.d = d

    id = property(lambda s: str(_g(s.d, "id", "")))
    quantity = property(lambda s: str(_g(s.d, "quantity") or ""))
    unit = property(lambda s: str(_g(s.d, "unit") or ""))
    params = property(lambda s: Params(_g(s.d, "params")))
    summary = property(lambda s: Summary(_g(s.d, "summary")))
    verification = property(lambda s: _obj(_g(s.d, "verification")))
    noise = property(lambda s: _obj(_g(s.d, "noise")))
    # tasks' and irq's chunk timing (core/chunks.py reads it), {} where the engine wrote none
    chunks = property(lambda s: _obj(_g(s.d, "chunks")))
    timing = property(lambda s: _obj(_g(s.d, "timing")))
    counters = property(lambda s: _obj(_g(s.d, "counters")))
    # the engine's per-group core-clock probe readings (core/cycles.py), None if it wrote none
    clock_probe = property(lambda s: _dict_or_none(_g(s.d, "clock_probe")))
    # the wait for a quiet CPU before each group (engine --settle-us), None if not asked
    settle = property(lambda s: _dict_or_none(_g(s.d, "settle")))
    # a ring point's cost above its ping-pong (ring/analysis.py), None if not derived
    above_pingpong = property(lambda s: _dict_or_none(_g(s.d, "above_pingpong")))
    # the anatomy's profiled rung: its sampled call chains (anatomy/attribution.py), {} if none
    profile = property(lambda s: _obj(_g(s.d, "profile")))
    # a runtimes row's: switch kind (kernel_record), resolution, launches' medians, contention
    # (runtimes/analysis.py) and the JVM's flight recording; {} (contention: None) where absent
    kernel = property(lambda s: _obj(_g(s.d, "kernel")))
    resolution = property(lambda s: _obj(_g(s.d, "resolution")))
    launches = property(lambda s: _obj(_g(s.d, "launches")))
    contention = property(lambda s: _dict_or_none(_g(s.d, "contention")))
    jfr = property(lambda s: _obj(_g(s.d, "jfr")))
    # a sweep point's: n per sample (calibrated anew each round; None in files from before it),
    # and what each of its rounds took
    sample_n = property(lambda s: x if isinstance(x := _g(s.d, "sample_n"), list) else None)
    round_cost_s = property(lambda s: list(_g(s.d, "round_cost_s") or []))
    # a result the front end derived (tasks' and irq's points): it has parts, maybe empty
    derived = property(lambda s: isinstance(_g(s.d, "parts"), dict))

    @property
    def kind(self) -> schema.Kind | None:
        return schema.kind_of({k: _g(self.d, k) for k in ("id", "params", "parts")})

    @property
    def cycles(self) -> Cycles:
        return Cycles(self.d)

    @property
    def samples(self) -> list:
        return _g(self.d, "samples") or []

    @property
    def groups(self) -> list | None:
        g = _g(self.d, "group")
        return g if isinstance(g, list) and len(g) == len(self.samples) else None

    @property
    def rounds(self) -> list:
        """The round (group) of each run as written, [] if none: unlike
        `groups`, also where a derived result keeps more runs than samples
        (irq's points keep every run's raw parts, samples only of the kept)."""
        g = _g(self.d, "group")
        return g if isinstance(g, list) else []

    @property
    def keep(self) -> list[bool]:
        """Per sample: kept by the verification (judged once, by analyse)."""
        v = self.verification
        if "dropped_samples" not in v:  # not analysed (a derived result): judge its counts here
            return verification.judge(_obj(self.d))[1]
        dropped = set(v.get("dropped_samples") or [])
        return [i not in dropped for i in range(len(self.samples))]

    @property
    def verified(self) -> tuple[str, bool]:
        """The verification in a word for a table cell, and whether it failed."""
        v = self.verification
        if not v.get("checked"):
            return "-", False
        verdict = v.get("verdict") or ("ok" if v.get("ok") else "failed")  # files before verdicts: ok or not
        disturbed = v.get("disturbed", v.get("dropped") or 0)
        if verdict == "ok":
            return "ok" + (f" ({v['dropped']} disturbed, dropped)" if v.get("dropped") else ""), False
        if verdict == "not verified":
            return f"NOT VERIFIED ({disturbed} of {len(self.samples)} disturbed)", True
        return f"FAILED ({v.get('failed', v.get('dropped'))} without the method's switches)", True

    def round_medians(self, values=None) -> dict[int, float]:
        """Per round (group), the median of its kept finite samples (or of
        `values`, one per sample, such as a raw component): what a paired
        design compares round by round (ring, sweep, anatomy)."""
        g = self.groups
        if g is None:
            return {}
        vals = self.samples if values is None else list(values)
        if len(vals) != len(g):
            return {}
        by: dict[int, list[float]] = {}
        for x, k, keep in zip(vals, g, self.keep):
            if keep and isinstance(x, (int, float)) and math.isfinite(x):
                by.setdefault(int(k), []).append(float(x))
        return {k: float(np.median(xs)) for k, xs in by.items()}

    def raw(self, name: str) -> np.ndarray:
        return np.asarray(_obj(_g(self.d, "raw")).get(name) or [], dtype=float)

    def counts(self, name: str) -> list:
        """A per-sample count written under `verify` (voluntary,
        involuntary, migrations, ...), [] if absent; `verify_source`: who
        counted."""
        v = _obj(_g(self.d, "verify")).get(name)
        return v if isinstance(v, list) else []

    verify_source = property(lambda s: _obj(_g(s.d, "verify")).get("source"))

    @property
    def parts(self) -> dict[str, Summary]:
        return _Parts((k, Summary(v)) for k, v in _obj(_g(self.d, "parts")).items())

    @property
    def effects(self) -> dict:
        """A derived result's parts as written: effect records
        (stats.power.effect: estimate_ns, ci95, se_ns, mde_ns, below_mde,
        ...) for ui.format.fmt_effect, or plain numbers (irq's I_pct); a
        missing part reads as {}."""
        return _Effects((k, _obj(v) if isinstance(v, msgspec.Struct) else v)
                        for k, v in _obj(_g(self.d, "parts")).items())

    @property
    def indirect(self) -> Effect | None:
        ind = _g(self.d, "indirect")
        return Effect(ind) if _is_record(ind) else None

    def per_message(self, name: str) -> np.ndarray:
        """A raw per-sample time divided by that sample's n (the sweep's
        `sample_n`, else params.n): nanoseconds per message; samples without
        a positive n are left out."""
        t = self.raw(name)
        ns = _g(self.d, "sample_n")
        ns = ns if isinstance(ns, list) and len(ns) == t.size else [self.params.n] * t.size
        return np.array([x / n for x, n in zip(t, ns)
                         if isinstance(n, (int, float)) and not isinstance(n, bool) and n > 0 and math.isfinite(x)])

    @property
    def warnings(self) -> list[Note]:
        return [Note(**coded(w)) for w in _g(self.d, "warnings") or []]

    def warnings_stored(self, *leave_out: str) -> list[dict]:
        """The warnings in their stored form (what ui.warnings groups),
        without the codes `leave_out`."""
        return without(_g(self.d, "warnings"), *leave_out)

    @property
    def point_key(self) -> str:
        """The id, plus the params that tell two points of it apart."""
        p = self.params
        extra = ",".join(f"{k}={p.get(k)}" for k in POINT_PARAMS
                         if k in p and not (k in ("size", "stride") and not p.get(k)))
        return self.id + (f" [{extra}]" if extra else "")


def is_sweep_point(r: dict) -> bool:
    """A point of a working-set sweep: it has a working set (stride-0 points
    too: their size is set) or its indirect cost; outside a sweep file, the
    size tells. Both the run's and the sweep's part of the report ask it
    (the run's leaves these points to the sweep's)."""
    k = Result(r).kind
    return _g(r, "indirect", _ABSENT) is not _ABSENT or ((k.name if k else "") in ("switch", "selftest") and bool(Result(r).params.size))


def median_of(results: list[dict], rid: str) -> float | None:
    """The (finite) median of the result with this id, None if absent."""
    for r in map(Result, results):
        if r.id == rid and math.isfinite(r.summary.median):
            return r.summary.median
    return None


_ABSENT = object()


# uname -m (machine); --no-idle held the CPUs (idle_held); what the front end
# checks before measuring on a host it cannot read (--host: allowed_cpus ..
# cgroup_memory_room); ARM: cntvct's rate (absent on x86 and ARMv7) and how
# the calibrated one differs from it; ARMv7: whether user space may read the
# PMU cycle counter (absent elsewhere), and why not
@_reads(
    ("hostname", "hostname"), ("cpu_model", "cpu.model"), ("microcode", "cpu.microcode"),
    ("cpus_online", "cpu.online"), ("kernel_release", "kernel.release"),
    ("hypervisor", "virtualization.hypervisor_vendor"), ("cycle_hz", "timers.cycle_hz"),
    ("cpu_flags", "cpu.flags_of_interest"), ("cores", "topology.cores"),
    ("threads_per_core", "topology.threads_per_core"), ("topology_source", "topology.source"),
    ("kernel_version", "kernel.version"), ("cmdline", "kernel.cmdline"), ("clocksource", "kernel.clocksource"),
    ("preempt", "kernel.preempt"), ("preempt_banner", "kernel.preempt_banner"), ("isolated", "kernel.isolated"),
    ("machine", "kernel.machine"), ("allowed_cpus", "process.allowed_cpus"),
    ("mem_available", "process.mem_available"), ("rlimit_as", "process.rlimit_as"),
    ("cgroup_memory_room", "process.cgroup_memory_room"), ("nohz_full", "kernel.nohz_full"),
    ("sched_rt_runtime_us", "kernel.sched_rt_runtime_us"), ("sched_rt_period_us", "kernel.sched_rt_period_us"),
    ("intel_no_turbo", "frequency.intel_no_turbo"), ("boost", "frequency.boost"), ("idle_driver", "idle.driver"),
    ("idle_held", "idle.cpu_dma_latency_held_at_0"), ("no_idle_error", "idle.no_idle_error"),
    ("emulated", "virtualization.emulated"), ("emulator", "virtualization.emulator"),
    ("emulation_evidence", "virtualization.emulation_evidence"),
    ("dmi_product_name", "virtualization.dmi_product_name"), ("hardware_counters", "perf.hardware_counters"),
    ("software_counters", "perf.software_counters"), ("hardware_error", "perf.hardware_error"),
    ("sched_fifo_allowed", "process.sched_fifo_allowed"), ("sched_fifo_error", "process.sched_fifo_error"),
    ("mlockall", "process.mlockall"), ("mlockall_error", "process.mlockall_error"),
    ("cycle_counter", "timers.cycle_counter"), ("cntfrq_el0", "timers.cntfrq_el0"),
    ("cntfrq_vs_calibrated", "timers.cntfrq_vs_calibrated"), ("pmccntr_usable", "timers.pmccntr_usable"),
    ("pmccntr_probe", "timers.pmccntr_probe"))
class Environment:
    """The environment record (env.c); paths declared in schema.ENVIRONMENT.
    Made from the record or from another view of it (so that a function
    can take either). A path the record lacks reads as None."""
    __slots__ = ("d",)

    def __init__(self, d):
        self.d = d.d if isinstance(d, Environment) else _rec(d)

    def get(self, path: str):
        assert path in schema.ENVIRONMENT or path in schema.ENVIRONMENT_OPTIONAL, path
        x = self.d
        for step in path.split("."):
            x = _g(x, step) if _is_record(x) else None
        return results.plain(x)

    is_vm = property(lambda s: bool(s.get("virtualization.is_vm")))
    # whether a VM, None where the record does not say (is_vm: False then)
    vm = property(lambda s: v if isinstance(v := s.get("virtualization.is_vm"), bool) else None)
    mitigations = property(lambda s: _obj(s.get("mitigations")))
    governors = property(lambda s: _obj(s.get("frequency.governors")))
    smt_siblings = property(lambda s: s.get("topology.smt_siblings") or [])
    caches = property(lambda s: s.get("topology.caches") or [])
    dtlb = property(lambda s: s.get("tlb.dtlb") or [])
    idle_states = property(lambda s: s.get("idle.states") or [])

    def as_dict(self) -> dict:
        """A copy of the record (builtins), for a document built from it."""
        return dict(_obj(self.d))

    @property
    def label(self) -> str:
        """Hostname, CPU, kernel and VM-ness, for the corner of a figure."""
        vm = f", virtual machine ({self.hypervisor or 'guest'})" if self.is_vm else ""
        n = f", {self.cpus_online} CPUs" if self.cpus_online else ""
        return (f"{self.hostname or '?'}: {self.cpu_model or 'unknown CPU'}{vm}{n}, "
                f"Linux {self.kernel_release or '?'}")


class Document:
    """A results document: the core/results.Document record the reader
    or a command (document()) made; the builtins of one are read the same."""
    __slots__ = ("d",)

    def __init__(self, d):
        self.d = d

    environment = property(lambda s: Environment(_g(s.d, "environment")))
    tool = property(lambda s: _obj(_g(s.d, "tool")))
    # ids a run could not measure ({id, error}: run/command.py), [] if none
    failures = property(lambda s: results.plain(_g(s.d, "failures") or []))
    # the results as stored, for the analyses that take records; a loaded document's
    # were analysed by the reader
    records = property(lambda s: list(_g(s.d, "results") or []))
    # whether it has a results list at all (a document kept elsewhere, read back)
    has_results = property(lambda s: isinstance(_g(s.d, "results"), list))

    def section(self, name: str | None = None) -> results.Section | dict | None:
        """A command's own section ("run", "sweep", ...: the registry's
        commands), by default the one of the command that wrote it; None if
        absent. Its members are read as a record's (results.member); the
        records only that command reads back are typed maps
        (<command>/record.py). Of a document's builtins, its builtins."""
        name = name or self.command
        sec = _g(self.d, name) if name else None
        return sec if isinstance(sec, (results.Section, dict)) else None

    @property
    def command(self) -> str | None:
        """The command that wrote it, None if unknown: its first object
        the core does not declare, as every writer puts its section before
        a feature's other members (a fleet's host record: the fleet's `env`
        job writes no section, and then it is "fleet"). One rule for a
        record and its builtins (a store's kept document, as a migration
        reads it), so that the store's digest of either is the same."""
        core = results.Document.__struct_fields__
        names = self.d.__struct_fields__ if isinstance(self.d, msgspec.Struct) else list(_obj(self.d))
        return next((k for k in names if k not in core and _is_record(_g(self.d, k))), None)

    @property
    def results(self) -> list[Result]:
        return [Result(r) for r in _g(self.d, "results") or []]
