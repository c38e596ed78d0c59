"""bash: run a command in the session's persistent shell, or in the background.

``cd`` and ``export`` persist between calls; a ``cd`` out of the workspace is undone with a
notice. Every process a command starts is ended when the call ends — on success, on timeout,
on cancellation — unless it was started with ``run_in_background``. Output (stdout and stderr
in order) streams as progress, and the model sees at most 30,000 characters, head and tail,
with the full output in a private file. A non-zero exit is an error result.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import anyio
from pydantic import BaseModel, Field, model_validator

from toolbelt.commands.access import JudgedCommand, judge_command
from toolbelt.commands.analysis import analyze_command
from toolbelt.config.trust import is_trusted
from toolbelt.core.access import Access, AccessKind, SandboxProfile
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.paths.containment import is_within_any
from toolbelt.paths.guard import protections_of
from toolbelt.sandbox.sandbox import Sandbox
from toolbelt.shell.environment import command_environment
from toolbelt.shell.git_env import git_overrides, shell_exports
from toolbelt.shell.readonly import changes_shell_state, state_builtins_only
from toolbelt.tools._files import file_guard
from toolbelt.tools._sandboxed import denial_note, git_writes
from toolbelt.tools._shell import job_starter, session_sandbox, shell_for
from toolbelt.tools._syntax import syntax_error

__all__ = ["BashInput", "BashTool"]

DESCRIPTION = """\
Run a bash command in a persistent shell: the working directory and exported variables carry \
over between calls (cd out of the workspace is undone). stdin is empty, so commands that wait \
for input end at once. Output is stdout and stderr combined; at most 30,000 characters are \
shown (head and tail) and the full output is saved to a file whose path is given. A non-zero \
exit code is reported as an error. `timeout_ms` defaults to 120000 (at most 600000); on \
timeout the command and everything it started are killed. Set `run_in_background` for \
servers and long jobs: you get a job id to pass to bash_output and kill_shell. Prefer \
read_file, grep, glob and edit_file over cat, grep, find and sed. Quote paths with spaces. \
Unless the user turned it off, commands run in an OS sandbox: they can write only inside \
the workspace (not .git/ or other protected paths), cannot read the user's secrets and have \
no network; read-only commands cannot write at all. If the sandbox blocks something a \
command really needs, retry with `sandbox: false` and a `justification`: the user is asked \
every time."""


class BashInput(ToolInput):
    """Arguments of `bash`."""

    command: str = Field(min_length=1, description="The command to run.")
    timeout_ms: int = Field(default=120_000, ge=1, le=600_000, description="Timeout in ms.")
    description: str | None = Field(default=None, description="What it does, in a few words.")
    run_in_background: bool = Field(default=False, description="Start it and return at once.")
    sandbox: bool = Field(
        default=True,
        description="false runs the command outside the OS sandbox; the user is always asked.",
    )
    justification: str | None = Field(
        default=None, description="Why the command must run outside the sandbox (sandbox: false)."
    )

    @model_validator(mode="after")
    def _justified(self) -> BashInput:
        if not self.sandbox and not (self.justification or "").strip():
            raise ValueError(
                "sandbox: false needs a justification saying what the sandbox blocked and why "
                "the command needs it"
            )
        return self


class BashOutput(BaseModel):
    """Structured result of `bash` (a background start has only `id` and `output_path`)."""

    exit_code: int | None = None
    timed_out: bool | None = None
    cwd: str | None = None
    output_path: str | None = Field(default=None, description="The full output, when spilled.")
    duration_ms: float | None = None
    id: str | None = Field(default=None, description="Background job id.")


