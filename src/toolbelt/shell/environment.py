"""The environment commands run with: the user's, minus what looks like a credential.

Tokens and keys in the environment are one prompt injection away from being printed and sent
somewhere (``env`` is read-only, so it runs without asking, even in plan mode), so a variable
is removed when

- a word of its name (the name split at ``_`` and other non-alphanumerics, upper-cased) is
  one of ``SECRET_WORDS`` (``KEY``, ``TOKEN``, ``AUTH``, ``PASS``, ``SESSION``, ``WEBHOOK``…),
  or ends with a credential word (``APIKEY``, ``AUTHTOKEN``, ``PGPASSWORD``), or starts with
  one that cannot be anything else (``PASSWORDS``, ``SECRETID``, ``CREDENTIALSFILE``) —
  so ``OPENAI_KEY``, ``NPM_CONFIG__AUTH``, ``DOCKER_AUTH_CONFIG``, ``SLACK_WEBHOOK_URL`` and
  ``SSH_AUTH_SOCK`` (it lends the user's SSH agent: every key it holds) go, while
  ``GIT_AUTHOR_NAME``, ``XAUTHORITY``, ``KEYMAP`` or ``TOKENIZERS_PARALLELISM`` stay;
- or its value holds a URL with credentials (``scheme://user:password@`` or
  ``scheme://token@``): ``DATABASE_URL=postgres://u:pw@h/db``, ``SENTRY_DSN``, a proxy with a
  password.

The few session variables that name a desktop session rather than grant access to it
(``XDG_SESSION_TYPE``…) are kept (``SAFE_NAMES``). To pass a variable through on purpose, name
it in ``TOOLBELT_KEEP_ENV`` (comma-separated names) in toolbelt's own environment: the user
sets that where toolbelt starts, a command never can. ``TOOLBELT=1`` is added so scripts can
tell they run under an agent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

__all__ = ["KEEP_VARIABLE", "SAFE_NAMES", "SECRET_WORDS", "command_environment", "is_secret"]

SECRET_WORDS = frozenset(
    {
        "KEY", "KEYS", "APIKEY", "SECRET", "SECRETS", "TOKEN", "TOKENS", "PASSWORD", "PASSWD",
        "PASS", "PASSPHRASE", "PW", "AUTH", "CREDENTIAL", "CREDENTIALS", "CREDS", "WEBHOOK",
        "WEBHOOKS", "COOKIE", "COOKIES", "SESSION", "PRIVATE",
    }
)  # fmt: skip
"""Name words that make a variable a credential."""
_ENDINGS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "WEBHOOK", "COOKIE")
_BEGINNINGS = ("PASSWORD", "PASSWD", "SECRET", "CREDENTIAL", "PRIVATEKEY", "APIKEY")
SAFE_NAMES = frozenset(
    {
        "PWD", "OLDPWD", "XAUTHORITY", "XDG_SESSION_TYPE", "XDG_SESSION_CLASS",
        "XDG_SESSION_DESKTOP", "XDG_SESSION_ID", "DESKTOP_SESSION",
    }
)  # fmt: skip
"""Names with a credential word that only describe: kept whatever the words say."""
KEEP_VARIABLE = "TOOLBELT_KEEP_ENV"
"""Names (comma-separated) the user passes through on purpose."""
_WORD = re.compile(r"[A-Z0-9]+")
_URL_WITH_CREDENTIALS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s@]+@")


def is_secret(name: str, value: str) -> bool:
    """Whether ``name=value`` looks like a credential (see the module docstring)."""
    upper = name.upper()
    if upper in SAFE_NAMES:
        return False
    for word in _WORD.findall(upper):
        if word in SECRET_WORDS or word.endswith(_ENDINGS) or word.startswith(_BEGINNINGS):
            return True
    return _URL_WITH_CREDENTIALS.search(value) is not None


def command_environment(
    base: Mapping[str, str] | None = None, *, keep: Iterable[str] | None = None
) -> dict[str, str]:
    """``base`` (default: this process's environment) without credential-looking variables;
    ``keep`` (default: the names in ``TOOLBELT_KEEP_ENV``) pass whatever they look like."""
    source = dict(os.environ if base is None else base)
    if keep is None:
        keep = (n.strip() for n in source.get(KEEP_VARIABLE, "").split(",") if n.strip())
    allowed = set(keep)
    env = {
        name: value
        for name, value in source.items()
        if name in allowed or not is_secret(name, value)
    }
    env["TOOLBELT"] = "1"
    return env
