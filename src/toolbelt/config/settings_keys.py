"""Top-level settings keys that toolbelt does not know: warned about, with the closest key.

A settings file may be a whole Claude Code settings file pasted in, so the keys Claude Code
reads and toolbelt has no use for (``model``, ``env``, ``statusLine``…) are passed over
silently. Any other key is most likely a misspelling — ``"permisions"`` would otherwise drop
every rule under it without a word — so each one gets a warning naming the file and the
nearest known key (``difflib``), and is ignored.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

__all__ = ["KNOWN_KEYS", "unknown_key_warnings"]

TOOLBELT_KEYS = (
    "permissions",
    "hooks",
    "webFetch",
    "gitCommit",
    "sandbox",
    "toolSearch",
    "enabledMcpjsonServers",
    "disabledMcpjsonServers",
    "enableAllProjectMcpServers",
)
"""The sections toolbelt reads (``config.settings``)."""

CLAUDE_CODE_KEYS = (
    "$schema",
    "apiKeyHelper",
    "attribution",
    "alwaysThinkingEnabled",
    "autoUpdatesChannel",
    "awsAuthRefresh",
    "awsCredentialExport",
    "cleanupPeriodDays",
    "companyAnnouncements",
    "deniedMcpServers",
    "allowedMcpServers",
    "disableAllHooks",
    "editorMode",
    "effortLevel",
    "enabledPlugins",
    "env",
    "extraKnownMarketplaces",
    "fileSuggestion",
    "forceLoginMethod",
    "forceLoginOrgUUID",
    "includeCoAuthoredBy",
    "language",
    "model",
    "otelHeadersHelper",
    "outputStyle",
    "plansDirectory",
    "preferredNotifChannel",
    "respectGitignore",
    "showTurnDuration",
    "spinnerTipsEnabled",
    "statusLine",
    "subagentStatusLine",
    "terminalProgressBarEnabled",
    "theme",
)
"""Keys of Claude Code's settings that toolbelt ignores without a warning."""

KNOWN_KEYS = frozenset(TOOLBELT_KEYS + CLAUDE_CODE_KEYS)


def unknown_key_warnings(path: Path, keys: Iterable[str]) -> list[str]:
    """One warning per key of ``path`` that is not a known settings key."""
    warnings = []
    for key in keys:
        if key in KNOWN_KEYS:
            continue
        import difflib  # for an unknown key alone: settings without one never load it

        close = difflib.get_close_matches(key, TOOLBELT_KEYS, n=1, cutoff=0.6)
        close = close or difflib.get_close_matches(key, CLAUDE_CODE_KEYS, n=1, cutoff=0.6)
        hint = f"did you mean `{close[0]}`?" if close else "remove it or check its spelling."
        warnings.append(f"{path}: `{key}` is not a settings key, so it was ignored; {hint}")
    return warnings
