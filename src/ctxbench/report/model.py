"""The report as plain data, before any format: sections holding text,
tables and figures. The HTML and Markdown writers escape every string they
take from here, so no renderer has to think about escaping."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class Figure:
    title: str
    png: bytes
    caption: str = ""


@dataclass
class Note:
    """A line a section's renderer says about its part (what the file does
    not keep, and how to have it), placed among the section's notes."""
    text: str
    level: str = "info"


@dataclass
class Section:
    title: str
    paragraphs: list[str] = field(default_factory=list)
    items: list[tuple[str, str]] = field(default_factory=list)   # (level, text) findings
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    # warnings about the results, one line per kind: after the figures and
    # tables, so the report opens with what was measured
    notes: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Report:
    title: str
    subtitle: str
    sections: list[Section] = field(default_factory=list)
