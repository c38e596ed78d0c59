"""A ranked map of a repository's definitions within a token budget, as aider's repo map.

Which definitions matter is told by use: a class or function whose name appears in many
other files is what a model needs to know first, a private helper used once is not. So every
source file is scanned once, lexically — its definitions (a line pattern per language: ``def``,
``class``, ``func``, ``fn``…) and the set of identifiers it mentions — and each definition is
scored by how many *other* files mention its name, damped for names defined in many places
(``get``, ``run``) and for private ones. The best definitions are taken, in score order,
until the budget is spent; the files they are in are then parsed with tree-sitter
(``outline``) to show each definition's real signature and line range, under its class.

A repository larger than ``MAX_SCANNED_BYTES`` has its mentions counted on an even sample of
its files, scaled up: the ranking of what many files use survives sampling, and the map's
cost stays bounded.

Why not parse every file with tree-sitter, as aider does: on this project's 2-core machines
the parse alone runs at ~3–10 MB/s, so a 30 MB repository (the standard library, 1,800 files)
takes 3–11 s cold; aider hides that behind an on-disk cache. The lexical scan reads the same
repository in well under a second, and the grammars still give what is shown.
"""

from __future__ import annotations

import builtins
import contextlib
import math
import os
import re
import subprocess
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolbelt.core.programs import find_rg
from toolbelt.outline.grammars import SUFFIXES, grammar_for
from toolbelt.outline.outline import Definition, outline

__all__ = ["DEFAULT_TOKENS", "MapEntry", "repo_map"]

DEFAULT_TOKENS = 2048
CHARS_PER_TOKEN = 4
MIN_NAME = 3
"""Shorter names (``t``, ``f``, ``id``) say too little to rank by."""
MAX_FILE_BYTES = 1024 * 1024
"""Larger files (generated code, data) are left out of the map."""
MAX_SCANNED_BYTES = 12 * 1024 * 1024
"""What the mention count reads at most (see ``_sample_step``)."""
MAX_PARSED_BYTES = 512 * 1024
"""What the map parses with tree-sitter at most, its best files first; the files past it show
their definitions' lines as written: a parse costs ~10–40 ms per 100 KB on these machines,
and the map should take well under a second."""

_WORDS = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == 95) else 32 for c in range(256))
"""``bytes.translate`` table: identifier bytes kept, everything else a space."""
_DEFINED: dict[str, str] = {
    # followed by "(" or ":" as code is, not as prose in a docstring
    "python": r"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\("
    r"|^[ \t]*class[ \t]+([A-Za-z_]\w*)[ \t]*[(:\[]",
    "javascript": r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:abstract[ \t]+)?"
    r"(?:async[ \t]+)?(?:function\*?|class|interface|type|enum|const|let)[ \t]+"
    r"([A-Za-z_$][\w$]*)",
    "go": r"^(?:func[ \t]+(?:\([^)]*\)[ \t]*)?|type[ \t]+)([A-Za-z_]\w*)",
    "rust": r"^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?(?:async[ \t]+)?(?:unsafe[ \t]+)?"
    r"(?:fn|struct|enum|trait|mod|type|union)[ \t]+([A-Za-z_]\w*)",
    "java": r"^[ \t]*(?:(?:public|private|protected|static|final|abstract|sealed)[ \t]+)*"
    r"(?:class|interface|enum|record)[ \t]+([A-Za-z_]\w*)"
    r"|^[ \t]+(?:(?:public|private|protected|static|final|abstract|synchronized)[ \t]+)+"
    r"[\w<>\[\],. ]+[ \t]+([A-Za-z_]\w*)[ \t]*\(",
    "c": r"^(?:struct|enum|union|class|namespace)[ \t]+([A-Za-z_]\w*)"
    r"|^[A-Za-z_][\w \t*&:<>,]*?[ \t*&]([A-Za-z_]\w*)[ \t]*\([^;]*$",
    "ruby": r"^[ \t]*(?:def[ \t]+(?:self\.)?|class[ \t]+|module[ \t]+)(\w+)",
    "bash": r"^[ \t]*(?:function[ \t]+)?([A-Za-z_][\w-]*)[ \t]*\(\)",
}
"""A definition's line, per family of languages: one pattern for ripgrep (which finds them
across the repository, in parallel, in a fraction of the time a Python regex takes) and for
Python's ``re`` where there is no rg; the name is the first group that matched."""
_FAMILY = {"typescript": "javascript", "tsx": "javascript", "cpp": "c"}
_PYTHON_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True, slots=True)
class MapEntry:
    """A definition the map shows: where, and its score (other files that use its name)."""

    path: Path
    name: str
    line: int
    score: float


