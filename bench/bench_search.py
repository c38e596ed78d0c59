"""grep and glob through toolbelt, side by side with raw rg, Alan Code and Claude Code.

Corpus: ``../shared/bench/make-corpus stdlib .corpus/stdlib`` (and ``big`` when present).
Cases, one interleaved run: four patterns (a literal, a regex, a case-insensitive word, a rare
string) × three modes (content, files, count), through toolbelt's executor with
``head_limit=0`` (all results, like raw rg) and with the default page (250), against raw
``rg`` with the same flags reading all of its output; glob ``**/*.py`` and
``**/test_*.py`` against ``rg --files -g`` — which is not the same answer: a ``-g`` whitelist
overrides .gitignore for files it names, and rg does not sort — so also against the rg command
that gives toolbelt's answer (a type filter, ``--sortr modified``). Peers (Alan Code
in-process, Claude Code over MCP) are measured when ``../shared/bench/install-peers .peers``
has installed them.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from harness import Case, interleave, side_by_side, write_section
from peers import AlanCode, McpPeer, claude_available
from toolbelt.config.factory import build_policy
from toolbelt.core.context import Session
from toolbelt.core.executor import Executor, ToolCall
from toolbelt.tools import builtin_toolset

ROOT = Path(__file__).resolve().parent.parent
RG = str(Path(sys.executable).with_name("rg"))
PATTERNS = {
    "literal `def __init__`": (["def __init__"], False),
    "regex `class \\w+\\(.*Exception\\)`": ([r"class \w+\(.*Exception\)"], False),
    "case-insensitive word `-i -w timeout`": (["timeout"], True),
    "rare `xyzzy`": (["xyzzy"], False),
}
ROUNDS = 11  # the big corpus (≈300 MB) competes for page cache; fewer rounds left ±15% noise
MODES = {"content": ["-n", "--no-heading"], "files": ["-l"], "count": ["-c"]}
OUR_MODE = {"content": "content", "files": "files_with_matches", "count": "count"}


def main() -> None:
    corpora = [p for p in (ROOT / ".corpus/stdlib", ROOT / ".corpus/big") if p.is_dir()]
    if not corpora:
        raise SystemExit("build a corpus first: ../shared/bench/make-corpus stdlib .corpus/stdlib")
    sections = [run_corpus(corpus) for corpus in corpora]
    body = "Command: `.venv/bin/python bench/run.py search`\n\n" + "\n\n".join(sections)
    print(body)
    write_section("search", body)


def run_corpus(corpus: Path) -> str:
    loop = asyncio.new_event_loop()
    session = Session(corpus)
    executor = Executor(builtin_toolset(), session, policy=build_policy(session, "bypass"))

    def ours(args: dict[str, object]) -> object:
        return loop.run_until_complete(
            executor.run_one(ToolCall("b", str(args.pop("_tool")), args))
        )

    alan = AlanCode.start(corpus)
    claude = McpPeer.claude(corpus) if claude_available() else None
    cases: list[tuple[str, list[Case]]] = []
    for label, (pattern, icase) in PATTERNS.items():
        for mode, flags in MODES.items():
            raw = [
                RG,
                "--hidden",
                "--glob",
                "!.git",
                *(["-i", "-w"] if icase else []),
                *flags,
                "-e",
                pattern[0],
            ]
            args = {"pattern": pattern[0], "output_mode": OUR_MODE[mode], "case_insensitive": icase}
            group = [
                Case("rg", lambda raw=raw: subprocess.run(raw, cwd=corpus, capture_output=True)),
                Case(
                    "toolbelt (all)", lambda a=args: ours({"_tool": "grep", **a, "head_limit": 0})
                ),
                Case("toolbelt (page)", lambda a=args: ours({"_tool": "grep", **a})),
            ]
            if alan:
                alan_args = {"pattern": pattern[0], "output_mode": OUR_MODE[mode]}
                group.append(Case("Alan Code", lambda a=alan_args: alan.call("Grep", a)))
            if claude:
                claude_args = {"pattern": pattern[0], "output_mode": OUR_MODE[mode], "-i": icase}
                group.append(
                    Case("Claude Code (MCP)", lambda a=claude_args: claude.call("Grep", a))
                )
            cases.append((f"{label} × {mode}", group))
    globs = ["**/*.py", "**/test_*.py"]
    for pattern in globs:
        group = [
            Case(
                "rg",
                lambda p=pattern: subprocess.run(
                    [RG, "--files", "--hidden", "--glob", "!.git", "-g", p],
                    cwd=corpus,
                    capture_output=True,
                ),
            ),
            Case(
                "toolbelt (all)",
                lambda p=pattern: ours({"_tool": "glob", "pattern": p, "limit": 100_000}),
            ),
            Case(
                "rg, same answer (type filter, newest first)",
                lambda p=pattern: subprocess.run(
                    [
                        *(RG, "--files", "--hidden", "--glob", "!.git", "--sortr", "modified"),
                        *("--type-add", f"g:{p.removeprefix('**/')}", "--type", "g"),
                    ],
                    cwd=corpus,
                    capture_output=True,
                ),
            ),
            Case("toolbelt (page)", lambda p=pattern: ours({"_tool": "glob", "pattern": p})),
        ]
        if alan:
            group.append(Case("Alan Code", lambda p=pattern: alan.call("Glob", {"pattern": p})))
        if claude:
            group.append(
                Case("Claude Code (MCP)", lambda p=pattern: claude.call("Glob", {"pattern": p}))
            )
        cases.append((f"glob `{pattern}`", group))
    for _, group in cases:
        interleave(group, rounds=ROUNDS)
    loop.run_until_complete(session.aclose())
    loop.close()
    if alan:
        alan.close()
    if claude:
        claude.close()
    files = sum(1 for _ in corpus.rglob("*") if ".git" not in _.parts)
    header = (
        f"### corpus `{corpus.name}` ({files} files)\n\n"
        f"median of {ROUNDS} interleaved rounds; ×N = ratio to raw rg in the same run.\n\n"
    )
    return header + side_by_side(cases, "case")
