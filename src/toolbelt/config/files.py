"""Reading a configuration file the project did not write: settings, trusted workspaces.

A settings file can arrive with a cloned repository, so it is untrusted input: a symlink to
``/dev/zero`` would be read until memory runs out, a FIFO would block the reader forever, and
a file of gigabytes would be parsed whole. Only a regular file is read (a symlink to one is
fine: dotfiles are often linked), at most ``MAX_CONFIG_BYTES``, decided on the opened
descriptor; the JSON is parsed strictly (``core.strict_json``), so a second ``"permissions"``
key cannot silently replace the first one's deny rules.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from toolbelt.core.errors import ConfigFileError
from toolbelt.core.strict_json import strict_loads

__all__ = ["MAX_CONFIG_BYTES", "ConfigFileError", "load_json_config", "read_config_text"]

MAX_CONFIG_BYTES = 1024 * 1024
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def read_config_text(path: Path) -> str | None:
    """The text of ``path`` (a BOM some editors add is dropped); None when it does not exist."""
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigFileError(f"{path}: cannot be read ({exc.strerror}).") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ConfigFileError(
            f"{path}: not a regular file, so it is not read; replace it with a plain JSON file."
        )
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigFileError(
            f"{path}: larger than {MAX_CONFIG_BYTES // 1024} KiB, the most a configuration "
            "file may hold; remove what it does not need."
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8.") from exc


def load_json_config(path: Path) -> Any:
    """``path`` parsed as strict JSON (None when it does not exist); ConfigFileError if bad."""
    text = read_config_text(path)
    if text is None:
        return None
    try:
        return strict_loads(text)
    except ValueError as exc:  # JSONDecodeError and StrictJsonError
        raise ConfigFileError(f"{path}: not accepted as JSON ({exc}).") from exc
