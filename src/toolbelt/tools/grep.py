"""grep: search file contents with ripgrep, gitignore-aware, capped and paged.

Output modes: ``files_with_matches`` (paths, newest first), ``content`` (``path:line:text``,
context lines as ``path-line-text``) and ``count`` (``path:N``). rg's output is parsed as it
streams and rg is stopped as soon as ``offset + head_limit`` lines are in hand, so a pattern
that matches everything costs what the page costs. Hidden files are searched, ``.git`` never;
symlinks are not followed out of the tree. A search has a time budget and skips huge files
when it walks a directory (``search.budget``): when cut, it returns what it found and says so.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import anyio
from pydantic import BaseModel, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.listing import ListingJudge
from toolbelt.core.programs import find_rg
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.paths.guard import PathGuard, ResolvedPath
from toolbelt.search.budget import MAX_FILE_SIZE_ARG, SearchBudget, cut_note, unnamed_note
from toolbelt.search.fallback import python_grep
from toolbelt.search.globs import name_only_glob
from toolbelt.search.ignored import git_ignored
from toolbelt.search.judged import JudgedFiles
from toolbelt.search.order import newest_first
from toolbelt.search.ripgrep import (
    RgResult,
    lines_of,
    rg_lines,
    rg_newest_first,
    rg_output,
)
from toolbelt.search.text_prefix import TextPrefix
from toolbelt.tools._files import file_guard, missing_path, read_access, resolve

__all__ = ["GrepInput", "GrepTool"]

Mode = Literal["files_with_matches", "content", "count"]

DESCRIPTION = """\
Search file contents with a regular expression (ripgrep syntax, e.g. `def \\w+\\(`; escape \
literal braces and parentheses). Respects .gitignore; searches hidden files but never .git. \
`output_mode`: files_with_matches (default; paths, most recently modified first), content \
(matching lines as path:line:text; add context_before / context_after / context for \
surrounding lines) or count (matches per file). Filter with `glob` (e.g. "*.py", \
"src/**/*.ts") or `type` (e.g. "py", "rust"). `case_insensitive` ignores case; `multiline` lets \
a pattern span lines. Results are capped at `head_limit` (default 250; 0 for no cap); use \
`offset` to page. A search stops after 20 s with what it found, skips files over 200 MB \
unless `path` names the file, and stops reading a file at its first binary (NUL) byte. Use \
this instead of running grep or rg through bash."""


class GrepInput(ToolInput):
    """Arguments of `grep`."""

    pattern: str = Field(min_length=1, description="Regular expression to search for.")
    path: str | None = Field(
        default=None, description="File or directory to search (default: cwd)."
    )
    glob: str | None = Field(
        default=None, description='Only files matching this glob, e.g. "*.py".'
    )
    type: str | None = Field(default=None, description='Only files of this type, e.g. "py", "js".')
    output_mode: Mode = Field(default="files_with_matches", description="What to return.")
    context_before: int | None = Field(default=None, ge=0, description="Lines before each match.")
    context_after: int | None = Field(default=None, ge=0, description="Lines after each match.")
    context: int | None = Field(default=None, ge=0, description="Lines before and after.")
    case_insensitive: bool = Field(default=False, description="Ignore case.")
    multiline: bool = Field(default=False, description="Let . and the pattern span lines.")
    head_limit: int = Field(default=250, ge=0, description="At most this many results; 0 = all.")
    offset: int = Field(default=0, ge=0, description="Skip this many results (paging).")


class GrepOutput(BaseModel):
    """Structured result of `grep`."""

    mode: str
    results: int = Field(description="Results on this page.")
    offset: int
    truncated: bool = Field(description="More results follow; page with `offset`.")


class GrepTool(Tool[GrepInput]):
    """Content search on ripgrep."""

    name = "grep"
    rule_family, claude_name = "Read", "Grep"
    title = "Search file contents"
    description = DESCRIPTION
    output_model = GrepOutput
    example = {"pattern": "class \\w+Error", "glob": "*.py", "output_mode": "content"}
    hints = ToolHints.READ_ONLY

    async def access(self, args: GrepInput, ctx: ToolContext) -> Access:
        return read_access(ctx, args.path or ".", f"search {args.path or '.'}")

    async def run(self, args: GrepInput, ctx: ToolContext) -> ToolOutput:
        target = resolve(ctx, args.path or ".")
        if not target.exists:
            raise missing_path(file_guard(ctx).display(target.path))
        cwd, names = _search_root(target.path)
        limit = args.head_limit or None
        wanted = None if limit is None else args.offset + limit + 1
        rg = find_rg()
        slow = rg is None
        budget = SearchBudget()
        drop_ignored = not slow and not names and _glob_overrides_ignores(args)
        # a file named as the path was judged (and asked about) as itself
        judge = None if names else ctx.listing_judge(target.path)
        # rg prints `path:N:text` itself unless a path must be cut out of each line (to filter
        # it, or to put a file's name back where rg read it as stdin)
        nul = slow or judge is not None or drop_ignored or bool(names)
        found: list[str] | Whole
        if rg is None:
            found = await anyio.to_thread.run_sync(
                python_grep,
                cwd,
                names,
                args.pattern,
                args.output_mode,
                args.case_insensitive,
                args.glob,
                wanted,
                budget,
            )
        else:
            # rg's paths are judged as rg prints them, in the thread that reads them (before
            # git drops what it ignores: only there is a name rg cut at a line break known)
            found = await _search(
                rg, args, file_guard(ctx), target, names, wanted, budget, nul=nul, judge=judge
            )
        if isinstance(found, Whole) and not drop_ignored:
            return _render_whole(args, found, nul=nul, budget=budget)
        lines = found.lines() if isinstance(found, Whole) else found
        if drop_ignored:
            lines = await anyio.to_thread.run_sync(_drop_ignored, cwd, lines, args.output_mode)
        if judge is not None and slow:
            lines = await anyio.to_thread.run_sync(
                _drop_hidden, lines, args.output_mode, cwd, judge, budget
            )
        if slow and args.output_mode == "files_with_matches":
            lines = await anyio.to_thread.run_sync(newest_first, cwd, lines)
        return _render(args, lines, slow=slow, nul=nul, budget=budget)


class Whole:
    """All rg printed for a directory (every line ending with a newline), its hidden files'
    lines already left out; ``lines_named`` is how many lines start with ``path\\0``, when
    the files were judged (else None)."""

    __slots__ = ("lines_named", "out")

    def __init__(self, out: bytes, lines_named: int | None) -> None:
        self.out, self.lines_named = out, lines_named

    def lines(self) -> list[str]:
        return self.out[:-1].decode("utf-8", errors="replace").split("\n") if self.out else []


async def _search(
    rg: str,
    args: GrepInput,
    guard: PathGuard,
    target: ResolvedPath,
    names: list[str],
    wanted: int | None,
    budget: SearchBudget,
    *,
    nul: bool,
    judge: ListingJudge | None = None,
) -> list[str] | Whole:
    """rg over what the guard opened: a file as rg's stdin, a directory as its start (see
    ``search.ripgrep``), so nothing swapped in after the permission check is searched.
    ``judge``: the listing's judge of the paths rg finds (``core.listing``), applied as rg
    prints them; their files' lines are left out."""
    if names:
        fd = guard.open_for_read(target)
        argv = _rg_args(args, ["-"], nul=nul)  # "-": the file's text, given as stdin
        try:
            prefix = TextPrefix(fd)  # up to its binary data, as rg searches what it finds
            with prefix as text:
                if args.output_mode != "content" or wanted is None:
                    raw = lines_of(
                        await rg_output(rg, argv, cwd=target.path.parent, budget=budget, stdin=text)
                    )
                    lines = _decoded(raw)
                else:
                    lines = await _run_rg(rg, argv, target.path.parent, wanted, budget, stdin=text)
            budget.binary_at = prefix.binary_at
        finally:
            os.close(fd)
        return _relabel(lines, names[0])
    dir_fd = guard.open_directory(target)
    try:
        cwd, argv = target.path, _rg_args(args, names, nul=nul)
        if args.output_mode == "files_with_matches":
            return await rg_newest_first(
                rg, argv, cwd=cwd, budget=budget, cwd_fd=dir_fd, hides=judge
            )
        judged = None if judge is None else JudgedFiles(dir_fd, judge)
        if wanted is None or args.output_mode == "count":  # count: one short line a file
            feed = None if judged is None else judged.feed
            out = await rg_output(rg, argv, cwd=cwd, budget=budget, cwd_fd=dir_fd, on_lines=feed)
            if judged is None:
                return Whole(out, None)
            if not judged.altered:
                return Whole(out, judged.lines_named)
            keep = judged.keeps()
            kept = [line + b"\n" for line in out.split(b"\n")[:-1] if keep(line)]
            budget.unnamed = len(judged.unnamed)
            return Whole(b"".join(kept), None)
        try:
            return await _run_rg(rg, argv, cwd, wanted, budget, cwd_fd=dir_fd, judged=judged)
        finally:
            if judged is not None:
                budget.unnamed = len(judged.unnamed)
    finally:
        os.close(dir_fd)


