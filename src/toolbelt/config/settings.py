"""Settings files in Claude Code's format: permission rules, mode and hooks, from three scopes.

``$XDG_CONFIG_HOME/toolbelt/settings.json`` (user; ``~/.config`` when unset),
``<root>/.toolbelt/settings.json`` (project, committed) and
``<root>/.toolbelt/settings.local.json`` (local, where "always allow" answers go) are merged in
that order: rule lists and hook lists are concatenated, and the last ``defaultMode`` wins.

Unknown top-level keys are tolerated so a whole Claude settings file can be pasted (a key
neither toolbelt nor Claude Code knows, most likely a misspelling, is warned about with the
closest known key: ``config.settings_keys``), but the ``permissions``, ``hooks``,
``webFetch``, ``gitCommit``, ``sandbox``, ``toolSearch``, ``sessions``, ``compaction``,
``subagents``, ``checkpoints`` and ``lsp`` sections and the ``editTool`` key are validated: a
file that is not JSON, has the wrong shape or holds a malformed rule is a ``SettingsError``
naming the file and the line. A silently ignored deny rule is worse than refusing to start.
Missing files are fine.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from toolbelt.checkpoints.settings import CheckpointSettings
from toolbelt.config.files import ConfigFileError, read_config_text
from toolbelt.config.launch_files import Pinned, hooks_section_launch
from toolbelt.config.launches import LaunchPin, changed_notice, unapproved
from toolbelt.config.settings_keys import unknown_key_warnings
from toolbelt.config.settings_values import SETTING_MODES, EditTool
from toolbelt.config.trust import approved_launches, is_trusted, user_config_dir
from toolbelt.core.errors import SettingsError
from toolbelt.core.strict_json import StrictJsonError, strict_loads
from toolbelt.files.atomic import atomic_write
from toolbelt.hooks.config import check_event
from toolbelt.policy.rules import Rule, RuleSet, parse_rule
from toolbelt.sandbox.runner_policy import RunnerPolicy

if TYPE_CHECKING:  # the file's models (and pydantic) load when a settings file is read
    from toolbelt.config.settings_file import (
        _Checkpoints,
        _Lsp,
        _Sandbox,
        _SettingsFile,
        _ToolSearch,
    )

__all__ = [
    "LISTS",
    "Settings",
    "add_local_rule",
    "load_settings",
    "settings_files",
    "untrusted_notice",
]

ListName = Literal["allow", "ask", "deny"]
LISTS: tuple[ListName, ...] = ("allow", "ask", "deny")
LOCAL_FILE = "settings.local.json"


@dataclass
class Settings:
    """Merged rules and hooks, with the files they came from."""

    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    hooks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Raw hook groups per event, as written (validated); ``hooks.config.hooks_for`` reads them."""
    default_mode: str | None = None
    """A toolbelt mode name (``acceptEdits`` in the file becomes ``accept_edits``)."""
    additional_directories: list[Path] = field(default_factory=list)
    bypass_disabled: bool = False
    trusted: bool = True
    """Whether the workspace's own settings files were applied in full."""
    ignored: list[str] = field(default_factory=list)
    """What an untrusted workspace's files asked for and did not get, one line per file."""
    approved: dict[str, LaunchPin] | None = None
    """The pins of the program-starting parts the user approved when trusting the workspace
    (``config.launches``); None when everything present is approved (``--trust-workspace``)."""
    changed: list[str] = field(default_factory=list)
    """The workspace's hooks left out because they changed since it was trusted."""
    warnings: list[str] = field(default_factory=list)
    """Parts of the files that were ignored (unknown keys), one sentence each."""
    workspace: Path | None = None
    """The workspace root the settings were read for."""
    files: list[Path] = field(default_factory=list)
    home: Path | None = None
    """The home ``~`` stood for when loading (None: the real one)."""
    private_origins: list[str] = field(default_factory=list)
    """``webFetch.allowPrivateOrigins``: origins web_fetch may reach though they are private."""
    commit_trailer: str | None = None
    """``gitCommit.trailer``: the line git_commit adds to messages ("" for none)."""
    sandbox_mode: str | None = None
    """``sandbox.mode``: auto, landlock, bwrap or off (the last file that sets it wins)."""
    sandbox_network: str | list[str] | None = None
    """``sandbox.network``: "off", "on" or ["host:port", …]."""
    hook_sandbox: RunnerPolicy = field(default_factory=RunnerPolicy)
    """``sandbox.hooks`` of the user's own settings: where command hooks run (confined, with
    the network off, unless it says otherwise; ``runners.runner``)."""
    mcp_sandbox: RunnerPolicy = field(default_factory=RunnerPolicy)
    """``sandbox.mcpServers`` of the user's own settings: where the workspace's stdio MCP
    servers run."""
    tool_search_mode: Literal["auto", "always", "never"] | None = None
    """``toolSearch.mode``: when MCP tools are deferred behind tool_search (last file wins)."""
    tool_search_max_tools: int | None = None
    """``toolSearch.maxTools``: defer when there are more MCP tools than this."""
    tool_search_context_share: float | None = None
    """``toolSearch.contextShare``: ...or when their schemas pass this share of the context."""
    tool_search_form: Literal["native", "proxy"] | None = None
    """``toolSearch.form``: the provider's native deferral where it has one, or the proxy."""
    tool_search_search: Literal["toolbelt", "provider"] | None = None
    """``toolSearch.search``: whose search finds deferred tools in the native form."""
    mcpjson_enabled: list[str] | None = None
    """``enabledMcpjsonServers``: only these of the workspace's MCP servers start."""
    mcpjson_disabled: list[str] = field(default_factory=list)
    """``disabledMcpjsonServers``: these of the workspace's MCP servers never start."""
    mcpjson_enable_all: bool = False
    """``enableAllProjectMcpServers``: every workspace server starts despite the list above."""
    edit_tool: EditTool | None = None
    """``editTool``: which edit tools the agent loop offers — ``apply_patch`` (V4A patches),
    ``edit_file`` (string replacement) or ``auto``: patches for GPT-family models, as Codex
    and OpenCode do, string replacement for the others (last file wins)."""
    sessions_max_age_days: float = 30.0
    """``sessions.maxAgeDays`` (user settings only): saved conversations older are deleted."""
    sessions_max_total_mb: float = 200.0
    """``sessions.maxTotalMB`` (user settings only): past it, the oldest are deleted."""
    compaction_threshold: float = 0.8
    """``compaction.threshold``: the share of the model's window at which older turns are
    summarised (last file wins)."""
    compaction_auto: bool = True
    """``compaction.auto``: False leaves compaction to ``/compact``."""
    subagents_max_parallel: int = 4
    """``subagents.maxParallel``: how many ``task`` subagents run at once."""
    checkpoints: CheckpointSettings = field(default_factory=CheckpointSettings)
    """``checkpoints``: whether calls leave checkpoints, how long and how much is kept."""
    lsp_diagnostics: bool | None = None
    """``lsp.diagnostics``: diagnostics after edits (None: on)."""
    lsp_timeout: float | None = None
    """``lsp.timeoutMs``, in seconds: the most an edit's result waits for diagnostics."""
    lsp_servers: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    """``lsp.servers``: language → the server's command, None for none (a workspace's own
    file may name commands only when it is trusted; it may always turn a server off)."""

    def rule_set(self, *, cwd: Path | Callable[[], Path] | None = None) -> RuleSet:
        """The merged rules, ready to evaluate calls (``~/x`` rules use the same home)."""
        return RuleSet(self.allow, self.ask, self.deny, cwd=cwd, home=self.home)


