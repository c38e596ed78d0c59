"""Protected names: files and directories that are code or secrets even inside the workspace.

Writing ``.git/hooks/pre-commit``, ``.vscode/tasks.json``, ``.mcp.json`` or ``~/.bashrc`` runs
code later, outside any sandbox; ``.env`` files hold secrets. Each such path is protected
whether or not it exists yet (creating a new hook is as dangerous as editing one), so matching
is done on names, never on what is on disk.

Names are compared the way the most lenient file system would compare them, because a check
that is stricter than the file system is a bypass: case is folded (``.GIT`` is ``.git`` on
macOS and Windows), Unicode is NFC-normalised with the code points HFS+ ignores removed
(``.g\\u200cit`` is ``.git`` there), and trailing dots and spaces are dropped (Windows drops them).

Directory names protect everything beneath them and are matched on every component; file
names are matched on the last component only, so a virtualenv that happens to be called
``.env/`` is protected as a file would be only at its own name, not for every module inside.
A path takes the strongest protection any of its components gives: a secret's name below a
protected directory (``.devcontainer/.env``) is a secret, not the directory's code.
Files an interpreter runs by itself at start-up (a ``.pth`` in ``site-packages``,
``sitecustomize.py``, ``pyvenv.cfg``… see ``startup_files``) are code in the same way.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import PurePath
from typing import Literal

from toolbelt.paths.startup_files import startup_directory_reason, startup_file_reason

__all__ = [
    "ProtectionKind",
    "protected_entry_reason",
    "protected_file_name",
    "protected_name",
    "protected_reason",
    "secret_file_name",
    "surely_not_secret_name",
]

ProtectionKind = Literal["secret", "code"]

_DIRECTORIES = {
    ".git": ".git/ holds repository configuration and hooks that git runs later",
    ".toolbelt": ".toolbelt/ holds toolbelt's own settings and permission rules",
    ".claude": ".claude/ holds agent settings and hooks that run later",
    ".codex": ".codex/ holds agent settings that start programs",
    ".cursor": ".cursor/ holds editor settings that start MCP servers",
    ".gemini": ".gemini/ holds agent settings and hooks that run later",
    ".vscode": ".vscode/ holds editor settings and tasks that run later",
    ".idea": ".idea/ holds IDE settings and run configurations",
    ".github": ".github/ holds CI workflows and actions that run with the repository's secrets",
    ".husky": ".husky/ holds git hooks that run on every commit",
    ".devcontainer": ".devcontainer/ holds container settings whose commands run on start",
    ".cargo": ".cargo/ holds cargo configuration (runners, wrappers) and installed programs",
    ".mvn": ".mvn/ holds the JVM options, extensions and wrapper every Maven build runs",
}
_FILES = {
    ".mcp.json": ".mcp.json starts MCP servers",
    ".claude.json": ".claude.json holds agent settings that start MCP servers",
    ".gitconfig": ".gitconfig configures git, including commands it runs",
    ".gitmodules": ".gitmodules points git at other repositories",
    ".ripgreprc": ".ripgreprc changes how rg runs, including preprocessors it starts",
    ".envrc": ".envrc is run by direnv whenever a shell enters the directory",
    ".gitattributes": ".gitattributes selects the filter and diff programs git runs",
    ".npmrc": ".npmrc configures npm, including the shell and node options its scripts run with",
    ".yarnrc": ".yarnrc configures yarn, including the program it runs as yarn",
    ".yarnrc.yml": ".yarnrc.yml configures yarn, including the program it runs as yarn",
    ".pnpmfile.cjs": ".pnpmfile.cjs is code pnpm runs on every install",
    ".pre-commit-config.yaml": ".pre-commit-config.yaml names the hooks pre-commit runs",
    ".bazelrc": ".bazelrc gives bazel options, including programs it runs commands under",
}
"""Code and configuration: writing asks, reading does not. ``.envrc`` is here on purpose, not
with the secrets: it is a script direnv runs, usually committed with the project, and the
secrets it loads belong in ``.env`` files (direnv's ``dotenv``), which are protected for
reading too. ``Makefile``, ``package.json``, ``pyproject.toml`` and other build files run code
too, but they are what an agent edits all day: protecting them would make every mode ask
for ordinary work, so they are left to the mode (and to the user's review of the diff)."""
_SHELL_START_UP = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
        ".inputrc",
    }
)
_SECRETS = ".env files hold secrets"
# Code points HFS+ ignores in names (git's is_hfs_dotgit list): joiners, marks, BOM.
_IGNORED = re.compile("[\u200b-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")


