"""Where toolbelt keeps what must outlive a run but is neither configuration nor cache: the
HTTP server's token, the notices already shown (``$XDG_STATE_HOME/toolbelt``, after the XDG
base directory specification; ``~/.local/state/toolbelt`` when the variable is unset or not an
absolute path)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["user_state_dir"]


def user_state_dir(home: Path | None = None) -> Path:
    """``$XDG_STATE_HOME/toolbelt`` or ``~/.local/state/toolbelt``; an explicit ``home``
    stands for the whole user environment, as in ``config.trust.user_config_dir``."""
    state = os.environ.get("XDG_STATE_HOME", "")
    if home is not None or not os.path.isabs(state):
        state = str((home or Path.home()) / ".local" / "state")
    return Path(state) / "toolbelt"
