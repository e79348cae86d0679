"""The results document's closed core: schema, tool, environment,
results, and the checks and failures of the commands that make them.
The section of the command that wrote it (named after the command) and
the other members a feature adds (fleet's record of the host, runtimes'
contention) are declared in the feature's package and added by the
registry (registry.py)."""
from __future__ import annotations

from typing import Literal, Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results.base import Closed, Json, Open
from ctxbench.core.results.environment import Environment, Tool
from ctxbench.core.results.result import Result

SCHEMA = "ctxbench/2"


class Check(Closed, frozen=True):
    """A finding about the environment or a result (core/checks.Finding)."""
    level: str
    topic: str
    what: str
    hint: str
    subject: str
    data: dict[str, Json]


class Failure(Open, frozen=True):
    """An id the engine (or a runtime's harness) could not measure."""
    id: str
    error: str


class Section(Open, frozen=True):
    """A measuring command's own section of the document, named after the
    command: what it was asked (preset, engine arguments), how it ran
    (`started`, `housekeeping`: where the front end ran) and the records of
    its own analysis, which each command declares in its package (its
    `record.py`). Sections are open records: members of older files (tasks'
    and irq's `repeat`, from before rounds) are kept in `extra`."""
    started: Union[str, None, UnsetType] = UNSET
    housekeeping: Union[dict[str, Json], UnsetType] = UNSET
    preset: Union[str, UnsetType] = UNSET
    engine_args: Union[list[str], UnsetType] = UNSET


class Document(Closed, frozen=True, kw_only=True):
    schema: Literal["ctxbench/2"]
    tool: Union[Tool, UnsetType] = UNSET
    environment: Union[Environment, UnsetType] = UNSET
    results: list[Result]
    checks: Union[list[Check], UnsetType] = UNSET          # run, ring, anatomy
    failures: Union[list[Failure], UnsetType] = UNSET      # run, ring, runtimes, peers