def settings_files(root: Path, *, home: Path | None = None) -> list[Path]:
    """User, project and local settings paths, lowest precedence first.

    An explicit ``home`` (tests, sandboxes) stands for the whole user environment, so
    ``XDG_CONFIG_HOME`` is honoured only when ``home`` is not given.
    """
    return [
        user_config_dir(home) / "settings.json",
        root / ".toolbelt" / "settings.json",
        root / ".toolbelt" / LOCAL_FILE,
    ]


def load_settings(root: Path, *, home: Path | None = None, trusted: bool | None = None) -> Settings:
    """Read and merge every settings file that exists for ``root`` and the user.

    The workspace's own files (project and local) may only restrict unless the workspace is
    trusted (``config.trust``; ``trusted`` overrides the stored answer): their allow
    rules, hooks, extra directories and default mode are then left out and listed in
    ``Settings.ignored``.
    """
    merged = Settings(home=home, workspace=root)
    merged.trusted = is_trusted(root, home=home) if trusted is None else trusted
    if trusted is None and merged.trusted:
        merged.approved = approved_launches(home)  # stored trust approved what it pinned
    user_home = home or Path.home()
    for index, path in enumerate(settings_files(root, home=home)):
        text = _read_text(path)
        if text is None:
            continue
        raw, parsed, rules = _load_file(path, text, root)
        merged.files.append(path)
        merged.warnings += unknown_key_warnings(path, raw)
        _merge_mcpjson_choice(merged, parsed)
        if index > 0 and not merged.trusted:
            merged.bypass_disabled |= parsed.permissions.disable_bypass is not None
            merged.ignored += _loosening(path, raw, parsed, rules)
            merged.deny += rules["deny"]
            merged.ask += rules["ask"]
            _merge_tool_search(merged, parsed.tool_search)
            merged.edit_tool = parsed.edit_tool or merged.edit_tool
            _merge_agent_sections(merged, parsed)
            _merge_lsp(merged, parsed.lsp, commands=False)
            continue
        for name in LISTS:
            getattr(merged, name).extend(rules[name])
        permissions = parsed.permissions
        if permissions.default_mode is not None:
            merged.default_mode = SETTING_MODES[permissions.default_mode]
        merged.bypass_disabled |= permissions.disable_bypass is not None
        for directory in permissions.additional_directories:
            tilde = directory == "~" or directory.startswith("~/")
            expanded = str(user_home) + directory[1:] if tilde else directory
            merged.additional_directories.append(Path(os.path.normpath(root / expanded)))
        hooks = raw.get("hooks", {})
        if index > 0 and hooks:
            files = functools.partial(_hook_pins, hooks, root)  # read only if needed
            changed = unapproved(merged.approved, path, "hooks", hooks, files)
            if changed is not None:
                merged.changed.append(f"the hooks in {path}{changed}")
                hooks = {}
        for event, groups in hooks.items():
            merged.hooks.setdefault(event, []).extend(groups)
        merged.private_origins += parsed.web_fetch.allow_private_origins
        if parsed.git_commit.trailer is not None:
            merged.commit_trailer = parsed.git_commit.trailer
        merged.sandbox_mode = parsed.sandbox.mode or merged.sandbox_mode
        merged.sandbox_network = parsed.sandbox.network or merged.sandbox_network
        _merge_runner_sandbox(merged, path, parsed.sandbox, user=index == 0)
        _merge_tool_search(merged, parsed.tool_search)
        merged.edit_tool = parsed.edit_tool or merged.edit_tool  # what is offered, not allowed
        _merge_agent_sections(merged, parsed)
        if index == 0:  # where your own conversations are kept is yours alone to bound
            if parsed.sessions.max_age_days is not None:
                merged.sessions_max_age_days = parsed.sessions.max_age_days
            if parsed.sessions.max_total_mb is not None:
                merged.sessions_max_total_mb = parsed.sessions.max_total_mb
        merged.checkpoints = _merge_checkpoints(merged.checkpoints, parsed.checkpoints)
        _merge_lsp(merged, parsed.lsp, commands=True)
    return merged


