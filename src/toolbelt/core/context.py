"""Session state and the per-call context a tool runs with.

``Session`` is what lives as long as one conversation (or one MCP client): the workspace
roots, the current directory, limits, and per-session resources that tools create lazily —
the read tracker, the todo list, the persistent shell, background jobs. Resources are keyed by
their type so each tool module owns its own state class without the core knowing about it;
``aclose`` closes them all (killing every process the session started).

``ToolContext`` is what one call sees: the session, its call id, a way to report progress and
diffs, a cancellation flag that code running in worker threads can poll, ``visible(path)``
(the one filter every listing tool applies; ``listing_judge`` gives its answers for many
files of one directory tree at a few string tests a file), the user channel and, once the
policy approved the call, the access it approved.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from toolbelt.core.access import Access
from toolbelt.core.errors import FatalError, UsageError
from toolbelt.core.events import DiffEvent, EventBus, ProgressEvent
from toolbelt.core.listing import ListingJudge, listing_judge
from toolbelt.core.programs import count_workspace
from toolbelt.core.resource import AsyncResource
from toolbelt.core.secret_paths import holds_secret, secret_location
from toolbelt.core.user import NoUser, UserChannel

__all__ = ["Session", "SessionConfig", "ToolContext", "ToolModel"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """Limits and switches that apply to every call in a session."""

    max_concurrency: int = 10
    """How many read-only calls may run at once."""
    require_read_before_write: bool = True
    """Writes to existing files need a prior read in this session (off for one-shot CLI calls)."""
    background_jobs: bool = True
    """Whether bash may start background jobs; off where nothing could tie a later
    ``bash_output`` or ``kill_shell`` call to the job (MCP's stateless HTTP requests)."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Tool-specific settings, keyed by tool name."""


class Session(AsyncResource):
    """One conversation's state: roots, cwd, config and lazily created resources."""

    def __init__(
        self,
        root: str | Path = ".",
        *,
        add_dirs: Sequence[str | Path] = (),
        config: SessionConfig | None = None,
        session_id: str | None = None,
    ) -> None:
        self.id = session_id or os.urandom(8).hex()  # 16 hex digits; no uuid module to load
        self.root = _existing_dir(root, "workspace root")
        self.add_dirs = tuple(_existing_dir(d, "additional directory") for d in add_dirs)
        count_workspace(self.roots)  # toolbelt's own programs are never taken from here
        self.cwd = self.root
        self.config = config or SessionConfig()
        self._resources: dict[type[Any], Any] = {}
        self._lock = threading.Lock()
        self._closed = False
        self.trusted: bool | None = None
        """Whether the user trusts the workspace (None: look it up); untrusted, git runs with
        the repository's program-starting settings neutralised (``shell.git_env``)."""

    def add_directories(self, directories: Sequence[str | Path]) -> None:
        """Count ``directories`` as inside the workspace too (settings'
        ``additionalDirectories``); call before the first tool call, which fixes the guard."""
        more = (_existing_dir(d, "additional directory") for d in directories)
        self.add_dirs = tuple(dict.fromkeys((*self.add_dirs, *more)))
        count_workspace(self.add_dirs)

    @property
    def roots(self) -> tuple[Path, ...]:
        """Every directory whose contents count as inside the workspace."""
        return (self.root, *self.add_dirs)

    @property
    def closed(self) -> bool:
        """True once ``aclose`` has run; no call may use the session afterwards."""
        return self._closed

    def resource(self, kind: type[T], factory: Callable[[], T] | None = None) -> T:
        """Return this session's instance of ``kind``, creating it on first use.

        ``factory`` defaults to ``kind()``. Resources with an ``aclose`` or ``close`` method
        are closed, newest first, when the session closes.
        """
        if self._closed:
            raise FatalError("The session is closed; start a new session to run more tools.")
        with self._lock:
            existing = self._resources.get(kind)
            if existing is None:
                existing = factory() if factory is not None else kind()
                self._resources[kind] = existing
            return cast(T, existing)

    def provide(self, kind: type[T], value: T) -> None:
        """Make ``value`` this session's ``kind``, replacing one provided before: a choice the
        runtime makes for the tools (the sandbox settings) before they first read it."""
        if self._closed:
            raise FatalError("The session is closed; start a new session to run more tools.")
        with self._lock:
            self._resources[kind] = value

    def peek(self, kind: type[T]) -> T | None:
        """The resource of ``kind`` if it was created, without creating it."""
        return cast("T | None", self._resources.get(kind))

    async def aclose(self) -> None:
        """Close every resource (ending every process the session started); safe to repeat."""
        if self._closed:
            return
        self._closed = True
        resources = list(self._resources.values())
        self._resources.clear()
        for resource in reversed(resources):
            closer = getattr(resource, "aclose", None)
            if closer is not None:
                await closer()
                continue
            sync_closer = getattr(resource, "close", None)
            if sync_closer is not None:
                sync_closer()

    def __repr__(self) -> str:
        return f"<Session {self.id} root={str(self.root)!r}>"


def _existing_dir(path: str | Path, what: str) -> Path:
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_dir():
        raise UsageError(f"The {what} {str(path)!r} is not an existing directory.")
    return resolved


class ToolModel(Protocol):
    """What a tool sees of the runtime's small model: ``providers.model.ModelClient``'s shape,
    as a protocol because that contract imports the executor, which imports this module."""

    model: str
    context_window: int

    def stream(self, request: Any) -> AsyncIterator[Any]:
        """``ModelClient.stream``: a ``ModelRequest`` in, ``ModelEvent``s out."""
        ...


@dataclass(slots=True)
class ToolContext:
    """Everything one call may use besides its arguments."""

    session: Session
    call_id: str
    tool_name: str
    events: EventBus
    cancelled: bool = False
    """Becomes True when the call is cancelled; blocking code in worker threads polls it."""
    scratch: dict[str, Any] = field(default_factory=dict)
    """Per-call memo: what ``access`` computed (a loaded file, a planned edit) for ``run``."""
    read_check: Callable[[Path], bool] | None = None
    """Set by the executor: whether a read of a path would be allowed without asking."""

    def may_quote(self, path: Path) -> bool:
        """Whether this call's output may show ``path``'s content.

        Only what a read of that file would have been allowed to show without asking: not
        past a read-deny rule, not a ``.env`` file, not outside the workspace unless approved.
        True when no policy is in play (a tool run directly, without an executor).
        """
        return self.read_check is None or self.read_check(path)

    hidden: Callable[[Path], bool] | None = None
    """What listings leave out (``PermissionPolicy.hidden_paths``: read-denied paths and
    secrets whose read asks, such as ``.env``); None: nothing."""
    user: UserChannel = field(default_factory=NoUser)
    """Reaches the person: a question, a message (beside the permission requester)."""
    answer_timeout: float = 300.0
    """How long a question to the person may wait: the executor's permission timeout, so a
    tool's question and a permission prompt give up alike."""
    model: ToolModel | None = None
    """A (small, cheap) model tools may use, such as web_fetch condensing a page against its
    prompt; None when the runtime has none."""
    access: Access | None = None
    """What the policy approved for this call, set by the executor before ``run``: a command
    runs as its ``CommandAccess`` says (the sandbox profile chosen when it was judged). None
    when the tool runs without an executor."""

    def visible(self, path: Path) -> bool:
        """Whether a listing (grep, glob, ls) may show ``path``: what a read-deny rule
        covers is left out, as reading it would be refused, and so are the user's secrets
        (``~/.ssh``... see ``secret_paths``), which reading asks for in every mode."""
        if secret_location(path) is not None:
            return False
        return self.hidden is None or not self.hidden(path)

    def hides_below(self, directory: Path) -> bool:
        """Whether a listing of ``directory`` must pass its paths through ``visible``: a
        read-deny rule is in play, or a secret location lies below it."""
        return self.hidden is not None or holds_secret(directory)

    def listing_judge(self, directory: Path) -> ListingJudge | None:
        """For a listing of many files below ``directory`` (grep, glob): a judge of each path
        relative to it, with what ``os.stat`` said of it, that answers as ``not visible``
        does while asking what a directory decides once per directory (``core.listing``);
        None when nothing below ``directory`` can be hidden (``hides_below``)."""
        if not self.hides_below(directory):
            return None
        return listing_judge(directory, self.visible, self.hidden)

    @property
    def hides_paths(self) -> bool:
        """Whether ``visible`` can be False at all (listings skip the filter otherwise)."""
        return self.hidden is not None

    @property
    def cwd(self) -> Path:
        """The session's current directory (bash ``cd`` moves it)."""
        return self.session.cwd

    @property
    def root(self) -> Path:
        """The workspace root."""
        return self.session.root

    def progress(
        self,
        message: str,
        *,
        fraction: float | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        """Report progress of this call to every subscriber (UIs, MCP progress notifications)."""
        self.events.emit(ProgressEvent(self.call_id, self.tool_name, message, fraction, data))

    def diff(self, path: str, unified: str, hunks: tuple[Mapping[str, Any], ...] = ()) -> None:
        """Publish a file change so a UI can render it."""
        self.events.emit(DiffEvent(self.call_id, self.tool_name, path, unified, hunks))