class BashTool(Tool[BashInput]):
    """Shell commands with process-tree cleanup."""

    name = "bash"
    rule_family = "Bash"
    claude_name = "Bash"
    title = "Run shell command"
    description = DESCRIPTION
    output_model = BashOutput
    example = {"command": "pytest -q tests/test_app.py", "description": "Run the app tests"}
    hints = ToolHints(open_world=True)

    async def access(self, args: BashInput, ctx: ToolContext) -> Access:
        # text bash cannot parse is refused before anyone is asked to approve it
        unparsable = await anyio.to_thread.run_sync(syntax_error, args.command)
        if unparsable is not None:
            raise ToolError(unparsable)
        judged = judge_command(args.command, file_guard(ctx), ctx.cwd)
        command = judged.access
        sandbox = session_sandbox(ctx.session)
        confined = sandbox.active and args.sandbox
        background = args.run_in_background
        readonly = command.readonly and not background
        # a command that changes the shell itself runs in the main shell, where it lasts:
        # read-only only when it is nothing but such builtins (`export LANG=C`, `set -e`)
        in_main = confined and not background and changes_shell_state(args.command)
        if in_main and not (readonly and state_builtins_only(judged.analysis)):
            readonly = False
        reads_inside = all(r.inside for r in judged.read)
        profile: SandboxProfile = "workspace"
        if sandbox.active and not args.sandbox:
            profile = "unconfined"
        elif confined and readonly and in_main:
            profile = "workspace"  # builtins only: they read and write nothing
        elif confined and readonly and reads_inside and all(w.inside for w in judged.written):
            profile = "readonly"  # runs without asking: make it true
        elif confined and git_writes(judged.analysis) and not background:
            profile = "git"  # .git/ writable but hooks and config: it asks
        elif confined and not in_main and sandbox.creates and _creates_only(judged):
            profile = "create"  # the fewer-prompts rule: only new files, see docs
        outside = (
            escape_for_terminal(args.justification or "", limit=300)
            if profile == "unconfined"
            else None
        )
        summary = args.command  # the real command: a description is the model's claim
        if background:
            summary = f"start in the background: {summary}"
        return Access(
            AccessKind.EXECUTE,
            paths=tuple(w.path for w in judged.written),
            protections=protections_of(*judged.written, *judged.read),
            command=replace(
                command,
                readonly=readonly,
                sandboxed=profile == "create",
                asks_because=_why_asked(judged, ctx, confined=confined, sandbox=sandbox),
                outside_sandbox=outside,
                profile=profile,
                # asked for another reason and approved: as the person approved it
                prompted_profile="workspace" if profile in ("readonly", "create") else None,
            ),
            summary=f"`{summary}`" if len(summary) < 200 else f"`{summary[:197]}...`",
        )

    async def run(self, args: BashInput, ctx: ToolContext) -> ToolOutput:
        if args.run_in_background:
            approved = ctx.access if ctx.access is not None else await self.access(args, ctx)
            command = await anyio.to_thread.run_sync(_with_git_guard, args.command, ctx)
            job = job_starter(ctx).start(
                command, ctx.cwd, command_environment(), profile=_profile(approved)
            )
            text = (
                f"Started in the background as {job.id} (output in {job.output_path}). Check it "
                f'with bash_output {{"id": "{job.id}"}}; stop it with kill_shell.'
            )
            return ToolOutput.text(text, {"id": job.id, "output_path": str(job.output_path)})
        # the executor hands over the access it approved; run on its own, judge it here
        approved = ctx.access if ctx.access is not None else await self.access(args, ctx)
        profile = _profile(approved)
        shell = shell_for(ctx, profile)
        if shell.cwd != ctx.cwd:
            await shell.set_cwd(ctx.cwd)
        progress = _Throttle(ctx)
        command = await anyio.to_thread.run_sync(_with_git_guard, args.command, ctx)
        try:
            result = await shell.run(
                command, timeout=args.timeout_ms / 1000, on_output=progress.add
            )
        finally:
            progress.close()
        notes = list(result.notes)
        if not is_within_any(result.cwd, ctx.session.roots):
            await shell.set_cwd(ctx.session.cwd)
            notes.append(
                f"Shell cwd was reset to {ctx.session.cwd}: cd out of the workspace is not allowed."
            )
        else:
            ctx.session.cwd = result.cwd
        output = result.output.rstrip("\n")
        structured = {
            "exit_code": result.exit_code,
            "timed_out": result.timed_out,
            "cwd": str(ctx.session.cwd),
            "output_path": str(result.output_path) if result.output_path else None,
            "duration_ms": round(result.duration * 1000, 1),
        }
        if result.timed_out:
            head = (
                f"Command timed out after {args.timeout_ms / 1000:g} s and was killed, with "
                "everything it started."
            )
            body = f"{head}\nPartial output:\n{output}" if output else head
            return ToolOutput.text(_with_notes(body, notes), structured, is_error=True)
        if result.exit_code != 0:
            if args.sandbox and session_sandbox(ctx.session).active:
                note = denial_note(output, profile=profile)
                notes += [note] if note else []
            body = f"Exit code {result.exit_code}\n{output}".rstrip("\n")
            return ToolOutput.text(_with_notes(body, notes), structured, is_error=True)
        return ToolOutput.text(_with_notes(output or "(no output)", notes), structured)


