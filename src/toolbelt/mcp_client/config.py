"""Which MCP servers to connect to: Claude Code's ``mcpServers`` format, from three files.

``<root>/.mcp.json`` and ``<root>/.toolbelt/mcp.json`` come with the workspace, and each entry
there is a program toolbelt would start (or a URL it would send headers to): a cloned
repository must not run code before the user trusts it (Codex CVE-2025-61260, Claude Code
CVE-2025-59828), so those files are read only in a trusted workspace; otherwise they are not
even parsed (a broken one must not stop toolbelt) and only reported in a notice, worded like the
settings' one. In a trusted workspace, an entry that changed since the user trusted it
(``config.launches``) is left out the same way, until the user trusts it again.
``$XDG_CONFIG_HOME/toolbelt/mcp.json`` (the user's own)
always applies; a later file's entry replaces an earlier one of the same name.

``${VAR}`` and ``${VAR:-default}`` are expanded in ``command``, ``args``, ``env``, ``cwd``,
``url`` and ``headers``, so secrets stay in the environment. Beyond Claude Code's keys an entry
may say ``"startup": "eager"`` (start when the runtime opens rather than when its tools are
first listed), ``"startupTimeout"`` (seconds to initialize and list, default 30) and
``"timeout"`` (seconds a tool call may take, default 300). This module reads
JSON only: nothing here imports the MCP SDK, so a workspace without servers pays nothing.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from toolbelt.config.files import ConfigFileError, load_json_config
from toolbelt.config.launch_files import Launch, Pinned, launch_of_argv
from toolbelt.config.launches import LaunchPin, changed_notice, unapproved
from toolbelt.config.trust import user_config_dir
from toolbelt.core.errors import SettingsError

__all__ = ["McpConfig", "ServerConfig", "load_mcp_config", "mcp_config_files"]

Transport = Literal["stdio", "http", "sse"]
DEFAULT_CALL_TIMEOUT = 300.0
DEFAULT_START_TIMEOUT = 30.0
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_STDIO_KEYS = {"type", "command", "args", "env", "cwd", "startup", "timeout", "startupTimeout"}
_URL_KEYS = {"type", "url", "headers", "startup", "timeout", "startupTimeout"}


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One server entry, validated and with its variables expanded."""

    name: str
    source: Path
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    eager: bool = False
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    start_timeout: float = DEFAULT_START_TIMEOUT


@dataclass(frozen=True, slots=True)
class McpConfig:
    """The servers to use, the workspace files left out because it is not trusted, and the
    entries left out because they changed since it was trusted (file, server name)."""

    servers: tuple[ServerConfig, ...] = ()
    ignored: tuple[Path, ...] = ()
    changed: tuple[tuple[Path, str, str], ...] = ()
    """(file, server name, what changed: "" for the entry, else `` (its file …)``)."""
    root: Path | None = None
    warnings: tuple[str, ...] = ()
    """The files that could not be read or hold a malformed entry, one sentence each: their
    servers are left out, the rest works (as Claude Code does with a broken file)."""

    @property
    def notice(self) -> str | None:
        """What an untrusted workspace's MCP files lost, or which of a trusted one's servers
        changed since it was trusted, to tell the user; None if nothing."""
        if self.changed and self.root is not None:
            servers = [f"the MCP server `{n}` in {path}{what}" for path, n, what in self.changed]
            return changed_notice(servers, self.root)
        if not self.ignored:
            return None
        files = ", ".join(str(path) for path in self.ignored)
        return (
            f"this workspace is not trusted, so the MCP servers in {files} were not started "
            "(they would run programs it names). Trust it with `toolbelt trust` (or "
            "`--trust-workspace` for one run)."
        )


def project_dir_variables(root: Path) -> dict[str, str]:
    """``TOOLBELT_PROJECT_DIR`` and ``CLAUDE_PROJECT_DIR``: the workspace, for ``${…}`` in an
    entry and in a stdio server's environment (as hooks have them)."""
    directory = os.path.abspath(root)
    return {"TOOLBELT_PROJECT_DIR": directory, "CLAUDE_PROJECT_DIR": directory}


def mcp_config_files(root: Path, *, home: Path | None = None) -> tuple[Path, Path, Path]:
    """The user's file, then the workspace's two, lowest precedence first."""
    return (
        user_config_dir(home) / "mcp.json",
        root / ".mcp.json",
        root / ".toolbelt" / "mcp.json",
    )


