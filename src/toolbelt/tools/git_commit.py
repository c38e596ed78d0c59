"""git_commit: stage and commit in the workspace's repository, with a co-author trailer.

It does one thing a careful person would: stage the named paths (or every change to tracked
files), commit with the message plus the configured trailer, and report the new commit's SHA
and stat. It never passes ``--no-verify`` or ``--amend``, never pushes, never changes config;
it refuses, saying why, when a merge, rebase, cherry-pick or revert is in progress, on a
detached HEAD, and when nothing is staged. git runs inside the sandbox's git profile, as
``git commit`` through the bash tool does, with the repository found by ``_git_place`` (its
``core.worktree`` never moves the commit elsewhere; an untrusted repository whose ``.git``
points outside the workspace is refused); in an untrusted workspace the repository's
program-starting config is neutralised too (``_git``). A trusted repository's hooks run,
confined. Permission is the ``Bash`` family's: ``Bash(git commit:*)`` rules apply, and it asks
by default.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field

from toolbelt.config.runners import session_runner
from toolbelt.core.access import Access, AccessKind, CommandAccess
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.tools._files import resolve
from toolbelt.tools._git import GitResult, GitRunner
from toolbelt.tools._git_place import GitPlace, locate
from toolbelt.tools._settings import session_settings

__all__ = ["DEFAULT_TRAILER", "GitCommitInput", "GitCommitTool"]

DEFAULT_TRAILER = "Co-authored-by: toolbelt <toolbelt@users.noreply.invalid>"
_IN_PROGRESS = {
    "MERGE_HEAD": "a merge",
    "rebase-merge": "a rebase",
    "rebase-apply": "a rebase or `git am`",
    "CHERRY_PICK_HEAD": "a cherry-pick",
    "REVERT_HEAD": "a revert",
}

DESCRIPTION = """\
Commit changes to the workspace's git repository. Stages the files in `paths` (new, changed or \
deleted; paths inside the workspace), or, without `paths`, every change to already tracked \
files (new files are not added unless listed); anything the user had already staged is \
committed too. The message is used as written (first line: a short summary), and a \
co-author trailer is added. Returns the new commit's SHA and the files it changed. It never \
amends, skips hooks, pushes or changes git config, and refuses while a merge or rebase is in \
progress, on a detached HEAD, or when there is nothing to commit — resolve that first or ask \
the user."""


class GitCommitInput(ToolInput):
    """Arguments of `git_commit`."""

    message: str = Field(min_length=1, max_length=20_000, description="The commit message.")
    paths: list[str] | None = Field(
        default=None,
        min_length=1,
        max_length=1000,
        description="Files to stage before committing; omit to stage every tracked change.",
    )


class GitCommitOutput(BaseModel):
    """Structured result of `git_commit`."""

    sha: str = Field(description="The new commit's full SHA.")
    branch: str = Field(description="The branch it was committed on.")
    stat: str = Field(description="`git show --stat` summary of the commit.")


class GitCommitTool(Tool[GitCommitInput]):
    """Stage and commit with a trailer; refuses unsafe repository states."""

    name = "git_commit"
    title = "Git commit"
    description = DESCRIPTION
    output_model = GitCommitOutput
    example = {
        "message": "Fix off-by-one in pager\n\nThe last page was skipped.",
        "paths": ["src/pager.py"],
    }
    hints = ToolHints(destructive=False)
    programmatic = False
    rule_family = "Bash"  # `git commit` to Bash rules: Bash(git commit:*) allows or denies it

    async def access(self, args: GitCommitInput, ctx: ToolContext) -> Access:
        for raw in args.paths or ():
            if not resolve(ctx, raw).inside:
                raise ToolError(f"{raw!r} is outside the workspace; commit only workspace files.")
        subject = args.message.strip().splitlines()[0][:100] if args.message.strip() else ""
        what = ", ".join(args.paths) if args.paths else "all tracked changes"
        return Access(
            AccessKind.EXECUTE,
            command=CommandAccess("git commit", commands=("git commit",)),
            summary=f"git commit ({what}): {subject}",
            preview=args.message,
        )

    async def run(self, args: GitCommitInput, ctx: ToolContext) -> ToolOutput:
        settings = session_settings(ctx.session)
        place, linked = _repository(ctx, trusted=settings.trusted)
        _refuse_in_progress(place)
        runner = session_runner(ctx.session, "git", git_dirs=linked)
        if not runner.git_writable:
            raise ToolError(
                "The sandbox here cannot let git write .git/ while keeping its hooks and config "
                "read-only (this machine allows no user namespaces and has no bubblewrap); run "
                '`git commit` through bash with "sandbox": false and a justification (the user '
                "will be asked), or ask the user to commit."
            )
        git = GitRunner(ctx.cwd, trusted=settings.trusted, place=place, runner=runner)
        trailer = DEFAULT_TRAILER if settings.commit_trailer is None else settings.commit_trailer
        message = _with_trailer(args.message, trailer)
        try:
            output = await _commit(git, args.paths, message)
        except ToolError as exc:
            if not git.notes:
                raise
            raise ToolError(_with_notes(str(exc), git.notes)) from exc
        if not git.notes:
            return output
        return ToolOutput.text(_with_notes(output.text_content, git.notes), output.structured)


def _repository(ctx: ToolContext, *, trusted: bool) -> tuple[GitPlace, list[Path]]:
    """The repository to commit to, and its git directories outside the roots (which the
    git profile must let git write); ToolError where there is none, or where an untrusted
    repository would lead git outside the workspace."""
    place = locate(ctx.cwd)
    if place is None:
        raise ToolError(
            "The working directory is not inside a git repository; there is nothing to commit to."
        )
    roots = ctx.session.roots
    outside = place.outside(roots)
    if outside and not trusted:
        raise ToolError(
            f"This repository's {_what(place, outside[0])} is outside the workspace "
            f"({outside[0]}), and the workspace is not trusted, so git_commit does not "
            "write there; ask the user to commit by hand, or to trust the workspace."
        )
    own = [Path(os.path.realpath(root / ".git")) for root in roots]
    return place, [d for d in dict.fromkeys((place.git_dir, place.common_dir)) if d not in own]


def _with_notes(text: str, notes: list[str]) -> str:
    """``text`` and what the sandbox undid after git ran (protected names a hook created)."""
    return text + "".join(f"\n\n[{note}]" for note in notes)


def _what(place: GitPlace, path: Path) -> str:
    """How the refusal names the part of ``place`` at ``path``."""
    if path == place.git_dir or path == place.common_dir:
        return "git directory (its .git points there)"
    return "work tree"


async def _commit(git: GitRunner, paths: list[str] | None, message: str) -> ToolOutput:
    branch = await git.run("symbolic-ref", "--quiet", "--short", "HEAD")
    if branch.returncode != 0:
        raise ToolError(
            "HEAD is detached (not on a branch), so a commit would be left dangling; ask the "
            "user which branch to commit on."
        )
    staged = await (git.run("add", "-A", "--", *paths) if paths else git.run("add", "-u"))
    _check(staged, "stage the changes")
    if (await git.run("diff", "--cached", "--quiet")).returncode == 0:
        listed = f" in {', '.join(paths)}" if paths else " to tracked files"
        raise ToolError(
            f"There is nothing to commit: no changes{listed} are staged. Make the change first, "
            "or list new files in `paths`."
        )
    _check(
        await git.run("commit", "--quiet", "--cleanup=whitespace", "-F", "-", stdin=message),
        "commit",
    )
    sha = (await git.run("rev-parse", "HEAD")).stdout.strip()
    shown = await git.run(
        "show", "--stat", "--format=", "--no-ext-diff", "--no-textconv", "--no-color", "HEAD"
    )
    stat = shown.stdout.strip("\n")
    name = branch.stdout.strip()
    subject = message.strip().splitlines()[0]
    text = f"Committed {sha[:12]} on {name}: {subject}\n{stat}"
    return ToolOutput.text(text, {"sha": sha, "branch": name, "stat": stat})


def _refuse_in_progress(place: GitPlace) -> None:
    """ToolError while a merge, rebase, cherry-pick or revert is under way (its marker is in
    the worktree's own git directory, where ``git rev-parse --git-path`` finds it)."""
    for marker, what in _IN_PROGRESS.items():
        if os.path.lexists(place.git_dir / marker):
            raise ToolError(
                f"{what.capitalize()} is in progress in this repository; finish or abort it "
                "(or ask the user) before committing."
            )


def _check(result: GitResult, doing: str) -> None:
    if result.returncode != 0:
        detail = (result.stderr.strip() or result.stdout.strip())[-2000:]
        hint = ""
        if "failed to sign" in detail or "signing failed" in detail:
            hint = (
                " (the repository signs its commits, and the sandbox git runs in hides the "
                "user's keys and agent: ask the user to commit)"
            )
        raise ToolError(f"git could not {doing}: {detail}{hint}")


def _with_trailer(message: str, trailer: str) -> str:
    body = message.strip("\n").rstrip()
    if not trailer or trailer in body.splitlines():
        return body + "\n"
    last_paragraph = body.rsplit("\n\n", 1)[-1]
    trailer_block = all(
        ":" in line and not line.startswith(" ") for line in last_paragraph.splitlines()
    )
    separator = "\n" if trailer_block and "\n\n" in body else "\n\n"
    return f"{body}{separator}{trailer}\n"
