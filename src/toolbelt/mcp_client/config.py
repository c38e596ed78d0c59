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
``url``, ``headers`` and ``oauth``, so secrets stay in the environment. Claude Code's whole
entry is read: ``oauth`` (``oauth_config``), ``headersHelper`` (a command printing a JSON
object of headers, run at each connection: it starts a program, so it is pinned with the
entry like a stdio ``command``) and ``disabled``. Beyond those an entry may say ``"startup":
"eager"`` (start when the runtime opens rather than when its tools are first listed),
``"startupTimeout"`` (seconds to initialize and list, default 30), ``"timeout"`` (seconds a
tool call may take, default 300) and ``"maxOutputTokens"`` (what one result may show the
model; default ``MAX_MCP_OUTPUT_TOKENS`` from the environment, Claude Code's variable, else
30,000 characters, a bash command's cap).

One broken entry is skipped with a warning naming the file and the key, and the file's other
entries load; a key toolbelt does not know is ignored with a warning (Claude Code adds keys
faster than anyone follows); a key of the other transport (``url`` on a stdio entry) is a
mistake that skips the entry. Settings choose among a workspace's servers as Claude Code's do:
``disabledMcpjsonServers`` are never started, and when ``enabledMcpjsonServers`` is given only
those are (unless ``enableAllProjectMcpServers``). This module reads JSON only: nothing here
imports the MCP SDK, so a workspace without servers pays nothing.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from toolbelt.config.files import ConfigFileError, load_json_config
from toolbelt.config.launch_files import Launch, Pinned, launch_of_argv, launch_of_shell
from toolbelt.config.launches import LaunchPin, changed_notice, unapproved
from toolbelt.config.settings import Settings
from toolbelt.config.trust import user_config_dir
from toolbelt.core.errors import SettingsError

if TYPE_CHECKING:  # the OAuth entry's reader loads with the first server entry
    from toolbelt.mcp_client.oauth_config import OAuthSettings

__all__ = [
    "McpConfig",
    "ServerChoice",
    "ServerConfig",
    "check_entry",
    "load_mcp_config",
    "mcp_config_files",
    "output_cap",
    "server_choice",
]

Transport = Literal["stdio", "http", "sse"]
DEFAULT_CALL_TIMEOUT = 300.0
DEFAULT_START_TIMEOUT = 30.0
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_COMMON_KEYS = {"type", "startup", "timeout", "startupTimeout", "disabled", "maxOutputTokens"}
_STDIO_KEYS = _COMMON_KEYS | {"command", "args", "env", "cwd"}
_URL_KEYS = _COMMON_KEYS | {"url", "headers", "headersHelper", "oauth"}
DEFAULT_OUTPUT_CHARACTERS = 30_000
"""What one result shows the model unless told otherwise: a bash command's cap."""
CHARACTERS_PER_TOKEN = 4
"""toolbelt's estimate everywhere (UTF-8 bytes / 4): a token cap becomes a character cap."""


def output_cap(tokens: int | None = None, environ: Mapping[str, str] | None = None) -> int:
    """The characters one MCP result may show the model: ``tokens`` (an entry's
    ``maxOutputTokens``) or ``MAX_MCP_OUTPUT_TOKENS`` at 4 characters a token, else 30,000."""
    if tokens is None:
        env = os.environ if environ is None else environ
        text = env.get("MAX_MCP_OUTPUT_TOKENS", "").strip()
        if not text.isdigit() or int(text) == 0:
            return DEFAULT_OUTPUT_CHARACTERS
        tokens = int(text)
    return tokens * CHARACTERS_PER_TOKEN


def _default_oauth() -> OAuthSettings:
    """An entry's OAuth settings when it names none (``OAuthSettings()``)."""
    from toolbelt.mcp_client.oauth_config import OAuthSettings

    return OAuthSettings()


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
    oauth: OAuthSettings | None = field(default_factory=_default_oauth)
    """How to log in when the server asks (None: ``"oauth": false``, never)."""
    headers_helper: str | None = None
    """A shell command printing a JSON object of headers, run at each connection in ``cwd``."""
    output_tokens: int | None = None
    """``maxOutputTokens``: what one result may show the model (None: ``output_cap``'s)."""


@dataclass(frozen=True, slots=True)
class ServerChoice:
    """What the settings say about a workspace's servers (Claude Code's keys)."""

    enabled: tuple[str, ...] | None = None
    """``enabledMcpjsonServers``: only these start (None: no such list)."""
    disabled: tuple[str, ...] = ()
    """``disabledMcpjsonServers``: these never start."""
    enable_all: bool = False
    """``enableAllProjectMcpServers``: every server starts, whatever ``enabled`` says."""

    def why_off(self, name: str) -> str | None:
        """Why the workspace's server ``name`` is turned off by the settings, or None."""
        if name in self.disabled:
            return "it is in `disabledMcpjsonServers` in your settings"
        if self.enabled is not None and not self.enable_all and name not in self.enabled:
            return "it is not in `enabledMcpjsonServers` in your settings"
        return None


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
    """The files that could not be read, the entries that are malformed (left out, the rest
    works, as Claude Code does) and the keys ignored, one sentence each."""
    disabled: tuple[tuple[Path, str, str], ...] = ()
    """(file, server name, why): entries turned off (``disabled``, or the settings)."""

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


def server_choice(settings: Settings) -> ServerChoice:
    """The settings' selection among the workspace's servers."""
    enabled = settings.mcpjson_enabled
    return ServerChoice(
        tuple(enabled) if enabled is not None else None,
        tuple(settings.mcpjson_disabled),
        settings.mcpjson_enable_all,
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
    choice: ServerChoice | None = None,
) -> McpConfig:
    """Read every MCP configuration file that exists. A file that is not JSON of the right
    shape is left out whole, a malformed entry alone, each with a warning naming the file and
    the key (``McpConfig.warnings``): a broken file must not stop the built-in tools, and a
    server dropped is never dropped silently. ``choice``: the settings' selection among the
    workspace's servers.

    ``approved`` holds the pins stored when the workspace was trusted (``Settings.approved``);
    a workspace entry that does not match its pin is left out, and so is an earlier entry of
    the same name (the changed one was meant to replace it). None approves every entry."""
    env = {**(os.environ if environ is None else environ), **project_dir_variables(root)}
    user_home = home if home is not None else Path.home()
    servers: dict[str, ServerConfig] = {}
    ignored: list[Path] = []
    changed: list[tuple[Path, str, str]] = []
    broken: list[str] = []
    disabled: list[tuple[Path, str, str]] = []
    choice = choice or ServerChoice()
    for index, path in enumerate(mcp_config_files(root, home=home)):
        if index > 0 and not trusted:
            # Not even parsed: its content is ignored, so nothing in it (a malformed entry, a
            # name made of escape sequences) may stop toolbelt or reach the terminal.
            if path.is_file():
                ignored.append(path)
            continue
        try:
            loaded = _load_file(path, env, root if index else user_home, root, broken)
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
            off = "its entry says `disabled`" if raw.get("disabled") is True else None
            if off is None and index > 0:
                off = choice.why_off(name)
            if off is not None:
                disabled.append((path, name, off))
                servers.pop(name, None)
                continue
            servers[name] = server
    return McpConfig(
        tuple(servers.values()),
        tuple(ignored),
        tuple(changed),
        root,
        tuple(broken),
        tuple(disabled),
    )


def _load_file(
    path: Path, env: Mapping[str, str], directory: Path, root: Path, warnings: list[str]
) -> dict[str, tuple[Any, ServerConfig]]:
    """Every entry of ``path`` (none if it does not exist), as written and as it would start
    (in ``directory`` unless it names its own ``cwd``); ``SettingsError`` when the file is not
    a JSON object of entries. A malformed entry is left out, and what was wrong or ignored
    goes to ``warnings``."""
    try:
        data = load_json_config(path)
    except ConfigFileError as exc:
        raise SettingsError(str(exc)) from exc
    if data is None:
        return {}
    loaded: dict[str, tuple[Any, ServerConfig]] = {}
    for name, raw in _entries(path, data).items():
        try:
            server = _server(path, name, raw, env, warnings.append)
        except SettingsError as exc:
            why = str(exc).rstrip(".")
            warnings.append(f"{why}; the MCP server `{name}` was skipped until it is fixed.")
            continue
        # the user's own servers start in their home, the workspace's in the workspace
        loaded[name] = (raw, _started_in(server, directory, root))
    return loaded


class _AnyVariable(dict[str, str]):
    """An environment in which every variable is set (to check an entry's shape alone)."""

    def get(self, key: str, default: Any = None) -> str:
        return "x"

    def __contains__(self, key: object) -> bool:
        return True


def check_entry(path: Path, name: str, raw: Any) -> list[str]:
    """``SettingsError`` if ``raw`` would not load as ``mcpServers.NAME`` of ``path`` (its
    variables need not be set yet); the warnings it would draw."""
    if not name or len(name) > 64:
        raise SettingsError(f"{path}: `mcpServers.{name}`: a server name has 1 to 64 characters.")
    warnings: list[str] = []
    _server(path, name, raw, _AnyVariable(), warnings.append)
    return warnings


def entry_launch(
    path: Path, name: str, raw: Any, root: Path, environ: Mapping[str, str] | None = None
) -> Launch:
    """What the entry ``raw`` (``mcpServers.NAME`` of the workspace's file ``path``) runs of
    the workspace as it would start now (``config.launch_files``); nothing for an entry that
    does not load (loading it reports why)."""
    env = {**(os.environ if environ is None else environ), **project_dir_variables(root)}
    try:
        server = _started_in(_server(path, name, raw, env, lambda _: None), root, root)
    except SettingsError:
        return Launch()
    return server_launch(server, root)


def server_launch(server: ServerConfig, root: Path) -> Launch:
    """What a stdio server's command line, or a remote server's ``headersHelper``, runs of
    the workspace (``config.launch_files``)."""
    if server.transport != "stdio":
        if server.headers_helper is None:
            return Launch()
        return launch_of_shell(server.headers_helper, root, cwd=Path(server.cwd or root))
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
        helper = server.headers_helper is not None
        return replace(server, cwd=str(directory)) if helper else server
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


def _server(
    path: Path, name: str, raw: Any, env: Mapping[str, str], warn: Callable[[str], None]
) -> ServerConfig:
    where = f"{path}: `mcpServers.{name}"
    if not isinstance(raw, dict):
        raise SettingsError(f"{where}` must be an object (with `command`, or `type` and `url`).")
    kind = raw.get("type", "stdio" if "command" in raw else None)
    if kind == "streamable-http":  # another spelling of http (VS Code, some servers' docs)
        kind = "http"
    if kind not in ("stdio", "http", "sse"):
        raise SettingsError(
            f'{where}.type` must be "stdio", "http" or "sse" (or give `command`), not {kind!r}.'
        )
    allowed = _STDIO_KEYS if kind == "stdio" else _URL_KEYS
    for key in raw:
        if key in allowed:
            continue
        if key in _STDIO_KEYS | _URL_KEYS:  # the other transport's: the entry is confused
            raise SettingsError(f"{where}.{key}` is not a key of a {kind} server; remove it.")
        warn(f"{where}.{key}` is not a key toolbelt knows, so it was ignored.")
    startup = raw.get("startup", "lazy")
    if startup not in ("lazy", "eager"):
        raise SettingsError(f'{where}.startup` must be "lazy" or "eager", not {startup!r}.')
    if not isinstance(raw.get("disabled", False), bool):
        raise SettingsError(f"{where}.disabled` must be true or false.")
    tokens = raw.get("maxOutputTokens")
    if tokens is not None and (
        isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1
    ):
        raise SettingsError(f"{where}.maxOutputTokens` must be a positive whole number.")
    common: dict[str, Any] = {
        "eager": startup == "eager",
        "call_timeout": _seconds(where, raw, "timeout", DEFAULT_CALL_TIMEOUT),
        "start_timeout": _seconds(where, raw, "startupTimeout", DEFAULT_START_TIMEOUT),
        "output_tokens": tokens,
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
    helper = raw.get("headersHelper")
    if helper is not None and (not isinstance(helper, str) or not helper.strip()):
        raise SettingsError(f"{where}.headersHelper` must be a command line, a non-empty string.")
    from toolbelt.mcp_client.oauth_config import parse_oauth

    oauth = parse_oauth(where, raw.get("oauth"), lambda at, text: _expand(at, text, env), warn)
    return ServerConfig(
        name,
        path,
        kind,
        url=url,
        headers=headers,
        oauth=oauth,
        headers_helper=helper,
        **common,
    )


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
