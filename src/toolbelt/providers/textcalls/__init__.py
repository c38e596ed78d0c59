"""Tool calls written as plain text by open models served without a tool parser.

``TextToolCallClient(inner, "qwen3-coder")`` makes any ``ModelClient`` call tools through
text; ``TextCallParser`` is the streaming parser on its own; ``text_call_family`` and
``FAMILY_NAMES`` are what ``--tool-format`` chooses from.
"""

from toolbelt.providers.textcalls.client import PROVIDER_DATA_KEY, TextToolCallClient
from toolbelt.providers.textcalls.coerce import coerce_arguments, coerce_value
from toolbelt.providers.textcalls.family import Family
from toolbelt.providers.textcalls.registry import AUTO, FAMILY_NAMES, text_call_family
from toolbelt.providers.textcalls.stream import ParseEvent, TextCallParser, new_call_id

__all__ = [
    "AUTO",
    "FAMILY_NAMES",
    "PROVIDER_DATA_KEY",
    "Family",
    "ParseEvent",
    "TextCallParser",
    "TextToolCallClient",
    "coerce_arguments",
    "coerce_value",
    "new_call_id",
    "text_call_family",
]
