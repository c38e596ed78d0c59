# ruff: noqa: E501 - a fixture reads best as the one line the model wrote
"""Fixtures for every text tool-call family, written for these tests.

Every family gets the same eight situations — one call, parallel calls, values the schema must
type, empty arguments, prose around a call, quotes/newlines/backslashes in a value, a malformed
call and one cut off mid-way — written the way that family's models write them. The expected
results are shared where the meaning is the same, so a family that reads a value differently
from the others shows up as a failure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

STRING = {"type": "string"}
SCHEMAS: dict[str, dict[str, Any]] = {
    "read_file": {
        "type": "object",
        "properties": {"path": STRING, "offset": {"type": "integer"}},
        "required": ["path"],
    },
    "bash": {
        "type": "object",
        "properties": {
            "command": STRING,
            "timeout": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        },
        "required": ["command"],
    },
    "search": {
        "type": "object",
        "properties": {
            "pattern": STRING,
            "max_results": {"type": "integer"},
            "case_sensitive": {"type": "boolean"},
            "context": {"type": "number"},
            "globs": {"type": "array", "items": STRING},
            "timeout": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        },
    },
    "ls": {"type": "object", "properties": {"path": STRING}},
    "write_file": {"type": "object", "properties": {"path": STRING, "content": STRING}},
}

ONE = [("read_file", {"path": "src/app.py"})]
TWO = [("read_file", {"path": "a.py"}), ("bash", {"command": "ls -la"})]
TYPED = [
    (
        "search",
        {
            "pattern": "true",  # the schema says string: it stays a string
            "max_results": 5,
            "case_sensitive": False,
            "context": 1.5,
            "globs": ["*.py", "*.md"],
            "timeout": None,
        },
    )
]
EMPTY = [("ls", {})]
README = [("read_file", {"path": "README.md"})]
CODE = 'print("hi")\n\tpath = "C:\\tmp"\n'
ESCAPED = [("write_file", {"path": "q.py", "content": CODE})]


@dataclass(frozen=True)
class Case:
    family: str
    kind: str
    source: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    text: str | None = None
    """The exact visible text; None: only blank text is expected."""
    invalid: list[tuple[str, bool, str]] = field(default_factory=list)
    """(name, truncated, a phrase the correction must contain)."""
    ids: list[str] | None = None

    @property
    def id(self) -> str:
        return f"{self.family}-{self.kind}"


CUT = "cut off"
JSON_BAD = "not valid JSON"


def cut_off(family: str, source: str, tool: str = "read_file", *, text: str | None = None) -> Case:
    """A call the output limit cut off mid-way: it never runs and is answered as truncated."""
    return Case(family, "truncated", source, text=text, invalid=[(tool, True, CUT)])


def malformed(family: str, source: str, problem: str, tool: str = "read_file") -> Case:
    """A call that does not parse: it never runs, and the correction contains ``problem``."""
    return Case(family, "malformed", source, invalid=[(tool, False, problem)])


# ---- Hermes / Qwen JSON ---------------------------------------------------------------------
H = "hermes"
CASES = [
    Case(
        H,
        "single",
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/app.py"}}\n</tool_call>',
        ONE,
    ),
    Case(
        H,
        "parallel",
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>',
        TWO,
    ),
    Case(
        H,
        "typed",
        '<tool_call>\n{"name": "search", "arguments": {"pattern": "true", "max_results": "5", '
        '"case_sensitive": "false", "context": "1.5", "globs": "[\\"*.py\\", \\"*.md\\"]", '
        '"timeout": null}}\n</tool_call>',
        TYPED,
    ),
    Case(H, "empty", '<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>', EMPTY),
    Case(
        H,
        "prose",
        'Let me look first.\n<tool_call>\n{"name": "read_file", "arguments": {"path": '
        '"README.md"}}\n</tool_call>\nBack soon.',
        README,
        "Let me look first.\n\nBack soon.",
    ),
    Case(
        H,
        "escapes",
        r'<tool_call>{"name": "write_file", "arguments": {"path": "q.py", "content": '
        r'"print(\"hi\")\n\tpath = \"C:\\tmp\"\n"}}</tool_call>',
        ESCAPED,
    ),
    Case(
        H,
        "string-arguments",
        '<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"src/app.py\\"}"}</tool_call>',
        ONE,
    ),
    Case(
        H,
        "python-dict-in-fence",
        "<tool_call>\n```json\n{'name': 'read_file', 'parameters': {'path': 'src/app.py'}}\n```\n</tool_call>",
        ONE,
    ),
    Case(
        H,
        "two-objects-in-one-tag",
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>',
        TWO,
    ),
    malformed(
        H,
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}\n</tool_call>',
        JSON_BAD,
    ),
    Case(
        H,
        "template-leak",
        '<tool_call>{"name": "{{ tc.name }}", "arguments": {}}</tool_call>',
        invalid=[("{{ tc.name }}", False, "is not a tool name")],
    ),
    cut_off(
        H,
        'Reading.<tool_call>\n{"name": "read_file", "arguments": {"path": "src/a',
        text="Reading.",
    ),
    Case(
        H,
        "no-call",
        "Nothing to do: use <b>bold</b> and a < b.",
        text="Nothing to do: use <b>bold</b> and a < b.",
    ),
]

# ---- Qwen3-Coder XML ------------------------------------------------------------------------
Q = "qwen3-coder"
CASES += [
    Case(
        Q,
        "single",
        "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n</function>\n</tool_call>",
        ONE,
    ),
    Case(
        Q,
        "parallel",
        "<tool_call>\n<function=read_file>\n<parameter=path>\na.py\n</parameter>\n</function>\n</tool_call>\n"
        "<tool_call>\n<function=bash>\n<parameter=command>\nls -la\n</parameter>\n</function>\n</tool_call>",
        TWO,
    ),
    Case(
        Q,
        "typed",
        "<tool_call>\n<function=search>\n<parameter=pattern>\ntrue\n</parameter>\n"
        "<parameter=max_results>\n5\n</parameter>\n<parameter=case_sensitive>\nFalse\n</parameter>\n"
        "<parameter=context>\n1.5\n</parameter>\n<parameter=globs>\n['*.py', '*.md']\n</parameter>\n"
        "<parameter=timeout>\nNone\n</parameter>\n</function>\n</tool_call>",
        TYPED,
    ),
    Case(Q, "empty", "<tool_call>\n<function=ls>\n</function>\n</tool_call>", EMPTY),
    Case(
        Q,
        "prose",
        "Let me look first.\n<tool_call>\n<function=read_file>\n<parameter=path>\nREADME.md\n"
        "</parameter>\n</function>\n</tool_call>\nBack soon.",
        README,
        "Let me look first.\n\nBack soon.",
    ),
    Case(
        Q,
        "escapes",
        "<tool_call>\n<function=write_file>\n<parameter=path>\nq.py\n</parameter>\n"
        f"<parameter=content>\n{CODE}\n</parameter>\n</function>\n</tool_call>",
        ESCAPED,
    ),
    Case(
        Q,
        "closing-tag-in-value",
        "<tool_call>\n<function=write_file>\n<parameter=path>\nx.xml\n</parameter>\n"
        "<parameter=content>\n<a></parameter></a>\n</parameter>\n</function>\n</tool_call>",
        [("write_file", {"path": "x.xml", "content": "<a></parameter></a>"})],
    ),
    Case(
        Q,
        "missing-parameter-close",
        "<tool_call>\n<function=read_file>\n<parameter=path>\na.py\n<parameter=offset>\n3\n</parameter>\n"
        "</function>\n</tool_call>",
        [("read_file", {"path": "a.py", "offset": 3})],
    ),
    Case(Q, "bare-function", "<function=ls>\n</function>", EMPTY),
    malformed(
        Q,
        "<tool_call>\n<function=read_file>\npath: a.py\n</function>\n</tool_call>",
        "outside <parameter=",
    ),
    cut_off(
        Q,
        "<tool_call>\n<function=write_file>\n<parameter=path>\nq.py\n</parameter>\n<parameter=content>\nimport o",
        "write_file",
    ),
]


def _glm(layout: str) -> list[Case]:
    n = layout  # "\n" for GLM-4.5/4.6, "" for GLM-4.7
    family = "glm-4.5" if n else "glm-4.7"

    def call(name: str, **pairs: str) -> str:
        body = "".join(
            f"{n}<arg_key>{k}</arg_key>{n}<arg_value>{v}</arg_value>" for k, v in pairs.items()
        )
        return f"<tool_call>{name}{body}{n}</tool_call>"

    return [
        Case(family, "single", call("read_file", path="src/app.py"), ONE),
        Case(
            family,
            "parallel",
            call("read_file", path="a.py") + "\n" + call("bash", command="ls -la"),
            TWO,
        ),
        Case(
            family,
            "typed",
            call(
                "search",
                pattern="true",
                max_results="5",
                case_sensitive="false",
                context="1.5",
                globs='["*.py", "*.md"]',
                timeout="null",
            ),
            TYPED,
        ),
        Case(family, "empty", "<tool_call>ls</tool_call>", EMPTY),
        Case(
            family,
            "whitespace-kept-and-dotted-name",
            call("mcp.git-diff", old_string="    x = 1\n", replace_all="False"),
            [("mcp.git-diff", {"old_string": "    x = 1\n", "replace_all": "False"})],
        ),
        Case(
            family,
            "string-values-untouched",
            call("write_file", path=" keep spaces ", content="false"),
            [("write_file", {"path": " keep spaces ", "content": "false"})],
        ),
        Case(
            family,
            "prose",
            "Let me look first.\n" + call("read_file", path="README.md") + "\nBack soon.",
            README,
            "Let me look first.\n\nBack soon.",
        ),
        Case(family, "escapes", call("write_file", path="q.py", content=CODE), ESCAPED),
        malformed(
            family,
            f"<tool_call>read_file{n}<arg_key>path</arg_key>{n}</tool_call>",
            "needs its <arg_value>",
        ),
        cut_off(family, f"<tool_call>read_file{n}<arg_key>path</arg_key>{n}<arg_value>src"),
    ]


CASES += _glm("\n") + _glm("")

# ---- Mistral ----------------------------------------------------------------------------------
M = "mistral"
CASES += [
    Case(
        M, "single", '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "src/app.py"}}]', ONE
    ),
    Case(
        M,
        "parallel",
        '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a.py"}, "id": "aaaaaaaa1"}, '
        '{"name": "bash", "arguments": {"command": "ls -la"}, "id": "bbbbbbbb2"}]',
        TWO,
        ids=["aaaaaaaa1", "bbbbbbbb2"],
    ),
    Case(
        M,
        "typed",
        '[TOOL_CALLS][{"name": "search", "arguments": {"pattern": "true", "max_results": "5", '
        '"case_sensitive": "false", "context": 1.5, "globs": ["*.py", "*.md"], "timeout": "null"}}]',
        TYPED,
    ),
    Case(M, "empty", '[TOOL_CALLS][{"name": "ls", "arguments": {}}]', EMPTY),
    Case(
        M,
        "prose",
        'Let me look first.\n[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "README.md"}}]\nBack soon.',
        README,
        "Let me look first.\n\nBack soon.",
    ),
    Case(
        M,
        "escapes",
        r'[TOOL_CALLS][{"name": "write_file", "arguments": {"path": "q.py", "content": "print(\"hi\")\n\tpath = \"C:\\tmp\"\n"}}]',
        ESCAPED,
    ),
    malformed(
        M, '[TOOL_CALLS][{"name": "read_file", "arguments": "path=a.py"}]', "must be a JSON object"
    ),
    cut_off(M, '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a'),
]

V = "mistral-v11"
CASES += [
    Case(V, "single", '[TOOL_CALLS]read_file[ARGS]{"path": "src/app.py"}', ONE),
    Case(
        V,
        "parallel",
        '[TOOL_CALLS]read_file[CALL_ID]aaaaaaaa1[ARGS]{"path": "a.py"}'
        '[TOOL_CALLS]bash[CALL_ID]bbbbbbbb2[ARGS]{"command": "ls -la"}',
        TWO,
        ids=["aaaaaaaa1", "bbbbbbbb2"],
    ),
    Case(
        V,
        "typed",
        '[TOOL_CALLS]search[ARGS]{"pattern": "true", "max_results": "5", "case_sensitive": "False", '
        '"context": "1.5", "globs": "[\\"*.py\\", \\"*.md\\"]", "timeout": null}',
        TYPED,
    ),
    Case(V, "empty", "[TOOL_CALLS]ls[ARGS]{}", EMPTY),
    Case(V, "special-tokens-skipped", "[TOOL_CALLS]ls{}", EMPTY),
    Case(
        V,
        "prose",
        'Let me look first.\n[TOOL_CALLS]read_file[ARGS]{"path": "README.md"}\nBack soon.',
        README,
        "Let me look first.\n\nBack soon.",
    ),
    Case(
        V,
        "escapes",
        r'[TOOL_CALLS]write_file[ARGS]{"path": "q.py", "content": "print(\"hi\")\n\tpath = \"C:\\tmp\"\n"}',
        ESCAPED,
    ),
    malformed(V, '[TOOL_CALLS]read_file[ARGS]{"path": a.py}', JSON_BAD),
    cut_off(V, '[TOOL_CALLS]read_file[ARGS]{"path": "sr'),
]

# ---- Llama 3.x --------------------------------------------------------------------------------
L = "llama3"
CASES += [
    Case(L, "single", '{"name": "read_file", "parameters": {"path": "src/app.py"}}', ONE),
    Case(
        L,
        "parallel",
        '\n{"name": "read_file", "parameters": {"path": "a.py"}}; {"name": "bash", "parameters": {"command": "ls -la"}}',
        TWO,
    ),
    Case(
        L,
        "typed",
        '{"name": "search", "parameters": {"pattern": "true", "max_results": "5", "case_sensitive": '
        '"false", "context": "1.5", "globs": ["*.py", "*.md"], "timeout": null}}',
        TYPED,
    ),
    Case(L, "empty", '{"name": "ls", "parameters": {}}', EMPTY),
    Case(
        L,
        "prose",
        'Let me look first.\n<|python_tag|>{"name": "read_file", "parameters": {"path": "README.md"}}',
        README,
        "Let me look first.\n",
    ),
    Case(
        L,
        "escapes",
        r'<|python_tag|>{"name": "write_file", "parameters": {"path": "q.py", "content": "print(\"hi\")\n\tpath = \"C:\\tmp\"\n"}}',
        ESCAPED,
    ),
    Case(L, "end-token-left-in", '{"name": "ls", "parameters": {}}<|eot_id|>', EMPTY, text=""),
    Case(L, "json-answer", '{"answer": 42}', text='{"answer": 42}'),
    malformed(L, '<|python_tag|>{"name": "read_file", "parameters": {"path": a.py}}', JSON_BAD),
    cut_off(L, '{"name": "read_file", "parameters": {"path": "sr'),
]

# ---- DeepSeek -----------------------------------------------------------------------------------
BEGIN, END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CB, CE, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def _v3(name: str, args: str) -> str:
    return f"{CB}function{SEP}{name}\n```json\n{args}\n```{CE}"


def _v31(name: str, args: str) -> str:
    return f"{CB}{name}{SEP}{args}{CE}"


TYPED_JSON = (
    '{"pattern": "true", "max_results": "5", "case_sensitive": "false", "context": 1.5, '
    '"globs": ["*.py", "*.md"], "timeout": null}'
)
ESCAPED_JSON = r'{"path": "q.py", "content": "print(\"hi\")\n\tpath = \"C:\\tmp\"\n"}'
for family, one in (("deepseek-v3", _v3), ("deepseek-v3.1", _v31)):
    CASES += [
        Case(family, "single", BEGIN + one("read_file", '{"path": "src/app.py"}') + END, ONE),
        Case(
            family,
            "parallel",
            BEGIN
            + one("read_file", '{"path": "a.py"}')
            + one("bash", '{"command": "ls -la"}')
            + END,
            TWO,
        ),
        Case(family, "typed", BEGIN + one("search", TYPED_JSON) + END, TYPED),
        Case(family, "empty", BEGIN + one("ls", "{}") + END, EMPTY),
        Case(
            family,
            "prose",
            "Let me look first.\n"
            + BEGIN
            + one("read_file", '{"path": "README.md"}')
            + END
            + "\nBack soon.",
            README,
            "Let me look first.\n\nBack soon.",
        ),
        Case(family, "escapes", BEGIN + one("write_file", ESCAPED_JSON) + END, ESCAPED),
        Case(family, "end-of-sentence-left-in", "Done.<｜end▁of▁sentence｜>", text="Done."),
        Case(family, "ascii-bars", (BEGIN + one("ls", "{}") + END).replace("｜", "|"), EMPTY),
        Case(family, "no-outer-begin", one("ls", "{}"), EMPTY),
        malformed(family, f'{BEGIN}{CB}read_file {{"path": "a.py"}}{CE}{END}', SEP, ""),
        cut_off(family, BEGIN + one("read_file", '{"path": "src/a')[: -len(CE) - 5]),
    ]

D = "deepseek-v3.2"
DS = "｜DSML｜"


def _invoke(name: str, **params: tuple[str, str]) -> str:
    body = "".join(
        f'<{DS}parameter name="{k}" string="{s}">{v}</{DS}parameter>\n'
        for k, (v, s) in params.items()
    )
    return f'<{DS}invoke name="{name}">\n{body}</{DS}invoke>\n'


def _dsml(*invokes: str) -> str:
    return f"<{DS}function_calls>\n{''.join(invokes)}</{DS}function_calls>"


T, F = "true", "false"
CASES += [
    Case(D, "single", _dsml(_invoke("read_file", path=("src/app.py", T))), ONE),
    Case(
        D,
        "parallel",
        _dsml(_invoke("read_file", path=("a.py", T)), _invoke("bash", command=("ls -la", T))),
        TWO,
    ),
    Case(
        D,
        "typed",
        _dsml(
            _invoke(
                "search",
                pattern=("true", T),
                max_results=("5", F),
                case_sensitive=("false", F),
                context=("1.5", F),
                globs=('["*.py", "*.md"]', F),
                timeout=("null", F),
            )
        ),
        TYPED,
    ),
    Case(D, "empty", _dsml(_invoke("ls")), EMPTY),
    Case(
        D,
        "prose",
        "Let me look first.\n"
        + _dsml(_invoke("read_file", path=("README.md", T)))
        + "\nBack soon.",
        README,
        "Let me look first.\n\nBack soon.",
    ),
    Case(D, "escapes", _dsml(_invoke("write_file", path=("q.py", T), content=(CODE, T))), ESCAPED),
    malformed(
        D, f"<{DS}function_calls>\n<{DS}call read_file/>\n</{DS}function_calls>", "invoke block", ""
    ),
    cut_off(D, _dsml(_invoke("write_file", path=("q.py", T)))[:-40], "write_file"),
]

# ---- Kimi K2 ------------------------------------------------------------------------------------
KS, KE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"


def _kimi(call_id: str, args: str) -> str:
    return f"<|tool_call_begin|>{call_id}<|tool_call_argument_begin|>{args}<|tool_call_end|>"


K = "kimi-k2"
CASES += [
    Case(
        K,
        "single",
        KS + _kimi("functions.read_file:0", '{"path": "src/app.py"}') + KE,
        ONE,
        ids=["functions.read_file:0"],
    ),
    Case(
        K,
        "parallel",
        KS
        + _kimi("functions.read_file:1", '{"path": "a.py"}')
        + _kimi("functions.bash:2", '{"command": "ls -la"}')
        + KE,
        TWO,
        ids=["functions.read_file:1", "functions.bash:2"],
    ),
    Case(K, "typed", KS + _kimi("functions.search:0", TYPED_JSON) + KE, TYPED),
    Case(K, "empty", KS + _kimi("functions.ls:0", "{}") + KE, EMPTY),
    Case(
        K,
        "prose",
        "Let me look first.\n"
        + KS
        + _kimi("functions.read_file:0", '{"path": "README.md"}')
        + KE
        + "\nBack soon.",
        README,
        "Let me look first.\n\nBack soon.",
    ),
    Case(K, "escapes", KS + _kimi("functions.write_file:0", ESCAPED_JSON) + KE, ESCAPED),
    Case(K, "dotted-name", KS + _kimi("functions.mcp.read:0", "{}") + KE, [("mcp.read", {})]),
    malformed(
        K,
        KS + _kimi("functions.read_file", '{"path": "a.py"}') + KE,
        "functions.TOOL:INDEX",
        "functions.read_file",
    ),
    cut_off(K, KS + _kimi("functions.read_file:0", '{"path": "sr')[: -len("<|tool_call_end|>")]),
]

# ---- gpt-oss Harmony ----------------------------------------------------------------------------
G = "harmony"


def _h(name: str, args: str) -> str:
    return f"<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{args}<|call|>"


CASES += [
    Case(G, "single", _h("read_file", '{"path": "src/app.py"}'), ONE),
    Case(
        G,
        "parallel",
        "<|channel|>analysis<|message|>Need the file and a listing.<|end|><|start|>assistant"
        + _h("read_file", '{"path": "a.py"}')
        + '<|start|>assistant to=functions.bash<|channel|>commentary json<|message|>{"command": "ls -la"}<|call|>',
        TWO,
    ),
    Case(G, "typed", _h("search", TYPED_JSON), TYPED),
    Case(G, "empty", _h("ls", "{}"), EMPTY),
    Case(
        G,
        "prose",
        "<|channel|>commentary<|message|>Let me look first.<|end|><|start|>assistant"
        + _h("read_file", '{"path": "README.md"}'),
        README,
        "Let me look first.",
    ),
    Case(
        G,
        "final-answer",
        "<|channel|>analysis<|message|>Easy sum.<|end|><|start|>assistant<|channel|>final<|message|>It is 4.",
        text="It is 4.",
    ),
    Case(G, "escapes", _h("write_file", ESCAPED_JSON), ESCAPED),
    Case(
        G,
        "builtin",
        "<|channel|>analysis to=browser.search <|constrain|>json<|message|>{}<|call|>",
        invalid=[("browser.search", False, "no built-in tool")],
    ),
    malformed(G, _h("read_file", "{path: a.py}"), JSON_BAD),
    cut_off(G, _h("read_file", '{"path": "sr')[: -len("<|call|>")]),
]

# ---- Mention is not use: call markup the model quotes or only thinks about ----------------------
# In a code block, an inline code span or reasoning, a call is text (shown as written); the real
# call after it runs. ``quoted`` runs ``rm``, ``real`` reads README.md, in each family's shape.
_DS_V31 = "<｜tool▁calls▁begin｜>" + _v31("{name}", "{args}") + "<｜tool▁calls▁end｜>"
_MENTION_SHAPES = {
    "hermes": '<tool_call>\n{{"name": "{name}", "arguments": {args}}}\n</tool_call>',
    "auto": '<tool_call>\n{{"name": "{name}", "arguments": {args}}}\n</tool_call>',
    "qwen3-coder": "<tool_call>\n<function={name}>\n<parameter={key}>\n{value}\n</parameter>\n</function>\n</tool_call>",
    "glm-4.5": "<tool_call>{name}\n<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n</tool_call>",
    "glm-4.7": "<tool_call>{name}<arg_key>{key}</arg_key><arg_value>{value}</arg_value></tool_call>",
    "mistral": '[TOOL_CALLS][{{"name": "{name}", "arguments": {args}}}]',
    "mistral-v11": "[TOOL_CALLS]{name}[ARGS]{args}",
    "deepseek-v3.1": _DS_V31,
    "deepseek-v3.2": _dsml(_invoke("{name}", **{"{key}": ("{value}", "true")})),
    "kimi-k2": KS + _kimi("functions.{name}:0", "{args}") + KE,
}


def family_call(family: str, name: str, key: str, value: str) -> str:
    args = json.dumps({key: value})
    return _MENTION_SHAPES[family].format(name=name, key=key, value=value, args=args)


def _mentions(family: str) -> list[Case]:
    quoted = family_call(family, "bash", "command", "rm -rf build")
    real = family_call(family, "read_file", "path", "README.md")
    thinking = ("[THINK]", "[/THINK]") if family.startswith("mistral") else ("<think>", "</think>")
    fence = f"It looks like this:\n```\n{quoted}\n```\n"
    inline = f"Write `{quoted}` to call it.\n"
    thought = f"{thinking[0]}Maybe {quoted} first?{thinking[1]}"
    cases = [
        Case(family, "fenced-mention", fence + real, README, fence),
        Case(family, "inline-mention", inline + real, README, inline),
        Case(family, "thought-mention", thought + real, README, thought),
        Case(
            family,
            "long-fence",
            f"````md\n```\n{quoted}\n```\n````{real}",
            README,
            f"````md\n```\n{quoted}\n```\n````",
        ),
        Case(
            family,
            "double-backtick",
            f"See ``a ` {quoted}``.{real}",
            README,
            f"See ``a ` {quoted}``.",
        ),
        # a lone backtick is literal once its paragraph ends: the call after it runs
        Case(family, "lone-backtick", f"It's a `quote\n\n{real}", README, "It's a `quote\n\n"),
    ]
    # the template opened the reasoning in the prompt: the call was announced, then refused
    cases.append(
        Case(
            family,
            "reasoning-opened-in-prompt",
            f"Maybe {quoted} first?{thinking[1]}\n{real}",
            README,
            f"Maybe  first?{thinking[1]}\n",
            [("bash", False, "inside your reasoning")],
        )
    )
    return cases


CASES += [case for family in _MENTION_SHAPES for case in _mentions(family)]
CASES += [
    # Qwen3-Coder's bare <function=...> and Llama's bare JSON answer, quoted
    Case(
        Q,
        "bare-function-in-fence",
        "```\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n```",
        text="```\n<function=bash>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>\n```",
    ),
    Case(
        L,
        "json-in-fence",
        '```json\n{"name": "bash", "parameters": {"command": "rm -rf build"}}\n```',
        text='```json\n{"name": "bash", "parameters": {"command": "rm -rf build"}}\n```',
    ),
    Case(
        L,
        "python-tag-in-think",
        '<think><|python_tag|>{"name": "bash", "parameters": {"command": "rm -rf build"}}</think>Done.',
        text='<think><|python_tag|>{"name": "bash", "parameters": {"command": "rm -rf build"}}</think>Done.',
    ),
    # Harmony: a call quoted inside the analysis (reasoning) is hidden and does not run; a
    # message's end closes an inline span left open, so the next message's call still runs
    Case(
        G,
        "call-quoted-in-analysis",
        "<|channel|>analysis<|message|>I could send "
        + _h("bash", '{"command": "rm -rf build"}')
        + " but no.<|end|><|start|>assistant<|channel|>final<|message|>No action needed.",
        text=" but no.No action needed.",  # the quoted <|call|> ended the analysis message
    ),
    Case(
        G,
        "fenced-mention",
        "<|channel|>final<|message|>Like:\n```\n"
        + _h("bash", '{"command": "rm -rf build"}')
        + "\n```\n<|end|><|start|>assistant"
        + _h("read_file", '{"path": "README.md"}'),
        README,
        "Like:\n```\n<|channel|>commentary to=functions.bash <|constrain|>json<|message|>"
        '{"command": "rm -rf build"}\n```\n',
    ),
    Case(
        G,
        "inline-mention",
        "<|channel|>final<|message|>Write `"
        + _h("bash", '{"command": "rm -rf build"}')
        + "` to call it.<|end|><|start|>assistant"
        + _h("read_file", '{"path": "README.md"}'),
        README,
        "Write `<|channel|>commentary to=functions.bash <|constrain|>json<|message|>"
        '{"command": "rm -rf build"}` to call it.',
    ),
    Case(
        G,
        "span-ends-with-message",
        "<|channel|>commentary<|message|>Reading `README<|end|><|start|>assistant"
        + _h("read_file", '{"path": "README.md"}'),
        README,
        "Reading `README",
    ),
]
