"""Why an SSH step failed, in the words a host's row or a --host line
gives (asyncssh's exceptions, said as what the user can act on)."""
from __future__ import annotations

import asyncio
import concurrent.futures


def why(e: BaseException) -> str:
    import asyncssh
    if isinstance(e, asyncssh.PermissionDenied):
        return "the server refused the key (permission denied)"
    if isinstance(e, asyncssh.HostKeyNotVerifiable):
        return f"host key not verified ({e.reason}): add it to known_hosts"
    if isinstance(e, ConnectionRefusedError):
        return "connection refused (no SSH server listening)"
    if isinstance(e, asyncssh.ConnectionLost):
        return f"connection lost ({e.reason})"
    if isinstance(e, asyncssh.DisconnectError):
        return f"disconnected ({e.reason})"
    if isinstance(e, (asyncio.TimeoutError, TimeoutError, concurrent.futures.TimeoutError)):  # before OSError
        return "timed out"
    if isinstance(e, FileNotFoundError) and e.filename:  # a key file the ssh config names
        return f"{e.filename}: no such file"
    if isinstance(e, OSError):
        return f"unreachable ({e.strerror or e})"
    return f"{type(e).__name__}: {e}"
