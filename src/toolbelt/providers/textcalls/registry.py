"""The text tool-call families by name, and ``auto``: every family's markers at once.

``--tool-format`` takes ``native``, ``auto`` or one of ``FAMILY_NAMES``; common model names
are accepted as aliases (``qwen`` is Hermes, ``glm-4.6`` is GLM-4.5, ``gpt-oss`` is Harmony).
``auto`` is for a model given native tools that sometimes writes its calls as text instead:
it recognises any family's markers, and is not meant to render a prompt.
"""

from __future__ import annotations

from toolbelt.providers.textcalls.deepseek import DEEPSEEK_V3, DEEPSEEK_V31, DEEPSEEK_V32
from toolbelt.providers.textcalls.family import Family, Opener
from toolbelt.providers.textcalls.glm import GLM45, GLM47
from toolbelt.providers.textcalls.harmony import HARMONY
from toolbelt.providers.textcalls.kimi import KIMI_K2
from toolbelt.providers.textcalls.llama import LLAMA3
from toolbelt.providers.textcalls.mistral import MISTRAL, MISTRAL_V11
from toolbelt.providers.textcalls.tagged import HERMES, QWEN3_CODER

__all__ = ["AUTO", "FAMILY_NAMES", "text_call_family"]

_FAMILIES = (
    HERMES,
    QWEN3_CODER,
    GLM45,
    GLM47,
    MISTRAL,
    MISTRAL_V11,
    LLAMA3,
    DEEPSEEK_V3,
    DEEPSEEK_V31,
    DEEPSEEK_V32,
    KIMI_K2,
    HARMONY,
)
FAMILY_NAMES: tuple[str, ...] = tuple(f.name for f in _FAMILIES)
_BY_NAME = {f.name: f for f in _FAMILIES}
_ALIASES = {
    "qwen": "hermes",
    "qwen2.5": "hermes",
    "qwen3": "hermes",
    "qwen3.5": "qwen3-coder",
    "glm-4.6": "glm-4.5",
    "mistral-v13": "mistral-v11",
    "devstral": "mistral-v11",
    "llama": "llama3",
    "deepseek": "deepseek-v3.1",
    "kimi": "kimi-k2",
    "gpt-oss": "harmony",
}


def _auto_openers() -> tuple[Opener, ...]:
    """Every family's floating markers, the first family owning a shared marker (the
    ``<tool_call>`` and ``[TOOL_CALLS]`` families read each other's bodies anyway). Llama's
    bare JSON answer is left out: with native tools offered, JSON is more likely an answer."""
    openers: dict[str, Opener] = {}
    for family in _FAMILIES:
        for opener in family.openers:
            if not opener.at_start:
                openers.setdefault(opener.marker, opener)
    return tuple(openers.values())


AUTO = Family(
    "auto",
    _auto_openers(),
    "the tool-call format you were trained on, or better a native tool call",
    HERMES.render_tools,
    HERMES.render_calls,
    HERMES.render_results,
)


def text_call_family(name: str) -> Family:
    """The family called ``name`` (or ``auto``); ``ValueError`` names the valid choices."""
    key = name.strip().lower()
    if key == "auto":
        return AUTO
    family = _BY_NAME.get(_ALIASES.get(key, key))
    if family is None:
        choices = ", ".join(("auto", *FAMILY_NAMES))
        raise ValueError(f"unknown text tool-call format {name!r}; choose one of: {choices}")
    return family
