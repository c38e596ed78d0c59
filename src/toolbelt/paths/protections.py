"""One session's catalogue of protected paths: what the path guard, the permission policy and
the OS sandbox each ask about, built once and handed to all three.

A protected path is code that runs later or a secret. Six sources say which:

- **protected names** (``protected``: ``.git/``, ``.vscode/``, ``.mcp.json``, ``.env*``,
  shell start-up files, and the files interpreters run at start-up, ``startup_files``),
  judged on the part of a path below the workspace root;
- **what protected configuration names as code** (``named_code``: the directory
  ``core.hooksPath`` names, yarn's ``yarnPath``, the jars ``.mvn/jvm.config`` loads, bazel's
  ``tools/bazel``…), read from that configuration when the catalogue is built;
- **the user's secrets** (``core.secret_paths``: ``~/.ssh``, ``~/.aws``…, ``/etc/shadow``), by
  where a path really is;
- **the user's configuration** (``user_config``: toolbelt's configuration and token
  directories, secrets wherever ``XDG_*`` put them, and ``~/.claude``);
- **toolbelt's own installation** (``own_install``: what toolbelt runs unconfined);
- **hard links to secrets** (``secret_links``: another name of a secret file is that secret).

The guard stamps each path it resolves with ``of`` (so ``Access.protections`` is the whole
answer and the policy need not ask again), the policy asks ``of`` for paths no guard saw and
``listed_secret`` for what listings may show, and the sandbox hides ``hidden_locations``,
keeps ``installation_inside_roots`` and the protected names (``entry_reason``) read-only.
Were these lists kept apart, a location one of them forgot would be a hole: ``cat`` reading
what ``read_file`` asks for, or a write tool asking where a command writes freely.

The catalogue is fixed when it is built (once per session, when its roots are known:
``config.factory.session_protections``): every check is a comparison of strings, cheap
enough for each path a listing shows, except the hard-link check, which costs a ``stat`` for
files with other links.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath

from toolbelt.core.access import Protection
from toolbelt.core.path_prefixes import PathPrefixes
from toolbelt.core.secret_paths import location_reason, secrets_for
from toolbelt.paths.containment import is_within
from toolbelt.paths.named_code import named_code
from toolbelt.paths.own_install import OwnInstall, install_places, own_install
from toolbelt.paths.protected import (
    protected_entry_reason,
    protected_name,
    surely_not_secret_name,
)
from toolbelt.paths.secret_links import SecretLinks
from toolbelt.paths.user_config import UserConfig

__all__ = ["Protections"]


class Protections:
    """The protected paths of one session (see the module docstring)."""

    def __init__(
        self,
        roots: Sequence[Path],
        *,
        home: Path | None = None,
        user_config: UserConfig | None = None,
        hidden: Iterable[Path] = (),
    ) -> None:
        """``roots``: the workspace roots, the first one the root whose own names count
        (below it only); ``home``: whose secrets (default ``~``); ``user_config``: the user's
        configuration directories (None: none are protected); ``hidden``: more paths the
        sandbox hides from commands, such as those read-deny rules name whole — the policy
        denies those by its rules, so they are not protections of their own."""
        self.roots = tuple(Path(os.path.realpath(root)) for root in roots)
        self.home = Path(home) if home is not None else Path(os.path.expanduser("~"))
        self.user_config = user_config
        places = install_places()
        self._installation = OwnInstall.around(self.roots, places)
        self._inside = own_install(self.roots, places)
        secrets = secrets_for(self.home)
        self._secret_places = PathPrefixes(secrets)
        config = user_config.secret_directories if user_config is not None else ()
        self._listing_places = PathPrefixes((*secrets, *config))
        more = (*map(Path, config), *hidden)
        self._hidden = tuple(dict.fromkeys((*secrets, *(Path(os.path.realpath(p)) for p in more))))
        self._root_prefix = str(self.roots[0]).rstrip("/") + "/" if self.roots else ""
        self._links = SecretLinks(
            lambda: self.roots,
            self._secret_name,
            locations=lambda: self._hidden,
        )
        self._named: dict[Path, str] = {}
        for root in self.roots:
            for path, reason in named_code(root, home=self.home).items():
                self._named.setdefault(path, reason)

    # -- the guard and the policy ----------------------------------------------------------

    def of(self, path: Path, *, written: str | None = None) -> Protection | None:
        """The protection of the real path ``path``, or None. ``written`` is the path as
        written (absolute, normalised, links not followed), whose names count too:
        ``.vscode/tasks.json`` reached through a symlinked ``.vscode``.

        The sources are asked in order: where the path is among the user's secrets, its
        names, the user's configuration, toolbelt's installation, and last — the only one
        that costs a ``stat`` — whether it is another name of a secret. A secret answer is
        kept at once; a ``code`` one (``.git/``, ``.toolbelt/``…) still yields to the last
        check, since a hard link to ``.env`` under ``.toolbelt/skills/`` is that secret.
        """
        text = str(path)
        secret = self.secret_location(text)
        if secret is not None:
            return Protection("secret", secret, path)
        code: Protection | None = None
        for named in (text,) if written is None or written == text else (text, written):
            found = protected_name(self._below_root(named))
            if found is not None and found[0] == "secret":
                return Protection(found[0], found[1], path)
            if found is not None and code is None:
                code = Protection(found[0], found[1], path)
        if code is None:
            reason = self.named_reason(path)
            if reason is None and written is not None:
                reason = self.named_reason(Path(written))
            if reason is not None:
                code = Protection("code", reason, path)
        if code is None and self.user_config is not None:
            code = self.user_config.protection(path, path)
        if code is not None and code.kind == "secret":
            return code
        code = code or self._installation.protection(path, path)
        return self._links.twin(path) or code

    def named_reason(self, path: Path) -> str | None:
        """Why ``path`` is, or lies beneath, a file protected configuration names as code
        (``named_code``), or None."""
        for code, reason in self._named.items():
            if is_within(path, code):
                return reason
        return None

    def listed_secret(self, path: Path) -> bool:
        """Whether a listing (grep, glob, ls) must leave ``path`` out because reading it asks:
        by names and strings (it runs for every file a search finds), then by identity."""
        below = self._below_root(str(path))
        return self._secret_name(below, path) is not None or self._links.twin(path) is not None

    def quiet_directory(self, directory: str) -> bool:
        """Whether a file directly in ``directory`` (absolute, as listed) can be a listed
        secret only by its own name or as a hard link of a secret (``plain_entry`` says when
        it is neither): no secret location and no secret configuration directory is the
        directory, holds it or is an entry of it. A listing asks once per directory."""
        return not self._listing_places.near(directory)

    @staticmethod
    def plain_entry(name: str, info: os.stat_result | None) -> bool:
        """Whether a file of a quiet directory (``quiet_directory``) named ``name`` is surely
        no listed secret: its name is no secret's and it has no other hard links. ``info``
        is what ``os.stat`` said of the file (None: it could not be stat'ed, so it is no
        secret's twin). False only means ``listed_secret`` must decide."""
        if not surely_not_secret_name(name):
            return False
        return info is None or info.st_nlink < 2 or not stat.S_ISREG(info.st_mode)

    def secret_location(self, real: PurePath | str) -> str | None:
        """Why the real path ``real`` is one of the user's secret locations (it or a directory
        above it is), or None; relative paths are never secret locations."""
        return location_reason(real, self._secret_places)

    def _secret_name(self, below_root: PurePath | str, path: Path) -> str | None:
        """Why a file listed as ``path`` (``below_root``: its part below the root) is a secret
        by its name (``.env``), by where it is (``~/.ssh/id_rsa``, inside the root too: a root
        of ``~`` holds the user's secrets), or as part of the user's configuration; None
        otherwise. Strings only: it runs for every file a listing
        shows, and for every file of the workspace the hard-link walk meets."""
        text = str(below_root)
        reason = self.secret_location(path)
        if reason is not None:
            return reason
        found = protected_name(text)
        if found is not None and found[0] == "secret":
            return found[1]
        if self.user_config is not None and self.user_config.secret(path):
            token = self.user_config.protection(path)
            return None if token is None else token.reason
        return None

    def _below_root(self, text: str) -> str:
        """The part of ``text`` below the workspace root (the first root), else all of it.

        Where the user put the workspace is their choice: a project under
        ``~/.vscode/extensions/`` is not protected as a whole, its own ``.git/`` is. Extra
        directories get no such allowance — a project's settings can add them, and adding
        ``~/.claude`` or another repository's ``.git`` must not unprotect what is inside.
        """
        prefix = self._root_prefix
        if prefix and text.startswith(prefix):
            return text[len(prefix) :]
        return "." if prefix and text == prefix[:-1] else text

    # -- the sandbox -----------------------------------------------------------------------

    def hidden_locations(self) -> tuple[Path, ...]:
        """The real paths the sandbox hides from every command: the user's secret locations,
        the configuration's secret directories and the paths given as ``hidden``."""
        return self._hidden

    def secret_twin(self, path: Path) -> Path | None:
        """The secret file — of the workspace or of the user's secret locations — that the
        file ``path`` (one with other hard links) surely is another name of, or None: the
        sandbox hides it as it hides the secret."""
        return self._links.secret_of(path)

    def named_code(self) -> tuple[Path, ...]:
        """The files protected configuration names as code (existing or not), which the
        sandbox keeps read-only and moves aside when a command creates one."""
        return tuple(self._named)

    def installation_inside_roots(self) -> list[Path]:
        """The places of toolbelt's installation inside a root (outermost only), which the
        sandbox keeps read-only beneath a writable root."""
        return list(self._inside)

    @staticmethod
    def entry_reason(directory: str | PurePath, name: str) -> str | None:
        """Why the entry ``name`` of ``directory`` is protected by its names (see
        ``protected.protected_entry_reason``), or None: the sandbox's walks over entries."""
        return protected_entry_reason(directory, name)