def _profile(approved: Access) -> SandboxProfile:
    return "workspace" if approved.command is None else approved.command.profile


def _creates_only(judged: JudgedCommand) -> bool:
    """Whether every effect of the command is a file it creates: the analysis sees all it
    does (``effects_seen``), nothing is dangerous, each write is a path inside the workspace
    that does not exist yet and is not protected, and every read is inside."""
    made = judged.analysis.made_dirs  # `mkdir -p build` leaves an existing build/ as it is
    return (
        judged.analysis.effects_seen
        and not judged.access.dangerous
        and all(w.inside and w.protection is None for w in judged.written)
        and all(not w.exists or (w.raw in made and w.path.is_dir()) for w in judged.written)
        and all(r.inside for r in judged.read)
    )


def _why_asked(judged: JudgedCommand, ctx: ToolContext, *, confined: bool, sandbox: Sandbox) -> str:
    """What keeps the command from running without a prompt (``CommandAccess.asks_because``)."""
    if not confined or judged.access.readonly:
        return ""
    if not judged.analysis.effects_seen:
        return (
            " whose reads, writes and deletions toolbelt cannot see (a program or option it "
            "does not model), so the sandbox cannot make it safe to run unasked"
        )
    made = judged.analysis.made_dirs
    existing = next(
        (w for w in judged.written if w.exists and not (w.raw in made and w.path.is_dir())), None
    )
    if existing is not None:
        return (
            f" that changes {file_guard(ctx).display(existing.path)}, which exists (a command "
            "runs unasked only when all it writes are new files)"
        )
    if not sandbox.creates:
        return " (this kernel's Landlock cannot keep existing files from being emptied)"
    return ""


def _with_git_guard(command: str, ctx: ToolContext) -> str:
    """``command`` preceded, in an untrusted workspace, by the git overrides (see git_env)."""
    session = ctx.session
    trusted = session.trusted if session.trusted is not None else is_trusted(session.root)
    if trusted:
        return command
    dirs = [ctx.cwd / d for d in analyze_command(command).git_dirs if not d.startswith("\0")]
    overrides = git_overrides([d for d in dirs if d.is_dir()], command_environment())
    return f"{shell_exports(overrides)}\n{command}"


def _with_notes(text: str, notes: list[str]) -> str:
    return text + "".join(f"\n\n[{note}]" for note in notes)


class _Throttle:
    """Forward output as progress events, at most one every 0.1 s, in pieces of at most 2,000
    chars; output that comes sooner waits on a timer, never for the command's next output."""

    INTERVAL = 0.1

    def __init__(self, ctx: ToolContext) -> None:
        self._ctx = ctx
        self._pending = ""
        self._last = 0.0
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None

    def add(self, text: str) -> None:
        self._pending = (self._pending + text)[-2000:]  # bounded however fast output comes
        wait = self._last + self.INTERVAL - time.monotonic()
        if wait <= 0:
            self._send()
        elif self._timer is None:
            self._timer = self._loop.call_later(wait, self._send)

    def close(self) -> None:
        """Send what is left; no event follows."""
        self._send()

    def _send(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._last = time.monotonic()
        if self._pending:
            text, self._pending = self._pending, ""
            self._ctx.progress(text)