def _family(path: Path) -> str | None:
    language = SUFFIXES.get(path.suffix.lower())
    return None if language is None else _FAMILY.get(language, language)


def _definitions(files: Sequence[Path]) -> dict[Path, list[tuple[str, int]]]:
    """(name, line) of every definition in ``files``, by file."""
    by_family: dict[str, list[Path]] = {}
    for path in files:
        family = _family(path)
        if family is not None:
            by_family.setdefault(family, []).append(path)
    found: dict[Path, list[tuple[str, int]]] = {}
    rg = find_rg()
    for family, paths in by_family.items():
        for start in range(0, len(paths), 1000):
            chunk = paths[start : start + 1000]
            if rg is not None:
                _rg_definitions(rg, _DEFINED[family], chunk, found)
            else:
                _re_definitions(re.compile(_DEFINED[family].encode(), re.M), chunk, found)
    return found


def _rg_definitions(
    rg: str, pattern: str, paths: Sequence[Path], found: dict[Path, list[tuple[str, int]]]
) -> None:
    argv = [rg, "--no-config", "--no-heading", "--null", "--line-number", "--only-matching",
            "--replace", "$1$2", "--max-filesize", str(MAX_FILE_BYTES), "-e", pattern, "--",
            *map(str, paths)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, check=False)
    known = {os.fsencode(path): path for path in paths}
    for line in done.stdout.split(b"\n"):
        path, _, rest = line.partition(b"\0")
        number, _, name = rest.partition(b":")
        if len(name) >= MIN_NAME and number.isdigit() and path in known:
            entry = (name.decode("utf-8", "replace"), int(number))
            found.setdefault(known[path], []).append(entry)


def _re_definitions(
    pattern: re.Pattern[bytes], paths: Sequence[Path], found: dict[Path, list[tuple[str, int]]]
) -> None:
    for path in paths:
        data = _read(path)
        if data is None:
            continue
        line, counted = 1, 0
        for match in pattern.finditer(data):
            name = next((g for g in match.groups() if g), b"")
            if len(name) >= MIN_NAME:
                line += data.count(b"\n", counted, match.start())
                counted = match.start()
                found.setdefault(path, []).append((name.decode("utf-8", "replace"), line))


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES or b"\0" in data[:1024]:
        return None
    return data


def _weight(name: str, defined_in: int, language: str) -> float:
    """How much a mention of ``name`` says about one of its definitions."""
    if name.startswith("__") and name.endswith("__"):
        return 0.0
    weight = 0.1 if name.startswith("_") else 1.0
    if language == "python" and name in _PYTHON_BUILTINS:
        weight *= 0.05  # `list`, `type`: every file says them, few mean this one
    if name.isalpha() and name.islower():
        weight *= 0.3  # `path`, `when`, `args`: words that prose and locals use too
    return weight / defined_in  # the mentions are shared among the same-named definitions


def _sample_step(sources: Sequence[Path]) -> int:
    """Read every n-th file for the mentions, so that about ``MAX_SCANNED_BYTES`` are read:
    a repository larger than that is ranked on an even sample of its files (the same files
    each time), which keeps the map's cost bounded however large the repository is."""
    total = 0
    for path in sources:
        with contextlib.suppress(OSError):
            total += min(os.stat(path).st_size, MAX_FILE_BYTES)
    return max(1, math.ceil(total / MAX_SCANNED_BYTES))


