"""git commands judged: read-only subcommands, options that run or write, config writes.

git accepts unambiguous abbreviations of long options (``--ext`` is ``--ext-diff``,
``--outp=x`` is ``--output=x``), so an option that starts like an unsafe one is judged as it.
Options that name a file are reads (``blame --contents FILE``, ``grep -f FILE``); writes to
the repository's configuration (``git config core.fsmonitor …``, ``git remote add``) are
writes to ``.git/config``, a protected path. What a repository's own settings make git run
on a read-only command is neutralised separately (``toolbelt.shell.git_env``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolbelt.commands.programs import (
    GIT_DANGEROUS,
    GIT_READONLY,
    GIT_SAFE_GLOBALS,
    GIT_UNSAFE_FLAGS,
)

__all__ = ["GitEffects", "git_effects"]

_FILE_OPTIONS = ("--contents", "--ignore-revs-file", "--exclude-from", "--pathspec-from-file")
_SHORT_FILE_OPTIONS = ("-X", "-f")  # ls-files -X FILE, grep -f FILE
_CONFIG_READS = (
    *("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--list"),
    *("--get-colorbool", "-l", "get", "list"),
)
_REMOTE_READS = ("-v", "--verbose", "show", "get-url")


@dataclass
class GitEffects:
    readonly: bool = True
    dangerous: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)


def _long_name(arg: str) -> str:
    return arg.partition("=")[0]


def _abbreviates(arg: str, names: tuple[str, ...]) -> str | None:
    """The option of ``names`` that ``arg`` spells or abbreviates (``--outp`` → ``--output``)."""
    name = _long_name(arg)
    if not name.startswith("--") or len(name) < 3:
        return None
    return next((full for full in names if full.startswith(name)), None)


def git_effects(args: list[str]) -> GitEffects:
    """What ``git ARGS`` does, as far as the analysis can tell."""
    effects = GitEffects()
    at = next((i for i, a in enumerate(args) if not a.startswith("-")), len(args))
    if any(option not in GIT_SAFE_GLOBALS for option in args[:at]):
        effects.readonly = False  # -c, --config-env, --exec-path, -C, --git-dir…
    sub, rest = (args[at], args[at + 1 :]) if at < len(args) else ("", [])
    _files(rest, effects)
    if sub == "blame":  # blame -S REVS-FILE (elsewhere -S is a search string)
        effects.reads += [
            rest[i + 1] if a == "-S" else a[2:]
            for i, a in enumerate(rest)
            if a.startswith("-S") and (a != "-S" or i + 1 < len(rest))
        ]
    if sub in GIT_READONLY and any(_unsafe(a) for a in rest):
        effects.readonly = False
    if sub in GIT_READONLY:  # `git diff /outside a.txt` is diff --no-index; REV:PATH shows PATH
        for operand in (a for a in rest if not a.startswith("-")):
            effects.reads.append(operand)
            if ":" in operand and operand.partition(":")[2]:
                effects.reads.append(operand.partition(":")[2])
    if sub == "config":
        _config(rest, effects)
    elif sub == "remote" and rest and not all(a in _REMOTE_READS for a in rest):
        effects.readonly = False
        effects.writes.append(".git/config")
    elif sub == "submodule":
        effects.readonly = False
        effects.writes += [".git/config", ".gitmodules"]
    elif sub in GIT_DANGEROUS:
        effects.dangerous.append(GIT_DANGEROUS[sub])
    elif sub == "branch" and any(a in ("-d", "-D", "--delete", "-m", "-M", "-f") for a in args):
        effects.dangerous.append("git branch deletes or moves branches")
    elif sub == "tag" and "-d" in args:
        effects.dangerous.append("git tag -d deletes tags")
    elif sub == "stash" and any(a in ("drop", "clear") for a in args):
        effects.dangerous.append("git stash drop/clear discards stashed work")
    elif sub not in GIT_READONLY and not _lists(sub, rest):
        effects.readonly = False
    return effects


_LISTING = {
    "branch": ("-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "-l",
               "--show-current", "--no-color", "--color", "--contains", "--merged",
               "--no-merged", "--sort", "--format"),
    "tag": ("-l", "--list", "-n", "--contains", "--sort", "--format", "--points-at"),
    "remote": ("-v", "--verbose", "show", "get-url"),
}  # fmt: skip


def _lists(sub: str, rest: list[str]) -> bool:
    """Whether ``git SUB REST`` only lists: ``git branch -a``, ``git tag -l``, ``git remote
    -v``, ``git stash list``/``show`` — not ``git branch NEW``, ``git tag NEW`` or ``git stash
    -u`` (a push, which takes changes out of the working tree)."""
    if sub == "stash":
        return bool(rest) and rest[0] in ("list", "show")
    options = _LISTING.get(sub)
    if options is None:
        return False
    words = [a.partition("=")[0] for a in rest]
    if any(w in ("-l", "--list") for w in words):  # the operands are patterns to list
        return all(w in options or not w.startswith("-") for w in words)
    return all(w in options for w in words)


def _unsafe(arg: str) -> bool:
    if arg.startswith("-O") or (arg.startswith("-") and not arg.startswith("--") and "O" in arg):
        return True  # grep -O runs a pager; diff -O<orderfile>
    return _abbreviates(arg, GIT_UNSAFE_FLAGS) is not None


def _files(rest: list[str], effects: GitEffects) -> None:
    """Options of any subcommand that name a file are reads."""
    index = 0
    while index < len(rest):
        arg = rest[index]
        full = _abbreviates(arg, _FILE_OPTIONS)
        short = next((s for s in _SHORT_FILE_OPTIONS if arg.startswith(s)), None)
        value = None
        if full is not None:
            if "=" in arg:
                value = arg.partition("=")[2]
            elif index + 1 < len(rest):
                value, index = rest[index + 1], index + 1
        elif short is not None:
            if arg != short:
                value = arg[len(short) :]
            elif index + 1 < len(rest):
                value, index = rest[index + 1], index + 1
        if full == "--pathspec-from-file":
            effects.readonly = False  # file names from data
        if value:
            effects.reads.append(value)
        index += 1


def _config(rest: list[str], effects: GitEffects) -> None:
    effects.readonly = False
    if any(_long_name(a) in _CONFIG_READS for a in rest):
        return
    operands = [a for a in rest if not a.startswith("-")]
    writes = any(
        a.startswith(("--unset", "--add", "--replace", "--rename", "--remove")) for a in rest
    )
    writes = writes or "-e" in rest or "--edit" in rest or len(operands) >= 2
    writes = writes or bool(operands and operands[0] in ("set", "unset", "edit"))
    if not writes:
        return
    target = ".git/config"
    for index, arg in enumerate(rest):
        if arg == "--global":
            target = "~/.gitconfig"
        elif arg == "--system":
            target = "/etc/gitconfig"
        elif arg == "--worktree":
            target = ".git/config.worktree"
        elif arg.startswith("--file="):
            target = arg.partition("=")[2]
        elif arg in ("-f", "--file") and index + 1 < len(rest):
            target = rest[index + 1]
    effects.writes.append(target)