def protected_reason(path: PurePath | str) -> str | None:
    """Why writing ``path`` is dangerous (any directory component, or the name), or None."""
    found = protected_name(path)
    return None if found is None else found[1]


def protected_name(path: PurePath | str) -> tuple[ProtectionKind, str] | None:
    """(kind, why) when a name in ``path`` is protected — a directory component, or the last
    name — else None. Every component is looked at and the strongest answer wins: the first
    protected directory makes the path code, but a secret's name beneath it (``.github/.env``,
    ``sub/.devcontainer/.env.local``) makes it a secret, which reading asks for. Where the path
    *is* (the user's secrets, their configuration, toolbelt's installation) is for
    ``protections.Protections`` to say."""
    parts = path.split("/") if isinstance(path, str) else path.parts
    if not parts:
        return None
    last = len(parts) - 1
    while last > 0 and not parts[last]:
        last -= 1  # "dir/" names dir
    parent = ""
    code: tuple[ProtectionKind, str] | None = None
    for index, part in enumerate(parts[: last + 1]):
        name = _comparable(part)
        reason = _DIRECTORIES.get(name) or startup_directory_reason(name)
        if reason is not None and code is None:
            code = "code", reason
        if index == last:
            found = _file_reason(name, parent)
            if found is not None and (found[0] == "secret" or code is None):
                return found
            return code
        parent = name
    return code


def protected_entry_reason(directory: str | PurePath, name: str) -> str | None:
    """Why the entry ``name`` of ``directory`` is protected, by its own name and the name of
    the directory holding it (a ``.pth`` in ``site-packages``), or None. For walks that look
    at one directory's entries: the directory's own path is not considered."""
    folded = _comparable(name)
    reason = _DIRECTORIES.get(folded) or startup_directory_reason(folded)
    if reason is not None:
        return reason
    found = _file_reason(folded, _comparable(os.path.basename(directory)))
    return None if found is None else found[1]


def protected_file_name(name: str) -> str | None:
    """Why the file name ``name`` itself is protected (``.env``, ``.bashrc``...), or None;
    protected directories (``.git/``...) are not considered."""
    found = _file_reason(_comparable(name), "")
    return None if found is None else found[1]


def secret_file_name(name: str) -> bool:
    """Whether the file name ``name`` marks a secret (``.env``, ``.env.local``…): reading
    it asks, and commands that run without a prompt do not see it."""
    found = _file_reason(_comparable(name), "")
    return found is not None and found[0] == "secret"


def surely_not_secret_name(name: str) -> bool:
    """A quick test for listings, which meet thousands of names: True when the file name
    ``name`` cannot make a path a secret (``protected_name`` never says "secret" for a path
    ending in it), False when the full test must decide. An ASCII name is a secret's only
    if, lowercased, it starts with ``.env`` (``_file_reason``); any other name is left to
    the full test (``_comparable`` folds it first)."""
    return name.isascii() and name[:4].lower() != ".env"


def _file_reason(name: str, parent: str) -> tuple[ProtectionKind, str] | None:
    reason = _FILES.get(name)
    if reason is not None:
        return "code", reason
    if name == ".env" or name.startswith(".env."):
        return "secret", _SECRETS
    if name in _SHELL_START_UP:
        return "code", f"{name} is a shell start-up file that runs in every new shell"
    reason = startup_file_reason(name, parent)
    return None if reason is None else ("code", reason)


def _comparable(part: str) -> str:
    """``part`` as a lenient file system would see it; cheap for the usual ASCII names."""
    if part.isascii():
        return part.lower().rstrip(" .")
    return _IGNORED.sub("", unicodedata.normalize("NFC", part)).casefold().rstrip(" .")
