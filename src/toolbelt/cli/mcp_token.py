"""The HTTP door's own bearer token: one per port, kept until the user renews it.

A client's saved configuration (``claude mcp add --transport http … --header
"Authorization: Bearer …"``, an IDE's ``mcp.json``) names a URL — so a port — and a token
together. A token made afresh at every start, and deleted at every stop, broke each saved
configuration at the next restart. So the token is kept per port, not per workspace: the same
address keeps answering to the same token whichever workspace the server is started on, and
two servers on two ports never share one. ``--rotate-token`` replaces it (every saved
configuration must then be updated), and so does finding the file readable by others.

The file lives under the user's state directory (``$XDG_STATE_HOME/toolbelt/tokens/
mcp-PORT.token``), mode 0600 in a 0700 directory, written atomically. It is a secret to the
tools: the sandbox hides the directory from commands (``core.secret_paths``), and reading or
writing it with a file tool asks (``config.user_config``) — a command that could rewrite it
could choose the next server's token.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from toolbelt.config.state import user_state_dir
from toolbelt.files.atomic import replace_file

__all__ = ["kept_token", "run_token", "token_path", "tokens_dir"]


def tokens_dir(home: Path | None = None) -> Path:
    """The directory of the kept tokens (``$XDG_STATE_HOME/toolbelt/tokens``)."""
    return user_state_dir(home) / "tokens"


def token_path(port: int) -> Path:
    """Where the token of the server on ``port`` is kept."""
    return tokens_dir() / f"mcp-{port}.token"


def kept_token(port: int, *, rotate: bool = False) -> tuple[Path, str, str]:
    """(the file, the token, why it replaced the one kept: "" when the kept one is used, or
    when there was none).

    A new token is made when there is none yet, when ``rotate`` asks for it, or when the
    file is not a private regular file of this user (whoever could read it could call the
    tools). ``OSError`` when the directory cannot be made or the file written."""
    path = token_path(port)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    kept, problem = _read_private(path)
    if kept and not rotate:
        return path, kept, ""
    token = _new_token()
    _write_private(path, token)
    if rotate:
        why = f"a new token was made for port {port} (--rotate-token): update saved clients"
    elif problem:
        why = f"a new token was made for port {port}: {problem}"
    else:
        why = ""  # the first one: nothing was replaced
    return path, token, why


def run_token(port: int) -> tuple[Path, str]:
    """(the file, the token) of a server on a port the system picked (``--port 0``): made
    afresh, since no saved client names such a port; the server removes it when it stops."""
    path = token_path(port)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = _new_token()
    _write_private(path, token)
    return path, token


def _new_token() -> str:
    import secrets  # the HTTP door's alone: stdio starts without it

    return secrets.token_urlsafe(32)


def _read_private(path: Path) -> tuple[str, str]:
    """(the token, "") from a private file; ("", what is wrong) otherwise ("", "" if absent)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return "", ""
    except OSError as exc:
        return "", f"the old file could not be read ({exc.strerror})"
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            return "", "the old file was not a regular file of this user"
        if info.st_mode & 0o077:
            return "", "the old file could be read by other users"
        token = handle.read(4096).decode("utf-8", "replace").strip()
    return token, "" if token else "the old file was empty"


def _write_private(path: Path, token: str) -> None:
    """Replace ``path`` atomically with a 0600 file holding ``token``."""
    replace_file(path, (token + "\n").encode(), mode=0o600)