def _decoded(raw: list[bytes]) -> list[str]:
    return b"\n".join(raw).decode("utf-8", errors="replace").split("\n") if raw else []


def _relabel(lines: list[str], name: str) -> list[str]:
    """rg names what it read from stdin ``<stdin>``: put the file's name back."""
    out = []
    for line in lines:
        if line == "<stdin>":
            out.append(name)
        elif line.startswith("<stdin>\x00"):
            out.append(name + line[len("<stdin>") :])
        else:
            out.append(line)
    return out


def _search_root(path: Path) -> tuple[Path, list[str]]:
    if path.is_dir():
        return path, []
    return path.parent, [path.name]


def _rg_args(args: GrepInput, names: list[str], *, nul: bool) -> list[str]:
    """rg's arguments; ``nul``: end each line's path with NUL (``path\\0N:text``), so a path
    holding ``:`` can still be cut out of the line."""
    argv: list[str] = []
    if args.case_insensitive:
        argv.append("-i")
    if args.multiline:
        argv += ["-U", "--multiline-dotall"]
    if args.glob:
        name_glob = None if args.type else name_only_glob(args.glob)  # two types would OR
        if name_glob is not None:
            argv += ["--type-add", f"toolbeltglob:{name_glob}", "--type", "toolbeltglob"]
        else:
            argv += ["--glob", args.glob]
    if args.type:
        argv += ["--type", args.type]
    if args.output_mode == "files_with_matches":
        argv.append("-l")
    elif args.output_mode == "count":
        argv += ["-c", "--with-filename", *(["--null"] if nul else [])]
    else:
        argv += ["-n", "--no-heading", "--with-filename", *(["--null"] if nul else [])]
        argv += ["--max-columns", "500", "--max-columns-preview"]
        before, after = _context(args)
        if before:
            argv += ["-B", str(before)]
        if after:
            argv += ["-A", str(after)]
    if not names:  # a directory walk skips huge files; a file named on its own is searched
        argv += ["--max-filesize", MAX_FILE_SIZE_ARG]
    argv.append("--line-buffered")  # what rg found survives the kill when the budget ends
    return [*argv, "-e", args.pattern, "--", *names]


