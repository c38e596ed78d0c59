"""What a self-hosted server says its special tokens are, for ``framing`` to break them too.

The shapes ``framing`` finds cover the chat templates known today; a server that can say which
strings its tokenizer reads as special tokens covers the next family as well:

- **vLLM** (``--enable-tokenizer-info-endpoint``): ``GET /tokenizer_info`` gives the tokenizer
  configuration — ``added_tokens_decoder`` (every added token, special or not: the tokenizer
  splits them out of any text), ``bos_token``, ``eos_token``, ``pad_token``, ``unk_token``,
  ``additional_special_tokens``;
- **llama.cpp** (``llama-server``): ``GET /props`` gives ``bos_token``, ``eos_token`` and the
  ``chat_template``, whose token-like literals (``<…>``, ``[…]``, MiniMax's ``]~b]``) are taken.

Asked once per client, bounded (a few seconds, a few MB), at the server's root (``/v1``
dropped from the base URL), with the client's key; any failure means the server cannot say,
and the shapes alone apply.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["SpecialTokens", "server_special_tokens", "template_tokens"]

_SECONDS = 3.0
_MAX_BYTES = 8 * 1024 * 1024
_NAMED = ("bos_token", "eos_token", "pad_token", "unk_token", "sep_token", "cls_token")
_TEMPLATE_TOKEN = re.compile(
    r"<[^\s<>'\"{}]{1,64}>"  # <start_of_turn>, <|im_start|>, <seed:bos>
    r"|\[[^\s\[\]'\"{}]{1,32}\]"  # [INST], [gMASK]
    r"|\][~!][^\s\[\]'\"{}]{0,6}[\[\]]"  # ]~b], ]~!b[
    r"|\[[a-z]{1,4}~\["  # [e~[
)


async def server_special_tokens(base_url: str, api_key: str = "") -> frozenset[str]:
    """The special tokens the server at ``base_url`` reports (empty when it cannot say)."""
    import httpx

    root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    found: set[str] = set()
    async with httpx.AsyncClient(timeout=_SECONDS, headers=headers) as client:
        for path, read in (("/tokenizer_info", _tokenizer_info), ("/props", _props)):
            try:
                async with client.stream("GET", root + path) as response:
                    if response.status_code != 200:
                        continue
                    body = b""
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) > _MAX_BYTES:
                            break
                data = _json(body)
            except httpx.HTTPError:
                continue
            if isinstance(data, dict):
                found |= read(data)
    return frozenset(token for token in found if token.strip())


def _tokenizer_info(data: dict[str, Any]) -> set[str]:
    nested = data.get("tokenizer_config")
    config: dict[str, Any] = nested if isinstance(nested, dict) else data
    found = {_content(config.get(name)) for name in _NAMED}
    added = config.get("added_tokens_decoder")
    if isinstance(added, dict):
        found |= {_content(token) for token in added.values()}
    extra = config.get("additional_special_tokens")
    if isinstance(extra, list):
        found |= {_content(token) for token in extra}
    template = config.get("chat_template")
    if isinstance(template, str):
        found |= template_tokens(template)
    return {token for token in found if token}


def _props(data: dict[str, Any]) -> set[str]:
    found = {_content(data.get(name)) for name in _NAMED}
    template = data.get("chat_template")
    if isinstance(template, str):
        found |= template_tokens(template)
    return {token for token in found if token}


def template_tokens(template: str) -> set[str]:
    """The token-like literals of a Jinja chat template."""
    return set(_TEMPLATE_TOKEN.findall(template))


def _content(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return str(value["content"])
    return ""


def _json(body: bytes) -> object:
    import json

    try:
        return json.loads(body)
    except ValueError:
        return None


class SpecialTokens:
    """One client's server, asked once for its special tokens, which ``framing`` then breaks
    in every untrusted text (``learn``)."""

    def __init__(self, base_url: str, api_key: str) -> None:
        self._base_url = base_url
        self._api_key = api_key
        self._asked = False
        self.tokens: frozenset[str] = frozenset()

    async def learn(self) -> None:
        """Ask the server, the first time only (a second caller meanwhile asks too: both
        learn the same, and nothing is lost)."""
        if self._asked:
            return
        self._asked = True
        from toolbelt.providers.framing import learn_special_tokens

        self.tokens = await server_special_tokens(self._base_url, self._api_key)
        learn_special_tokens(self.tokens)