def _merge_agent_sections(merged: Settings, parsed: _SettingsFile) -> None:
    """``compaction`` and ``subagents`` shape how the conversation is kept and how much runs
    at once, never what may run, so an untrusted workspace's files may set them too."""
    if parsed.compaction.threshold is not None:
        merged.compaction_threshold = parsed.compaction.threshold
    if parsed.compaction.auto is not None:
        merged.compaction_auto = parsed.compaction.auto
    if parsed.subagents.max_parallel is not None:
        merged.subagents_max_parallel = parsed.subagents.max_parallel


def _merge_mcpjson_choice(merged: Settings, parsed: _SettingsFile) -> None:
    """Which of the workspace's MCP servers start: the lists only narrow what trust allows, so
    every file may set them (an untrusted workspace's servers do not start anyway)."""
    if parsed.enabled_mcpjson is not None:
        merged.mcpjson_enabled = [*(merged.mcpjson_enabled or []), *parsed.enabled_mcpjson]
    merged.mcpjson_disabled += parsed.disabled_mcpjson
    if parsed.enable_all_mcpjson is not None:
        merged.mcpjson_enable_all = parsed.enable_all_mcpjson


def _merge_lsp(merged: Settings, section: _Lsp, *, commands: bool) -> None:
    """``lsp``: without ``commands`` (an untrusted workspace's file) only what turns things
    off or bounds them; a server command is a program the session would start."""
    if section.diagnostics is not None and (commands or not section.diagnostics):
        merged.lsp_diagnostics = section.diagnostics
    if section.timeout_ms is not None:
        merged.lsp_timeout = section.timeout_ms / 1000
    for language, command in section.servers.items():
        if command is False:
            merged.lsp_servers[language] = None
        elif commands:
            merged.lsp_servers[language] = tuple(command)


