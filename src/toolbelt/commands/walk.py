"""The state of one walk over a parsed command, and how bash expands a word before use.

A word reaches the program after quote removal, brace expansion (``{.e,x}nv`` is ``.env``
and ``xnv``), tilde expansion (``~root/x`` is root's home) and pathname expansion (``echo /x/*``
lists ``/x``). ``expand_word`` gives the words bash would produce and records what a glob
reads; a word only known at run time is marked dynamic.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolbelt.commands.code_contexts import CODE_REASON, arithmetic_text
from toolbelt.commands.programs import SAFE_VARIABLES

__all__ = ["Walk", "expand_globs", "expand_word"]

_DYNAMIC = {
    "simple_expansion",
    "expansion",
    "command_substitution",
    "process_substitution",
    "arithmetic_expansion",
}
_QUOTED = {"raw_string", "ansi_c_string", "string", "string_content"}
_GLOB = re.compile(r"(?<!\\)[*?\[]")
_MAX_WORDS = 256
_MAX_BASES = 16


@dataclass
class Walk:
    """What the walk over one command line has found so far (``shell.analyze_command``)."""

    source: bytes
    commands: list[Any] = field(default_factory=list)
    dangerous: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    made_dirs: list[str] = field(default_factory=list)
    """The writes that are directories ``mkdir`` makes (an existing one is left as it is)."""
    reads: list[str] = field(default_factory=list)
    git_dirs: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    """Text bash evaluates as code where no command is written (``'a[$(…)]'``): no rule for
    the command around it covers it."""
    readonly: bool = True
    effects_seen: bool = True
    """Every effect of the command but its reads is a write listed in ``writes``: it runs only
    programs the analysis models (read-only ones and the known file writers), sets no
    variable that changes what runs, and takes no file name from data. Read-only implies it."""
    bases: list[str] = field(default_factory=lambda: [""])
    """Every directory relative paths may point to after the ``cd`` commands seen so far
    ("" = the cwd). A ``cd`` may fail (``cd x || true``) or run in a subshell or a pipeline
    part (``(cd src); cat ../secret``), so the directories before it stay possible too."""

    def at(self, path: str) -> list[str]:
        """Every path ``path`` may name, as seen from the command's starting directory."""
        if path.startswith(("/", "~")):
            return [path]
        return [os.path.join(base, path) if base else path for base in self.bases]

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode(errors="replace")

    def cd(self, program: str, args: list[str], flags: list[bool]) -> None:
        """Follow ``cd``/``pushd`` so relative paths after it are judged where they may point."""
        operands = [(a, d) for a, d in zip(args, flags, strict=False) if not a.startswith("-")]
        target = operands[0][0] if operands else "~"
        if (
            program == "popd"
            or any(d for _, d in operands)
            or target == "-"
            or re.fullmatch(r"[+-]\d+", target)
        ):
            self.unseen()  # where it goes is only known at run time
            return
        entered = self.at(target)
        self.reads += entered  # what runs after it reads there (git, pwd, grep -r …)
        self.bases = list(dict.fromkeys(self.bases + entered))
        if len(self.bases) > _MAX_BASES:
            self.unseen()
            self.bases = self.bases[:_MAX_BASES]

    def assign(self, name: str) -> None:
        """Setting a variable that can change what runs is not read-only (SAFE_VARIABLES)."""
        if "[" in name:
            self.verdict(*arithmetic_text(name), name)
        if name not in SAFE_VARIABLES and not name.startswith("LC_"):
            self.unseen()

    def unseen(self, condition: bool = True) -> None:
        """When ``condition`` holds, the command does something the analysis cannot see into
        (runs code, takes names from data, changes what runs later): neither read-only nor
        a command whose only effects are its named writes (``effects_seen``)."""
        if condition:
            self.readonly = False
            self.effects_seen = False

    def verdict(self, readonly: bool, dangerous: bool, text: str = "") -> None:
        self.unseen(not readonly)
        if dangerous:
            self.dangerous.append(CODE_REASON)
            self.hidden.append(text or CODE_REASON)

    def word(self, node: Any) -> tuple[str, bool]:
        """The static value of a word after quote removal, and whether it is dynamic."""
        kind = node.type
        if kind in _DYNAMIC:
            return self.text(node), True
        if kind == "raw_string":
            return self.text(node)[1:-1], False
        if kind == "ansi_c_string":
            return self.text(node)[2:-1], "\\" in self.text(node)
        if kind in ("string", "concatenation", "brace_expression"):
            parts, dynamic = [], False
            for child in node.children:
                if child.type == '"':
                    continue
                value, child_dynamic = self.word(child)
                parts.append(value)
                dynamic = dynamic or child_dynamic
            return "".join(parts), dynamic
        text = self.text(node)
        return (re.sub(r"\\(.)", r"\1", text) if kind == "word" else text), False


