"""Which store a measuring command records its run in (without importing
SQLAlchemy): --store, else $CTXBENCH_STORE, else `store = "..."` in the
config file ($XDG_CONFIG_HOME/ctxbench/config.toml, else
~/.config/ctxbench/config.toml), else the default SQLite file in the data
directory (None here, db.default_url() there); "off" (or --no-store)
records nothing."""
from __future__ import annotations

import os

from ctxbench.core.errors import UserError, shown

STORE_ENV = "CTXBENCH_STORE"
OFF = "off"


def config_path() -> str:
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "ctxbench", "config.toml")


def _from_config() -> str | None:
    try:
        import tomllib  # the standard library's TOML reader (Python 3.11)
    except ImportError:  # older Pythons: the same reader, packaged (pyproject.toml)
        import tomli as tomllib
    path = config_path()
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"config file {shown(path)}: {getattr(e, 'strerror', None) or e}")
    value = data.get("store")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"config file {shown(path)}: store must be a SQLite path, a postgresql:// URL or \"off\"")
    return value.strip()


def chosen(flag: str | None) -> str | None:
    if flag:
        return flag
    env = os.environ.get(STORE_ENV, "").strip()
    return env or _from_config()