def _hook_pins(hooks: dict[str, Any], root: Path) -> list[Pinned]:
    """What trust pins of a settings file's hooks (``config.launch_files``)."""
    return hooks_section_launch(hooks, root).pinned


def _merge_runner_sandbox(merged: Settings, path: Path, section: _Sandbox, *, user: bool) -> None:
    """``sandbox.hooks`` and ``sandbox.mcpServers`` count in the user's own file only: they
    loosen the confinement of programs that run the workspace's code, which the workspace
    must not decide for itself, trusted or not (a trusted workspace's hooks are pinned, what
    they load is not)."""
    if section.hooks is None and section.mcp_servers is None:
        return
    if not user:
        merged.warnings.append(
            f"{path}: `sandbox.hooks` and `sandbox.mcpServers` are read from your user "
            "settings only (they decide where the workspace's own code runs), so they were "
            "ignored here."
        )
        return
    if section.hooks is not None:
        merged.hook_sandbox = section.hooks.policy()
    if section.mcp_servers is not None:
        merged.mcp_sandbox = section.mcp_servers.policy()


def _merge_tool_search(merged: Settings, section: _ToolSearch) -> None:
    """``toolSearch`` only decides which tools a request shows, never what may run, so an
    untrusted workspace's files may set it too."""
    merged.tool_search_mode = section.mode or merged.tool_search_mode
    if section.max_tools is not None:
        merged.tool_search_max_tools = section.max_tools
    if section.context_share is not None:
        merged.tool_search_context_share = section.context_share
    merged.tool_search_form = section.form or merged.tool_search_form
    merged.tool_search_search = section.search or merged.tool_search_search


def _merge_checkpoints(current: CheckpointSettings, section: _Checkpoints) -> CheckpointSettings:
    """The keys a file sets replace the ones before it (a workspace's own files count only
    once it is trusted: keeping no history is not the repository's choice to make)."""
    if not section.given():
        return current
    mb = 1024 * 1024
    return replace(
        current,
        enabled=current.enabled if section.enabled is None else section.enabled,
        max_age_days=section.max_age_days or current.max_age_days,
        max_size_bytes=int(section.max_size_mb * mb)
        if section.max_size_mb
        else current.max_size_bytes,
        max_file_bytes=current.max_file_bytes
        if section.max_file_size_mb is None
        else int(section.max_file_size_mb * mb),
    )


def _loosening(
    path: Path, raw: dict[str, Any], parsed: _SettingsFile, rules: dict[ListName, list[Rule]]
) -> list[str]:
    """What ``path`` would loosen (ignored while its workspace is untrusted), as one line."""
    permissions = parsed.permissions
    hooks = sum(len(groups) for groups in raw.get("hooks", {}).values())
    parts = [
        _count(len(rules["allow"]), "allow rule"),
        _count(hooks, "hook group"),
        _count(len(permissions.additional_directories), "additional directory", "directories"),
        "a default mode" if permissions.default_mode is not None else "",
        _count(len(parsed.web_fetch.allow_private_origins), "private origin"),
        "a commit trailer" if parsed.git_commit.trailer is not None else "",
        "sandbox settings" if parsed.sandbox.mode or parsed.sandbox.network else "",
        "checkpoint settings" if parsed.checkpoints.given() else "",
        _count(sum(1 for c in parsed.lsp.servers.values() if c), "language server command"),
        "runner sandbox settings" if parsed.sandbox.hooks or parsed.sandbox.mcp_servers else "",
    ]
    wanted = [part for part in parts if part]
    return [f"{path}: {', '.join(wanted)}"] if wanted else []


def _count(number: int, noun: str, plural: str | None = None) -> str:
    if not number:
        return ""
    return f"1 {noun}" if number == 1 else f"{number} {plural or noun + 's'}"


def untrusted_notice(settings: Settings) -> str | None:
    """The warning a door prints when an untrusted workspace's settings were cut back, or
    when its hooks changed since it was trusted."""
    if settings.changed and settings.workspace is not None:
        return changed_notice(settings.changed, settings.workspace)
    if not settings.ignored:
        return None
    return (
        "this workspace is not trusted, so its settings may only restrict; ignored "
        + "; ".join(settings.ignored)
        + ". Trust it with `toolbelt trust` (or `--trust-workspace` for one run)."
    )


