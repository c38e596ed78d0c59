"""Where the user's secrets live: one list for the sandbox and the permission policy.

The session's catalogue of protected paths (``paths.protections``) takes them from here: the
sandbox hides them from commands, and the file tools meet them through the path guard and the
policy, where reading one is a protected access that asks in every mode, and listings leave
them out. Were the lists separate, ``read_file ~/.ssh/id_rsa`` would print what ``cat``
cannot see.

Locations are compared as real paths (a symlinked ``~/.ssh`` is hidden where it leads), and
the home directory is the one ``$HOME`` names when the question is asked.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path, PurePath

from toolbelt.core.path_prefixes import PathPrefixes

__all__ = [
    "HOME_SECRETS",
    "SYSTEM_SECRETS",
    "holds_secret",
    "location_reason",
    "secret_location",
    "secret_near",
    "secrets_for",
]

HOME_SECRETS = (
    # the bearer tokens `toolbelt mcp --http` keeps per port (with $XDG_STATE_HOME unset)
    ".local/state/toolbelt/tokens",
    # keys, password stores, keyrings
    ".ssh",
    ".gnupg",
    ".password-store",
    ".local/share/keyrings",
    ".authinfo",
    ".authinfo.gpg",
    ".config/Bitwarden CLI",
    ".config/op",
    ".op",
    # git hosts and git's own credential stores (the cache daemon's socket answers with them)
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".git-credential-cache",
    ".cache/git/credential",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".config/glab-cli",
    ".config/github-copilot",
    ".copilot",
    # package registries (only the credential files: caches and installs stay readable)
    ".npmrc",
    ".yarnrc.yml",
    ".config/pnpm/rc",
    ".bunfig.toml",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".local/share/gem/credentials",
    ".pypirc",
    ".config/pypoetry/auth.toml",
    ".local/share/uv/credentials",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".config/composer/auth.json",
    ".composer/auth.json",
    ".docker/config.json",
    ".config/containers/auth.json",
    # cloud and infrastructure CLIs
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".oci",
    ".bluemix",
    ".s3cfg",
    ".boto",
    ".config/rclone/rclone.conf",
    ".passwd-s3fs",
    ".terraform.d/credentials.tfrc.json",
    ".terraformrc",
    ".vault-token",
    ".config/doctl",
    ".config/hcloud",
    ".config/linode-cli",
    ".fly",
    ".local/share/heroku",
    ".local/share/com.vercel.cli",
    ".config/netlify",
    ".supabase",
    ".config/configstore/firebase-tools.json",
    ".wrangler",
    ".config/.wrangler",
    ".railway",
    ".config/stripe",
    ".config/ngrok",
    ".ngrok2",
    ".databrickscfg",
    ".snowflake",
    ".snowsql",
    ".circleci/cli.yml",
    ".sentryclirc",
    ".pgpass",
    ".my.cnf",
    # coding agents' own logins, toolbelt's included (its MCP logins are in .config/toolbelt,
    # or wherever XDG_CONFIG_HOME puts it: paths.user_config), and their MCP servers' tokens
    ".config/toolbelt",
    ".claude/.credentials.json",
    ".claude.json",
    ".codex/auth.json",
    ".codex/.credentials.json",
    ".gemini/oauth_creds.json",
    ".gemini/google_accounts.json",
    ".gemini/mcp-oauth-tokens.json",
    ".local/share/opencode/mcp-auth.json",
    ".mcp-auth",
    # browser profiles (cookies, saved logins) and shell and REPL histories (pasted tokens)
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".bash_history",
    ".zsh_history",
    ".histfile",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
)
"""Below the home directory: where common tools keep keys, tokens and logins. Only the
credential files themselves when the rest of a tool's directory is what builds read
(``~/.cargo/registry``, ``~/.npm``, ``~/.m2/repository`` stay readable)."""
SYSTEM_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh", "/root/.ssh")


def secrets_for(home: Path, extra: Iterable[Path] = ()) -> tuple[Path, ...]:
    """The real paths of the user's secrets (existing or not)."""
    found = [home / name for name in HOME_SECRETS] + [Path(p) for p in SYSTEM_SECRETS]
    return tuple(dict.fromkeys(Path(os.path.realpath(p)) for p in (*found, *extra)))


def secret_location(real: PurePath | str) -> str | None:
    """Why the real path ``real`` is one of the user's secrets (it or a directory above it is
    in the list), or None; relative paths are never secret locations."""
    return location_reason(real, _secret_places(os.path.expanduser("~")))


def location_reason(real: PurePath | str, secrets: Iterable[str] | PathPrefixes) -> str | None:
    """Why the real path ``real`` lies in one of ``secrets`` (real paths), or None; relative
    paths are never secret locations. (The containment test is ``paths.containment``'s,
    written here again because the core imports no other package.)"""
    text = os.fspath(real)
    if not text.startswith("/"):
        return None
    places = secrets if isinstance(secrets, PathPrefixes) else PathPrefixes(secrets)
    secret = places.containing(text)
    if secret is None:
        return None
    return f"{secret} holds credentials the sandbox hides from commands"


def secret_near(directory: PurePath | str) -> bool:
    """Whether a file directly in the real directory ``directory`` can lie in one of the
    user's secret locations (``PathPrefixes.near``); False answers for all its files."""
    return _secret_places(os.path.expanduser("~")).near(directory)


def holds_secret(directory: PurePath | str) -> bool:
    """Whether a secret location lies strictly below ``directory`` (a listing of it must
    leave the secret out)."""
    prefix = os.fspath(directory).rstrip("/") + "/"
    return any(s.startswith(prefix) for s in _secret_texts(os.path.expanduser("~")))


@lru_cache(maxsize=8)
def _secret_places(home: str) -> PathPrefixes:
    """The user's secrets as ``PathPrefixes``, once per home."""
    return PathPrefixes(_secret_texts(home))


@lru_cache(maxsize=8)
def _secret_texts(home: str) -> tuple[str, ...]:
    """Resolved once per home: a listing tests every path it shows."""
    return tuple(str(p) for p in secrets_for(Path(home)))
