"""The models a settings file is validated with (``.toolbelt/settings.json`` and the user's).

Apart from ``config.settings`` so that a run with no settings file — the usual case for
``toolbelt call`` and ``toolbelt mcp`` — neither builds nor loads them (nor pydantic): the
first file read loads this module.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from toolbelt.config.settings_values import SETTING_MODES, EditTool
from toolbelt.core.errors import ToolbeltError, UsageError
from toolbelt.hooks.specs import HookMatcherGroup
from toolbelt.sandbox.runner_policy import RunnerPolicy, network_ports

__all__ = ["_SettingsFile"]


class _Permissions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    allow: list[str] = []
    ask: list[str] = []
    deny: list[str] = []
    default_mode: str | None = Field(default=None, alias="defaultMode")
    additional_directories: list[str] = Field(default=[], alias="additionalDirectories")
    disable_bypass: Literal["disable"] | None = Field(
        default=None, alias="disableBypassPermissionsMode"
    )

    @field_validator("default_mode")
    @classmethod
    def _known_mode(cls, value: str | None) -> str | None:
        if value is not None and value not in SETTING_MODES:
            raise ValueError(f"unknown mode {value!r}; use one of {', '.join(SETTING_MODES)}")
        return value


class _WebFetch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    allow_private_origins: list[str] = Field(default=[], alias="allowPrivateOrigins")

    @field_validator("allow_private_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        from toolbelt.web.urls import parse_web_url

        for origin in value:
            try:
                parsed = parse_web_url(origin)
            except ToolbeltError as exc:
                raise ValueError(f"{origin!r} is not an origin: {exc}") from exc
            if parsed.target != "/" or parsed.userinfo:
                raise ValueError(f"{origin!r} is not an origin; write it as {parsed.origin!r}")
        return value


class _GitCommit(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    trailer: str | None = None


class _RunnerSandbox(BaseModel):
    """``sandbox.hooks`` / ``sandbox.mcpServers``: where those programs run (``RunnerPolicy``)."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    confined: bool = True
    network: Literal["off", "on"] | list[str] = "off"

    @field_validator("network")
    @classmethod
    def _ports(cls, value: str | list[str]) -> str | list[str]:
        try:
            network_ports(value if isinstance(value, str) else tuple(value))
        except UsageError as exc:
            raise ValueError(str(exc)) from exc
        return value

    def policy(self) -> RunnerPolicy:
        network = self.network if isinstance(self.network, str) else tuple(self.network)
        return RunnerPolicy(confined=self.confined, network=network)


class _Sandbox(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    mode: Literal["auto", "landlock", "bwrap", "off"] | None = None
    network: Literal["off", "on"] | list[str] | None = None
    hooks: _RunnerSandbox | None = None
    mcp_servers: _RunnerSandbox | None = Field(default=None, alias="mcpServers")


class _ToolSearch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    mode: Literal["auto", "always", "never"] | None = None
    max_tools: int | None = Field(default=None, alias="maxTools", ge=0)
    context_share: float | None = Field(default=None, alias="contextShare", gt=0, le=1)
    form: Literal["native", "proxy"] | None = None
    search: Literal["toolbelt", "provider"] | None = None


class _Lsp(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    diagnostics: bool | None = None
    timeout_ms: int | None = Field(default=None, alias="timeoutMs", ge=100, le=60_000)
    servers: dict[str, list[str] | Literal[False]] = {}

    @field_validator("servers")
    @classmethod
    def _commands(
        cls, value: dict[str, list[str] | Literal[False]]
    ) -> dict[str, list[str] | Literal[False]]:
        for language, command in value.items():
            if command is not False and (not command or not command[0]):
                raise ValueError(
                    f"the server for {language!r} must be a command such as "
                    '["pyright-langserver", "--stdio"], or false for none'
                )
        return value


class _Sessions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    max_age_days: float | None = Field(default=None, alias="maxAgeDays", gt=0)
    max_total_mb: float | None = Field(default=None, alias="maxTotalMB", gt=0)


class _Compaction(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    threshold: float | None = Field(default=None, gt=0, le=1)
    auto: bool | None = None


class _Subagents(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    max_parallel: int | None = Field(default=None, alias="maxParallel", ge=1, le=16)


class _Checkpoints(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    enabled: bool | None = None
    max_age_days: float | None = Field(default=None, alias="maxAgeDays", gt=0)
    max_size_mb: float | None = Field(default=None, alias="maxSizeMB", gt=0)
    max_file_size_mb: float | None = Field(default=None, alias="maxFileSizeMB", ge=0)

    def given(self) -> bool:
        return any(v is not None for v in self.model_dump().values())


class _SettingsFile(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)  # built when a file exists

    permissions: _Permissions = Field(default_factory=_Permissions)
    web_fetch: _WebFetch = Field(default_factory=_WebFetch, alias="webFetch")
    git_commit: _GitCommit = Field(default_factory=_GitCommit, alias="gitCommit")
    sandbox: _Sandbox = Field(default_factory=_Sandbox)
    tool_search: _ToolSearch = Field(default_factory=_ToolSearch, alias="toolSearch")
    edit_tool: EditTool | None = Field(default=None, alias="editTool")
    sessions: _Sessions = Field(default_factory=_Sessions)
    compaction: _Compaction = Field(default_factory=_Compaction)
    subagents: _Subagents = Field(default_factory=_Subagents)
    checkpoints: _Checkpoints = Field(default_factory=_Checkpoints)
    lsp: _Lsp = Field(default_factory=_Lsp)
    hooks: dict[str, tuple[HookMatcherGroup, ...]] = {}
    enabled_mcpjson: list[str] | None = Field(default=None, alias="enabledMcpjsonServers")
    disabled_mcpjson: list[str] = Field(default=[], alias="disabledMcpjsonServers")
    enable_all_mcpjson: bool | None = Field(default=None, alias="enableAllProjectMcpServers")