def rank(files: Sequence[Path]) -> list[MapEntry]:
    """Every definition of ``files``, best first."""
    definitions = _definitions(files)
    defined_in: Counter[str] = Counter()
    for found in definitions.values():
        defined_in.update({name for name, _ in found})
    names = {name.encode() for name in defined_in}
    mentioned: Counter[bytes] = Counter()
    sources = [path for path in files if _family(path) is not None]
    step = _sample_step(sources)
    for path in sources[::step]:
        if (data := _read(path)) is not None:
            mentioned.update(names.intersection(data.translate(_WORDS).split()))
    if step > 1:  # each file read stands for ``step`` files
        mentioned = Counter({name: count * step for name, count in mentioned.items()})
    entries = []
    scores: dict[tuple[str, str], float] = {}
    for path, found in definitions.items():
        language = SUFFIXES.get(path.suffix.lower(), "")
        for name, line in found:
            score = scores.get((name, language))
            if score is None:
                others = max(mentioned[name.encode()] - 1, 0)
                score = _weight(name, defined_in[name], language) * math.sqrt(others)
                scores[name, language] = score
            if score > 0:
                entries.append(MapEntry(path, name, line, score))
    entries.sort(key=lambda e: (-e.score, str(e.path), e.line))
    return entries


def repo_map(
    root: Path, files: Sequence[Path], *, tokens: int = DEFAULT_TOKENS, shown: Sequence[str] = ()
) -> tuple[str, list[MapEntry]]:
    """The map of ``files`` (real paths under ``root``; ``shown``: how to name each, in the
    same order) within ``tokens``, and the entries it shows."""
    names = dict(zip(files, shown, strict=False)) if shown else {}
    budget = tokens * CHARS_PER_TOKEN
    chosen: dict[Path, dict[int, MapEntry]] = {}
    spent = 0
    for entry in rank(files):
        cost = 40 + 2 * len(entry.name)  # its signature's line, about
        if entry.path not in chosen:
            cost += len(names.get(entry.path, str(entry.path))) + 2
        if spent + cost > budget:
            if spent > budget * 0.9:
                break
            continue
        chosen.setdefault(entry.path, {})[entry.line] = entry
        spent += cost
    blocks: list[tuple[float, str]] = []
    parsed = 0
    shown_entries: list[MapEntry] = []
    for path, wanted in chosen.items():
        grammar = grammar_for(path)
        if grammar is None:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        parsed += len(data)
        if parsed > MAX_PARSED_BYTES:  # its definitions' own lines, without a parse
            lines = [f"  {_line_text(data, e.line)}  (line {e.line})" for e in wanted.values()]
        else:
            lines = _kept(outline(data, grammar), set(wanted))
        if not lines:
            continue
        label = names.get(path) or str(
            path.relative_to(root) if path.is_relative_to(root) else path
        )
        blocks.append((max(e.score for e in wanted.values()), "\n".join([f"{label}:", *lines])))
        shown_entries += wanted.values()
    blocks.sort(key=lambda block: -block[0])
    text: list[str] = []
    used = 0
    for _, block in blocks:
        if used + len(block) > budget and text:
            break
        text.append(block)
        used += len(block) + 1
    return "\n".join(text), shown_entries


def _kept(definitions: Sequence[Definition], lines: set[int], depth: int = 1) -> list[str]:
    """The outline lines of the definitions starting on ``lines`` (a definition's signature
    line may follow its decorators: matched by range), with their enclosing classes."""
    kept: list[str] = []
    for item in definitions:
        inner = _kept(item.children, lines, depth + 1)
        mine = any(item.line <= line <= item.line + 3 and line <= item.end_line for line in lines)
        if mine or inner:
            kept.append(f"{'  ' * depth}{item.signature}  (lines {item.line}-{item.end_line})")
            kept += inner
    return kept


def _line_text(data: bytes, line: int) -> str:
    start = 0
    for _ in range(line - 1):
        start = data.index(b"\n", start) + 1
    end = data.find(b"\n", start)
    text = data[start : end if end >= 0 else len(data)].decode("utf-8", "replace").strip()
    return text.rstrip("{:").rstrip()