def _context(args: GrepInput) -> tuple[int, int]:
    """Lines of context (before, after) each match asks for; (0, 0) for none."""
    before = args.context_before if args.context_before is not None else args.context
    after = args.context_after if args.context_after is not None else args.context
    return before or 0, after or 0


async def _run_rg(
    rg: str,
    argv: list[str],
    cwd: Path,
    wanted: int | None,
    budget: SearchBudget,
    *,
    cwd_fd: int | None = None,
    stdin: int | None = None,
    judged: JudgedFiles | None = None,
) -> list[str]:
    """rg's lines until ``wanted`` results (``--`` separators do not count) are in hand;
    ``judged``: the lines of the files it hides are left out, and do not count."""
    out: list[str] = []
    results = 0
    result = RgResult()
    keep = None if judged is None else judged.keeps()
    async with rg_lines(
        rg, argv, cwd=cwd, result=result, budget=budget, cwd_fd=cwd_fd, stdin=stdin
    ) as lines:
        async for raw in lines:
            if raw == b"--":
                out.append("--")
                continue
            if judged is not None and keep is not None:
                judged.feed(raw + b"\n")
                if not keep(raw):
                    continue
            out.append(raw.decode("utf-8", errors="replace"))
            results += 1
            if wanted is not None and results >= wanted:
                break
    return out


def _joined(line: str) -> str:
    """``path\0N:text`` → ``path:N:text`` (``-`` for context lines), ``path\0N`` → ``path:N``."""
    path, sep, rest = line.partition("\x00")
    if not sep:
        return line
    digits = len(rest) - len(rest.lstrip("0123456789"))
    marker = rest[digits : digits + 1] if digits < len(rest) else ":"
    return f"{path}{'-' if marker == '-' else ':'}{rest}"


def _glob_overrides_ignores(args: GrepInput) -> bool:
    """Whether ``args.glob`` went to rg as a ``--glob`` that can list gitignored files: a
    name-only glob became a file type (which cannot), an exclusion (``!x``) cannot either."""
    if not args.glob or args.glob.startswith("!"):
        return False
    return bool(args.type) or name_only_glob(args.glob) is None


def _drop_ignored(cwd: Path, lines: list[str], mode: Mode) -> list[str]:
    """rg lets a --glob override ignore files; drop what git ignores from the results."""
    paths = {_path_of(line, mode) for line in lines if line != "--"}
    ignored = git_ignored(cwd, paths)
    if not ignored:
        return lines
    return [line for line in lines if line == "--" or _path_of(line, mode) not in ignored]