def _read_text(path: Path) -> str | None:
    """The file's text (regular files only, size-capped: ``config.files``), None if missing."""
    try:
        return read_config_text(path)
    except ConfigFileError as exc:
        raise SettingsError(str(exc)) from exc


def _load_file(
    path: Path, text: str, root: Path
) -> tuple[dict[str, Any], _SettingsFile, dict[ListName, list[Rule]]]:
    """Parse and validate one file; SettingsError naming the file and line when it is bad."""
    try:
        raw = strict_loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path}, line {exc.lineno}: not valid JSON ({exc.msg}).") from exc
    except StrictJsonError as exc:
        raise SettingsError(
            f"{path}: {exc}; keep one (JSON readers disagree on which one counts)."
        ) from exc
    if not isinstance(raw, dict):
        raise SettingsError(f"{path}, line 1: the settings must be a JSON object.")
    from pydantic import ValidationError

    from toolbelt.config.settings_file import _SettingsFile  # with a file to read

    try:
        parsed = _SettingsFile.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        raise _error(path, text, error["loc"], f"`{where}`: {message}") from exc
    for event in parsed.hooks:
        try:
            check_event(event)
        except ValueError as exc:
            raise _error(path, text, ("hooks", event), str(exc)) from exc
    rules: dict[ListName, list[Rule]] = {name: [] for name in LISTS}
    for name in LISTS:
        for index, entry in enumerate(getattr(parsed.permissions, name)):
            try:
                rules[name].append(parse_rule(entry, source=str(path), project_root=root))
            except ValueError as exc:
                raise _error(path, text, ("permissions", name, index), str(exc)) from exc
    return raw, parsed, rules


def _error(path: Path, text: str, loc: Sequence[str | int], message: str) -> SettingsError:
    return SettingsError(f"{path}, line {_line_of(text, loc)}: {message.rstrip('.')}.")


def _line_of(text: str, loc: Sequence[str | int]) -> int:
    """The line where the value at ``loc`` starts (or its deepest ancestor that exists)."""
    decoder = json.JSONDecoder()
    offset = _skip_space(text, 0)
    for key in loc:
        child = _child_offset(text, offset, key, decoder)
        if child is None:
            break
        offset = child
    return text.count("\n", 0, offset) + 1


def _child_offset(text: str, offset: int, key: str | int, decoder: json.JSONDecoder) -> int | None:
    """Where the member ``key`` (a name in an object, an index in an array) starts."""
    closer = {"{": "}", "[": "]"}.get(text[offset])
    if closer is None:
        return None
    found, index, i = None, 0, _skip_space(text, offset + 1)
    while text[i] != closer:
        if closer == "}":
            name, i = decoder.raw_decode(text, i)
            i = _skip_space(text, _skip_space(text, i) + 1)  # past the colon
            if name == key:
                found = i  # the last duplicate wins, as in json.loads
        elif index == key:
            return i
        i = _skip_space(text, decoder.raw_decode(text, i)[1])
        i = _skip_space(text, i + 1) if text[i] == "," else i
        index += 1
    return found


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def add_local_rule(root: Path, list_name: ListName, rule_text: str) -> Path:
    """Append a rule to ``<root>/.toolbelt/settings.local.json`` unless it is already there.

    The rule is validated first (never persist what would not load again), other keys are kept,
    and the file is replaced atomically (temp file, fsync, ``os.replace``, directory fsync)
    under an exclusive ``flock`` on a lock file beside it, so two processes approving at the
    same moment both land. Returns the path of the local settings file.
    """
    if list_name not in LISTS:
        raise ValueError(f"{list_name!r} is not a rule list; use one of {', '.join(LISTS)}")
    rule = str(parse_rule(rule_text))
    directory = root / ".toolbelt"
    directory.mkdir(exist_ok=True)
    target = directory / LOCAL_FILE
    with open(directory / f"{LOCAL_FILE}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        text = _read_text(target) or ""
        data, _, rules = _load_file(target, text, root)
        if rule in (str(existing) for existing in rules[list_name]):
            return target
        permissions = data.setdefault("permissions", {})
        permissions.setdefault(list_name, []).append(rule)
        payload = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            atomic_write(dir_fd, LOCAL_FILE, payload)
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return target
