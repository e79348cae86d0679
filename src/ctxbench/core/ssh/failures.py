"""Why an SSH step failed, in the words a host's row or a --host line
gives (asyncssh's exceptions, said as what the user can act on)."""
from __future__ import annotations

import asyncio
import concurrent.futures


def why(e: BaseException, checked=None) -> str:
    """`checked` (core/ssh/preflight.Checked, where the caller has it) tells
    a key that changed from an unknown one, and a refusal of the keys
    offered from one of a passphrase-protected key never offered."""
    import asyncssh
    if isinstance(e, asyncssh.PermissionDenied):
        if checked is not None and checked.encrypted:
            key = checked.encrypted[0]
            return (f"the server refused the keys offered (permission denied): {key} is passphrase-protected, "
                    f"and ctxbench asks for no passphrase: it cannot be used without an agent (ssh-add {key})")
        return "the server refused the key (permission denied)"
    if isinstance(e, asyncssh.HostKeyNotVerifiable):
        if checked is not None and (known := checked.key_known()):  # as OpenSSH's warning says it
            return (f"the host's key has CHANGED: it is not the one {known} holds for {checked.host}; someone "
                    "may be in the middle (a man-in-the-middle attack), or the host was reinstalled: check its "
                    "key with its administrator before you replace the old one")
        return f"host key not verified ({e.reason}): add it to known_hosts"
    if isinstance(e, asyncssh.ChannelOpenError):  # sshd's MaxSessions 1: ctxbench needs two sessions at once
        return (f"the server refused another session on the connection ({e.reason}): ctxbench needs two at "
                "once (is its sshd's MaxSessions below 2?)")
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
