"""The session's one catalogue of protected paths, and where the user's configuration is.

Built on first use (``session_protections``) and handed to the path guard, the policy and the
sandbox, so a location protected for one of them is protected for all three.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolbelt.config.state import user_state_dir
from toolbelt.config.trust import user_config_dir
from toolbelt.core.context import Session
from toolbelt.paths.protections import Protections
from toolbelt.paths.user_config import UserConfig

__all__ = ["current_user_config", "session_protections"]


def session_protections(session: Session, *, hidden: tuple[Path, ...] = ()) -> Protections:
    """The session's one catalogue of protected paths, built on first use from its roots and
    the user's configuration directories (``hidden``: more paths for the sandbox to hide, on
    that first use). The path guard, the policy and the sandbox all take it from here."""
    return session.resource(
        Protections,
        lambda: Protections(session.roots, user_config=current_user_config(), hidden=hidden),
    )


def current_user_config() -> UserConfig:
    """Where this process's user keeps their configuration (``HOME``, ``XDG_CONFIG_HOME``,
    ``XDG_RUNTIME_DIR`` as they are now)."""
    home = Path.home()
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    # where `toolbelt mcp --http` keeps its tokens (``cli.mcp_token``), for $XDG_STATE_HOME as
    # it is now and as the default: secrets as a whole, like the configuration
    tokens = (user_state_dir() / "tokens", user_state_dir(home) / "tokens")
    return UserConfig.at(
        (user_config_dir(), home / ".config" / "toolbelt", *tokens),
        home=home,
        runtime_dir=Path(runtime) / "toolbelt" if os.path.isabs(runtime) else None,
    )