def expand_word(node: Any, walk: Walk) -> list[tuple[str, bool]]:
    """The words bash makes of ``node``: braces and tilde expanded, globs recorded as reads."""
    value, dynamic = walk.word(node)
    pattern = _pattern(node, walk)
    if _GLOB.search(pattern):
        walk.reads += walk.at(_unescape(pattern))
        walk.unseen(dynamic)  # which directory it lists is unknown
    words = _braces(pattern) if "{" in pattern else [pattern]
    if words is None or len(words) > _MAX_WORDS:
        return [(value, True)]
    if len(words) > 1 or "{" in pattern:
        value = ""
    words = [value] if value else [_unescape(w) for w in words]
    return [(_tilde(w, node, walk), dynamic or w.startswith(("~+", "~-"))) for w in words]


def _pattern(node: Any, walk: Walk) -> str:
    """The word with quoted characters escaped, so only unquoted ones expand."""
    if node.type in _QUOTED:
        value, _ = walk.word(node)
        return re.sub(r"([\\{}*?\[\],~])", r"\\\1", value)
    if node.type in ("concatenation", "brace_expression"):
        return "".join(_pattern(child, walk) for child in node.children)
    if node.type in _DYNAMIC:
        return re.sub(r"([\\{}*?\[\],~])", r"\\\1", walk.text(node))
    return walk.text(node)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _tilde(word: str, node: Any, walk: Walk) -> str:
    """``~user/x`` is that user's home; ``~`` and ``~/x`` stay for the tool to resolve."""
    if not word.startswith("~") or word.startswith(("~/",)) or word == "~":
        return word
    if node.type in _QUOTED:
        return word
    user, slash, rest = word[1:].partition("/")
    try:
        home = pwd.getpwnam(user).pw_dir
    except KeyError:
        return word
    return home + slash + rest


def _braces(text: str) -> list[str] | None:
    """bash's brace expansion of ``text`` (``a{b,c}d``, ``{1..3}``); backslash-escaped braces
    and commas stay; None if there are too many words."""
    depth, start = 0, -1
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                options = _alternatives(text[start + 1 : index])
                if options is not None:
                    out: list[str] = []
                    for option in options:
                        for tail in _braces(option + text[index + 1 :]) or []:
                            out.append(text[:start] + tail)
                            if len(out) > _MAX_WORDS:
                                return None
                    return out
        index += 1
    return [text]


def _alternatives(inner: str) -> list[str] | None:
    parts, depth, current, index = [], 0, "", 0
    while index < len(inner):
        char = inner[index]
        if char == "\\":
            current += inner[index : index + 2]
            index += 2
            continue
        depth += char == "{"
        depth -= char == "}"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
        index += 1
    parts.append(current)
    if len(parts) > 1:
        return parts
    match = re.fullmatch(r"(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(\.\.-?\d+)?", inner)
    if match is None:
        return None
    first, last = match.group(1), match.group(2)
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        low, high = int(first), int(last)
        if abs(high - low) > _MAX_WORDS:
            return [str(low)] * (_MAX_WORDS + 1)
        step = 1 if high >= low else -1
        return [str(n) for n in range(low, high + step, step)]
    if first.isalpha() and last.isalpha():
        step = 1 if ord(last) >= ord(first) else -1
        return [chr(n) for n in range(ord(first), ord(last) + step, step)]
    return None


_MAX_MATCHES = 10_000


def expand_globs(targets: tuple[str, ...], cwd: Path) -> list[str] | None:
    """``targets`` with each glob replaced by the directory it lists and what it matches, as
    bash would expand it against ``cwd``: hidden names only where the pattern starts with a
    dot, and ``**`` as ``*`` (``dotglob`` and ``globstar`` are off unless a ``shopt``, which
    asks, turns them on), so expanding costs one directory listing per level. None when a
    glob matches too many names to judge."""
    out: list[str] = []
    for target in targets:
        if not _GLOB.search(target):
            out.append(target)
            continue
        pattern = re.sub(r"\*\*+", "*", os.path.expanduser(target))
        parts = pattern.split("/")
        first = next(i for i, part in enumerate(parts) if _GLOB.search(part))
        out.append("/".join(parts[:first]) or ("/" if pattern.startswith("/") else "."))
        matches = []
        for match in glob.iglob(pattern, root_dir=cwd):
            matches.append(match)
            if len(matches) > _MAX_MATCHES:
                return None
        out += matches
    return out