def load_mcp_config(
    root: Path,
    *,
    trusted: bool,
    home: Path | None = None,
    environ: Mapping[str, str] | None = None,
    approved: Mapping[str, LaunchPin] | None = None,
) -> McpConfig:
    """Read every MCP configuration file that exists. One that is malformed is left out whole
    with a warning naming the file and the key (``McpConfig.warnings``): a broken file must not
    stop the built-in tools, and a server dropped is never dropped silently.

    ``approved`` holds the pins stored when the workspace was trusted (``Settings.approved``);
    a workspace entry that does not match its pin is left out, and so is an earlier entry of
    the same name (the changed one was meant to replace it). None approves every entry."""
    env = {**(os.environ if environ is None else environ), **project_dir_variables(root)}
    user_home = home if home is not None else Path.home()
    servers: dict[str, ServerConfig] = {}
    ignored: list[Path] = []
    changed: list[tuple[Path, str, str]] = []
    broken: list[str] = []
    for index, path in enumerate(mcp_config_files(root, home=home)):
        if index > 0 and not trusted:
            # Not even parsed: its content is ignored, so nothing in it (a malformed entry, a
            # name made of escape sequences) may stop toolbelt or reach the terminal.
            if path.is_file():
                ignored.append(path)
            continue
        try:
            loaded = _load_file(path, env, root if index else user_home, root)
        except SettingsError as exc:  # the other files' servers and the built-ins still work
            why = str(exc).rstrip(".")
            broken.append(f"{why}; its MCP servers were skipped until it is fixed.")
            continue
        for name, (raw, server) in loaded.items():
            what = None
            if index > 0:
                files = functools.partial(server_pins, server, root)  # read only if needed
                what = unapproved(approved, path, f"mcpServers.{name}", raw, files)
            if what is not None:
                changed.append((path, name, what))
                servers.pop(name, None)
                continue
            servers[name] = server
    return McpConfig(tuple(servers.values()), tuple(ignored), tuple(changed), root, tuple(broken))


def _load_file(
    path: Path, env: Mapping[str, str], directory: Path, root: Path
) -> dict[str, tuple[Any, ServerConfig]]:
    """Every entry of ``path`` (none if it does not exist), as written and as it would start
    (in ``directory`` unless it names its own ``cwd``); ``SettingsError`` for the first
    malformed part, so a broken file contributes nothing rather than some of its servers."""
    try:
        data = load_json_config(path)
    except ConfigFileError as exc:
        raise SettingsError(str(exc)) from exc
    if data is None:
        return {}
    return {
        # the user's own servers start in their home, the workspace's in the workspace
        name: (raw, _started_in(_server(path, name, raw, env), directory, root))
        for name, raw in _entries(path, data).items()
    }


def entry_launch(
    path: Path, name: str, raw: Any, root: Path, environ: Mapping[str, str] | None = None
) -> Launch:
    """What the entry ``raw`` (``mcpServers.NAME`` of the workspace's file ``path``) runs of
    the workspace as it would start now (``config.launch_files``); nothing for an entry that
    does not load (loading it reports why)."""
    env = {**(os.environ if environ is None else environ), **project_dir_variables(root)}
    try:
        server = _started_in(_server(path, name, raw, env), root, root)
    except SettingsError:
        return Launch()
    return server_launch(server, root)


def server_launch(server: ServerConfig, root: Path) -> Launch:
    """What a stdio server's command line runs of the workspace (``config.launch_files``)."""
    if server.transport != "stdio":
        return Launch()
    path = server.env.get("PATH", os.environ.get("PATH"))
    argv = [server.command, *server.args]
    return launch_of_argv(argv, Path(server.cwd or root), root, path)


def server_pins(server: ServerConfig, root: Path) -> list[Pinned]:
    """What trust pins of a stdio server's launch."""
    return server_launch(server, root).pinned


