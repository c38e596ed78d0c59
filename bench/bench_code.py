"""Code intelligence: what diagnostics after edits cost, and how fast outlines and the repo map
are.

- edit latency with diagnostics on vs off: edit_file on one module of a medium Python
  project (the standard library's ``email``, ``json``, ``http`` and ``logging`` packages, about
  40 files), basedpyright warm (goal: ≤ 300 ms added at the median);
- outline of a 5,000-line Python file (the first 5,000 lines of ``_pydecimal.py``), parsed
  afresh each time (goal ≤ 50 ms);
- the repository map of the standard-library corpus (about 2,000 source files), computed
  afresh each time, nothing cached (goal ≤ 1 s), wall and CPU time.

toolbelt is called in-process through its executor, one session per case; the two sessions'
edits alternate, each changing the same function back and forth.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from harness import Case, fmt_time, interleave, table, write_section
from toolbelt.config.factory import build_policy
from toolbelt.core.context import Session, SessionConfig
from toolbelt.core.executor import Executor, ToolCall
from toolbelt.lsp.settings import LspSettings
from toolbelt.tools import builtin_toolset

WORK = Path(__file__).resolve().parent / ".work" / "code"
CORPUS = Path(__file__).resolve().parent.parent / ".corpus" / "stdlib"
PACKAGES = ("email", "json", "http", "logging")
TARGET = "email/quoprimime.py"
ROUNDS = 21


def make_project() -> Path:
    project = WORK / "project"
    if not project.exists():
        project.mkdir(parents=True)
        for package in PACKAGES:
            shutil.copytree(CORPUS / package, project / package)
    return project


class EditLoop:
    """One session editing ``TARGET`` back and forth, diagnostics on or off."""

    def __init__(self, loop: asyncio.AbstractEventLoop, root: Path, *, diagnostics: bool) -> None:
        self.loop = loop
        self.session = Session(root, config=SessionConfig(require_read_before_write=False))
        self.session.provide(LspSettings, LspSettings(diagnostics=diagnostics, timeout=30))
        self.executor = Executor(
            builtin_toolset(), self.session, policy=build_policy(self.session, "bypass")
        )
        self.flip = False
        self.last = ""

    def edit(self) -> None:
        old, new = "return _QUOPRI_MAP[ord(c)]", "return _QUOPRI_MAP[ord(c)]  # edited"
        if self.flip:
            old, new = new, old
        self.flip = not self.flip
        call = ToolCall("b", "edit_file", {"path": TARGET, "old_string": old, "new_string": new})
        result = self.loop.run_until_complete(self.executor.run_one(call))
        assert not result.is_error, result.text
        self.last = result.text

    def close(self) -> None:
        self.loop.run_until_complete(self.session.aclose())


def edit_latency() -> str:
    project = make_project()
    base = WORK / "copies"
    shutil.rmtree(base, ignore_errors=True)
    roots = {}
    for name in ("off", "on"):
        roots[name] = base / name
        shutil.copytree(project, roots[name])
    os.environ.pop("TOOLBELT_DIAGNOSTICS", None)
    loop = asyncio.new_event_loop()
    off = EditLoop(loop, roots["off"], diagnostics=False)
    on = EditLoop(loop, roots["on"], diagnostics=True)
    try:
        for _ in range(4):  # start basedpyright, open the file: the warm state measured
            on.edit()
        assert "basedpyright" in on.last, on.last
        cases = [Case("diagnostics off", off.edit), Case("diagnostics on (basedpyright)", on.edit)]
        interleave(cases, ROUNDS)
    finally:
        on.close()
        off.close()
        loop.close()
    rows = [[c.name, fmt_time(c.median), fmt_time(c.percentile(0.9))] for c in cases]
    added = cases[1].median - cases[0].median
    rows.append(["**added by diagnostics (median)**", f"**{fmt_time(added)}**", "goal ≤ 300 ms"])
    files = sum(1 for _ in project.rglob("*.py"))
    return (
        f"### edit latency, diagnostics on vs off\n\nedit_file on `{TARGET}` in a {files}-file "
        f"project (stdlib {', '.join(PACKAGES)}), median of {ROUNDS} interleaved rounds; "
        "basedpyright 1.40.2 warm (started, the file open).\n\n"
        + table(rows, ["case", "median", "p90"])
    )


def outline_and_map() -> str:
    from toolbelt.core.programs import find_rg
    from toolbelt.outline.grammars import grammar_for
    from toolbelt.outline.outline import outline, render
    from toolbelt.outline.repo_map import repo_map

    lines = (CORPUS / "_pydecimal.py").read_bytes().split(b"\n")[:5000]
    data = b"\n".join(lines) + b"\n"
    grammar = grammar_for(Path("x.py"))
    assert grammar is not None
    rg = find_rg()
    assert rg is not None
    listed = subprocess.run([rg, "--files"], cwd=CORPUS, capture_output=True, check=True)
    files = [CORPUS / os.fsdecode(line) for line in listed.stdout.split(b"\n") if line]
    sources = sum(1 for path in files if grammar_for(path) is not None)
    cpu: list[float] = []

    def mapped() -> None:
        started = time.process_time()
        repo_map(CORPUS, files)
        cpu.append(time.process_time() - started)

    cases = [
        Case("outline of a 5,000-line Python file", lambda: render(outline(data, grammar))),
        Case(f"repo map of the stdlib corpus ({sources} source files)", mapped),
    ]
    interleave(cases, 11)
    rows = [
        [cases[0].name, fmt_time(cases[0].median), fmt_time(cases[0].percentile(0.9)), "≤ 50 ms"],
        [
            cases[1].name + f", CPU {fmt_time(statistics.median(cpu))}",
            fmt_time(cases[1].median),
            fmt_time(cases[1].percentile(0.9)),
            "≤ 1 s",
        ],
    ]
    return (
        "### outline and repository map\n\nmedian of 11 interleaved rounds, no cache (CPU: "
        "the map's own process time; ripgrep finds the definitions besides).\n\n"
        + table(rows, ["case", "median", "p90", "goal"])
    )


def main() -> None:
    if not (Path(sys.prefix) / "bin" / "basedpyright-langserver").exists():
        raise SystemExit("basedpyright is not installed: run scripts/bootstrap")
    sections = [edit_latency(), outline_and_map()]
    body = "Command: `.venv/bin/python bench/run.py code`\n\n" + "\n\n".join(sections)
    write_section("code", body)
    print(body)
