"""The results document: schema, tool, environment, results, the checks
and failures of the commands that make them, and the section of the
command that wrote it (one of core/schema.COMMANDS; fleet adds its own
record of the host beside the run's)."""
from __future__ import annotations

from typing import Literal, Union

from msgspec import UNSET, UnsetType

from ctxbench.core.results import sections as s
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


class Document(Closed, frozen=True, kw_only=True):
    schema: Literal["ctxbench/2"]
    tool: Union[Tool, UnsetType] = UNSET
    environment: Union[Environment, UnsetType] = UNSET
    results: list[Result]
    checks: Union[list[Check], UnsetType] = UNSET          # run, ring, anatomy
    failures: Union[list[Failure], UnsetType] = UNSET      # run, ring, runtimes, peers
    # the command's own section
    run: Union[s.Run, UnsetType] = UNSET
    ring: Union[s.Ring, UnsetType] = UNSET
    sweep: Union[s.Sweep, UnsetType] = UNSET
    tasks: Union[s.Tasks, UnsetType] = UNSET
    irq: Union[s.Irq, UnsetType] = UNSET
    noise: Union[s.Noise, UnsetType] = UNSET
    anatomy: Union[s.Anatomy, UnsetType] = UNSET
    runtimes: Union[s.Runtimes, UnsetType] = UNSET
    userbench: Union[s.Userbench, UnsetType] = UNSET
    peers: Union[s.Peers, UnsetType] = UNSET
    fleet: Union[s.Fleet, UnsetType] = UNSET
    # runtimes: how a launch was judged disturbed, and probes that failed
    contention: Union[dict[str, Json], UnsetType] = UNSET
    clock_probe_failures: Union[list[str], UnsetType] = UNSET