def _drop_hidden(
    lines: list[str], mode: Mode, cwd: Path, judge: ListingJudge, budget: SearchBudget
) -> list[str]:
    """The lines whose file the listing's judge keeps; each file is judged once, with its
    stat (by name: the slow search works on names), and one that cannot be stat'ed is
    hidden. A content line without a path goes with the file before it. A name holding a
    line break, which a line cannot show exactly, is left out too (counted in
    ``budget.unnamed`` when the judge would show it)."""
    verdicts: dict[str, bool] = {}
    unnamed: set[str] = set()
    kept = []
    path = ""
    for line in lines:
        if line != "--":
            if mode == "files_with_matches" or "\x00" in line:
                path = _path_of(line, mode)
            hidden = verdicts.get(path)
            if hidden is None:
                try:
                    info = os.stat(cwd / path)
                except (OSError, ValueError):
                    hidden = True
                else:
                    hidden = judge(path, info)
                verdicts[path] = hidden
            if not hidden and "\n" in path:
                unnamed.add(path)
                continue
            if hidden:
                continue
        kept.append(line)
    budget.unnamed += len(unnamed)
    return kept


def _path_of(line: str, mode: Mode) -> str:
    if mode == "files_with_matches":
        return line
    return line.partition("\x00")[0]


def _page_with_separators(lines: list[str], start: int, limit: int | None) -> tuple[list[str], int]:
    """Results ``start`` to ``start + limit``, keeping the ``--`` between context groups."""
    page: list[str] = []
    taken = skipped = 0
    for line in lines:
        if line == "--":
            if page and page[-1] != "--":
                page.append(line)
            continue
        if skipped < start:
            skipped += 1
            continue
        if limit is not None and taken >= limit:
            break
        page.append(line)
        taken += 1
    while page and page[-1] == "--":
        page.pop()
    return page, taken


def _render_whole(args: GrepInput, found: Whole, *, nul: bool, budget: SearchBudget) -> ToolOutput:
    """``_render`` of all rg printed, without cutting it into lines when that changes
    nothing: no page to cut out of it, no context separators, and (``nul``) each line a
    ``path\\0…`` one, whose one NUL becomes the ``:`` rg would have printed (``_joined``:
    ``path\\0N:text`` is ``path:N:text``, ``path\\0N`` is ``path:N``)."""
    out = found.out
    taken = out.count(b"\n")
    limit = args.head_limit or None
    plain = (
        not args.offset
        and (limit is None or taken <= limit)
        and not any(_context(args))
        and (not nul or found.lines_named == taken == out.count(b"\0"))
    )
    if not plain:
        return _render(args, found.lines(), slow=False, nul=nul, budget=budget)
    if nul:
        out = out.replace(b"\0", b":")
    text = out[:-1].decode("utf-8", errors="replace")
    return _output(args, text, taken, more=False, budget=budget, slow=False)


def _render(
    args: GrepInput,
    lines: list[str],
    *,
    slow: bool,
    nul: bool,
    budget: SearchBudget | None = None,
) -> ToolOutput:
    """The page of results the model sees; ``nul``: lines are ``path\\0N:text`` from rg."""
    separators = lines.count("--")  # between context groups
    total_known = len(lines) - separators
    start = args.offset
    limit = args.head_limit or None
    if not separators:  # the common case, in slices rather than line by line
        page = lines[start:] if limit is None else lines[start : start + limit]
        taken = len(page)
    else:
        page, taken = _page_with_separators(lines, start, limit)
    if nul and args.output_mode != "files_with_matches":
        page = [_joined(line) for line in page]
    more = limit is not None and total_known > start + taken
    if args.output_mode == "files_with_matches" and taken:
        text = f"Found {taken} file{'s' * (taken != 1)}\n" + "\n".join(page)
    else:
        text = "\n".join(page)
    return _output(args, text, taken, more=more, budget=budget, slow=slow)


def _output(
    args: GrepInput,
    page: str,
    taken: int,
    *,
    more: bool,
    budget: SearchBudget | None,
    slow: bool,
) -> ToolOutput:
    """The result: ``page`` (``taken`` results from ``args.offset`` on), and the notes."""
    start = args.offset
    cut = budget is not None and budget.expired
    structured: dict[str, object] = {
        "mode": args.output_mode,
        "results": taken,
        "offset": start,
        "truncated": more or cut,
    }
    if not taken:
        empty = "No files found" if args.output_mode == "files_with_matches" else "No matches found"
        text = f"{empty}." if not start else f"No results after offset {start}."
    else:
        text = page
    if more:
        text += (
            f"\n\n[Showing results {start + 1}–{start + taken}; there are more. Pass "
            f"offset={start + taken} for the next page, or narrow the pattern, path or glob.]"
        )
    if budget is not None and budget.expired:
        text += "\n\n" + cut_note(budget)
    if budget is not None and budget.binary_at is not None:
        text += (
            f"\n\n[The file holds binary data from byte {budget.binary_at:,} on, which was not "
            "searched (as for the files a search of a directory finds); read_file shows what "
            "it is.]"
        )
    if budget is not None and budget.unnamed:
        text += "\n\n" + unnamed_note(budget)
    if slow:
        text += "\n\n[ripgrep was not found, so this used the slow pure-Python search.]"
    return ToolOutput.text(text, structured)