def _started_in(server: ServerConfig, directory: Path, root: Path) -> ServerConfig:
    """A stdio server without its own ``cwd`` starts in ``directory``: a workspace entry (read
    only when the workspace is trusted, and pinned) in the workspace; the user's own entry in
    the user's home, trusted workspace or not. A sandboxed command may write in the workspace,
    so there ``npx pkg`` would run a ``node_modules/.bin/pkg`` it planted, ``uv run`` its
    ``.venv``, as the user and unconfined. A user server that works on the workspace gets it
    from ``${TOOLBELT_PROJECT_DIR}`` in its ``args``, ``env`` or ``cwd`` (set for it, as for
    hooks, together with ``CLAUDE_PROJECT_DIR``)."""
    if server.transport != "stdio":
        return server
    env = {**project_dir_variables(root), **server.env}
    return replace(server, cwd=server.cwd or str(directory), env=env)


def _entries(path: Path, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: the file must hold a JSON object with `mcpServers`.")
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise SettingsError(f"{path}: `mcpServers` must be an object of server name to entry.")
    for name in servers:
        if not name or len(name) > 64:
            raise SettingsError(
                f"{path}: `mcpServers.{name}`: a server name has 1 to 64 characters."
            )
    return servers


def _server(path: Path, name: str, raw: Any, env: Mapping[str, str]) -> ServerConfig:
    where = f"{path}: `mcpServers.{name}"
    if not isinstance(raw, dict):
        raise SettingsError(f"{where}` must be an object (with `command`, or `type` and `url`).")
    kind = raw.get("type", "stdio" if "command" in raw else None)
    if kind not in ("stdio", "http", "sse"):
        raise SettingsError(
            f'{where}.type` must be "stdio", "http" or "sse" (or give `command`), not {kind!r}.'
        )
    allowed = _STDIO_KEYS if kind == "stdio" else _URL_KEYS
    for key in raw:
        if key not in allowed:
            raise SettingsError(f"{where}.{key}` is not a key of a {kind} server; remove it.")
    startup = raw.get("startup", "lazy")
    if startup not in ("lazy", "eager"):
        raise SettingsError(f'{where}.startup` must be "lazy" or "eager", not {startup!r}.')
    common: dict[str, Any] = {
        "eager": startup == "eager",
        "call_timeout": _seconds(where, raw, "timeout", DEFAULT_CALL_TIMEOUT),
        "start_timeout": _seconds(where, raw, "startupTimeout", DEFAULT_START_TIMEOUT),
    }
    if kind == "stdio":
        command = _string(where, raw, "command", env, required=True)
        args = raw.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise SettingsError(f"{where}.args` must be a list of strings.")
        cwd = _string(where, raw, "cwd", env) or None
        return ServerConfig(
            name,
            path,
            "stdio",
            command=command,
            args=tuple(_expand(where + ".args", a, env) for a in args),
            env=_mapping(where, raw, "env", env),
            cwd=str(path.parent / cwd) if cwd else None,
            **common,
        )
    url = _string(where, raw, "url", env, required=True)
    if not url.startswith(("http://", "https://")):
        raise SettingsError(f"{where}.url` must be an http:// or https:// URL, not {url!r}.")
    headers = _mapping(where, raw, "headers", env)
    return ServerConfig(name, path, kind, url=url, headers=headers, **common)


def _string(
    where: str, raw: Mapping[str, Any], key: str, env: Mapping[str, str], *, required: bool = False
) -> str:
    value = raw.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        raise SettingsError(f"{where}.{key}` must be a non-empty string.")
    return _expand(f"{where}.{key}", value, env)


def _mapping(
    where: str, raw: Mapping[str, Any], key: str, env: Mapping[str, str]
) -> dict[str, str]:
    value = raw.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise SettingsError(f"{where}.{key}` must be an object of strings.")
    return {k: _expand(f"{where}.{key}.{k}", v, env) for k, v in value.items()}


def _seconds(where: str, raw: Mapping[str, Any], key: str, default: float) -> float:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise SettingsError(f"{where}.{key}` must be a positive number of seconds.")
    return float(value)


def _expand(where: str, text: str, env: Mapping[str, str]) -> str:
    """``${VAR}`` and ``${VAR:-default}``; an unset variable without default is an error."""

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = env.get(name)
        if found:
            return found
        if default is not None:
            return default
        if name in env:
            return ""
        raise SettingsError(
            f"{where}` uses ${{{name}}}, which is not set; set it or write ${{{name}:-default}}."
        )

    return _VARIABLE.sub(value, text)
