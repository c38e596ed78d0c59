"""Near-miss edits, each of the kind a public bug report describes, written for toolbelt.

Every case is our own small file and edit, modelled on the failure a report describes (the
``source``); none copies the report's text. ``expected`` is the exact bytes the file must hold
afterwards, or ``REFUSE``: the edit must be refused and the file left untouched. ``stale``, when
set, is what the file holds by the time the edit arrives (it changed after it was read).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

__all__ = ["CASES", "REFUSE", "Case"]

REFUSE = None

CC = "https://github.com/anthropics/claude-code/issues/"
GEMINI = "https://github.com/google-gemini/gemini-cli/issues/"
OPENCODE = "https://github.com/anomalyco/opencode/"
CLINE = "https://github.com/cline/cline/issues/"
AIDER = "https://github.com/Aider-AI/aider/"
CODEX = "https://github.com/openai/codex/"
NFD_SEARCH = "https://github.com/lidge-jun/aside-codemode/issues/30"
EOF_NEWLINE = "https://github.com/langchain-ai/deepagents/pull/3031"

BOM = "\ufeff".encode()


@dataclass(frozen=True)
class Case:
    """One near-miss edit and what must come of it."""

    name: str
    source: str
    file: bytes
    old: str
    new: str
    expected: bytes | None
    replace_all: bool = False
    stale: bytes | None = None


def _u(text: str) -> bytes:
    return text.encode()


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


CASES: list[Case] = [
    # -- trailing whitespace: dropped by the model, kept where it changed nothing -------------
    Case(
        "markdown-hard-break-context",
        "https://github.com/open-octo/octo-agent/pull/317",
        _u("Address:  \n12 Main St  \nSpringfield\n"),
        "Address:\n12 Main St\nSpringfield",
        "Address:\n12 Main St\nShelbyville",
        _u("Address:  \n12 Main St  \nShelbyville\n"),
    ),
    Case(
        "markdown-hard-break-on-changed-line",
        "https://github.com/open-octo/octo-agent/pull/317",
        _u("Roses are red  \nViolets are blue\n"),
        "Roses are red\nViolets are blue",
        "Roses are crimson\nViolets are blue",
        _u("Roses are crimson  \nViolets are blue\n"),
    ),
    Case(
        "python-trailing-spaces-in-context",
        GEMINI + "6835",
        _u("def f(x):    \n    y = x + 1\n    return y\n"),
        "def f(x):\n    y = x + 1\n    return y",
        "def f(x):\n    y = x + 2\n    return y",
        _u("def f(x):    \n    y = x + 2\n    return y\n"),
    ),
    Case(
        "trailing-tab-kept",
        GEMINI + "6835",
        _u("key = 1\t\nother = 2\n"),
        "key = 1\nother = 2",
        "key = 1\nother = 3",
        _u("key = 1\t\nother = 3\n"),
    ),
    Case(
        "blank-line-with-spaces-in-context",
        CLINE + "3183",
        _u("a = 1\n    \nb = 2\n"),
        "a = 1\n\nb = 2",
        "a = 1\n\nb = 20",
        _u("a = 1\n    \nb = 20\n"),
    ),
    Case(
        "model-adds-trailing-spaces",
        CLINE + "3183",
        _u("x = 1\ny = 2\n"),
        "x = 1  \ny = 2",
        "x = 1  \ny = 3",
        _u("x = 1\ny = 3\n"),
    ),
    Case(
        "shell-continuation-with-trailing-space",
        GEMINI + "5041",
        _u("docker run \\\n  --rm \\\n  image:1 \n"),
        "docker run \\\n  --rm \\\n  image:1",
        "docker run \\\n  --rm \\\n  image:2",
        _u("docker run \\\n  --rm \\\n  image:2 \n"),
    ),
    Case(
        "yaml-block-scalar-trailing-spaces",
        CLINE + "3183",
        _u("script: |\n  echo one  \n  echo two\nname: build\n"),
        "script: |\n  echo one\n  echo two\nname: build",
        "script: |\n  echo one\n  echo two\nname: test",
        _u("script: |\n  echo one  \n  echo two\nname: test\n"),
    ),
    # -- indentation: tabs stay tabs, widths stay widths -------------------------------------
    Case(
        "go-tabs-model-spaces",
        CC + "26996",
        _u("func f() {\n\tif ok {\n\t\treturn 1\n\t}\n}\n"),
        "    if ok {\n        return 1\n    }",
        "    if ok {\n        log()\n        return 2\n    }",
        _u("func f() {\n\tif ok {\n\t\tlog()\n\t\treturn 2\n\t}\n}\n"),
    ),
    Case(
        "jsx-tabs-model-spaces",
        CC + "37403",
        _u('\t\t<div>\n\t\t\t<span aria-live="polite" />\n\t\t</div>\n'),
        '    <div>\n      <span aria-live="polite" />\n    </div>',
        '    <div>\n      <span aria-live="off" />\n    </div>',
        _u('\t\t<div>\n\t\t\t<span aria-live="off" />\n\t\t</div>\n'),
    ),
    Case(
        "csharp-tabs-insert-line",
        CC + "13152",
        _u("class A {\n\tvoid M() {\n\t\tRun();\n\t}\n}\n"),
        "    void M() {\n        Run();\n    }",
        "    void M() {\n        Setup();\n        Run();\n    }",
        _u("class A {\n\tvoid M() {\n\t\tSetup();\n\t\tRun();\n\t}\n}\n"),
    ),
    Case(
        "c-hard-tabs-single-line",
        CC + "40471",
        _u("int main(void)\n{\n\treturn 0;\n}\n"),
        "    return 0;",
        "    return 1;",
        _u("int main(void)\n{\n\treturn 1;\n}\n"),
    ),
    Case(
        "four-space-file-model-two",
        CC + "11447",
        _u("class A:\n    def f(self):\n        return 1\n"),
        "  def f(self):\n    return 1",
        "  def f(self):\n    if self:\n      return 2\n    return 1",
        _u(
            "class A:\n    def f(self):\n        if self:\n            return 2\n        return 1\n"
        ),
    ),
    Case(
        "two-space-file-model-four",
        CC + "11447",
        _u("root:\n  child:\n    leaf: 1\n"),
        "    child:\n        leaf: 1",
        "    child:\n        leaf: 2\n        other: 3",
        _u("root:\n  child:\n    leaf: 2\n    other: 3\n"),
    ),
    Case(
        "makefile-recipe-tab",
        CC + "9163",
        _u("build:\n\tgo build ./...\n\ttouch done\n"),
        "build:\n    go build ./...\n    touch done",
        "build:\n    go build -v ./...\n    touch done",
        _u("build:\n\tgo build -v ./...\n\ttouch done\n"),
    ),
    Case(
        "heredoc-tab-body",
        CC + "25913",
        _u("cat <<-EOF\n\tline one\n\tline two\nEOF\n"),
        "cat <<-EOF\n    line one\n    line two\nEOF",
        "cat <<-EOF\n    line one\n    line 2\nEOF",
        _u("cat <<-EOF\n\tline one\n\tline 2\nEOF\n"),
    ),
    Case(
        "dedent-in-new-string",
        "https://github.com/charmbracelet/crush/pull/3452",
        _u("func g() {\n\tif a {\n\t\tb()\n\t}\n}\n"),
        "    if a {\n        b()\n    }",
        "    b()",
        _u("func g() {\n\tb()\n}\n"),
    ),
    Case(
        "model-drops-indent-entirely",
        GEMINI + "7706",
        _u("fn f() {\n        let a = 1;\n        let b = 2;\n}\n"),
        "let a = 1;\nlet b = 2;",
        "let a = 1;\nlet b = 3;",
        _u("fn f() {\n        let a = 1;\n        let b = 3;\n}\n"),
    ),
    Case(
        "yaml-one-space-typed-two-held",
        CC + "11447",
        _u("a:\n  b: 1\n  c: 2\n"),
        "a:\n b: 1\n c: 2",
        "a:\n b: 1\n c: 3\n d: 4",
        _u("a:\n  b: 1\n  c: 3\n  d: 4\n"),
    ),
    Case(
        "indentation-structure-differs",
        GEMINI + "7706",
        _u("def f():\n    if x:\n        y()\n"),
        "def f():\nif x:\n    y()",
        "def f():\nif x:\n  q()\n    y()",
        REFUSE,
    ),
    Case(
        "mixed-tab-space-context-kept",
        CC + "28831",
        _u("\tif (x) {\n\t  y();\n\t}\n"),
        "    if (x) {\n      y();\n    }",
        "    if (x) {\n      z();\n    }",
        _u("\tif (x) {\n\t  z();\n\t}\n"),
    ),
    # -- quotes --------------------------------------------------------------------------
    Case(
        "prose-curly-quotes",
        "https://github.com/github/copilot-cli/issues/3254",
        _u("Do not re-examine “what repo to change” each time.\n"),
        'Do not re-examine "what repo to change" each time.',
        'Do not re-examine "what repo to change" each session.',
        _u("Do not re-examine “what repo to change” each session.\n"),
    ),
    Case(
        "apostrophes-curly",
        CC + "1986",
        _u("It’s the user’s choice.\n"),
        "It's the user's choice.",
        "It's the user's decision.",
        _u("It’s the user’s decision.\n"),
    ),
    Case(
        "regex-holds-both-quotes",
        CC + "31863",
        _u("const re = /['’]/;\nconst s = “ok”;\n"),
        "const re = /['']/;\nconst s = \"ok\";",
        "const re = /['']/u;\nconst s = \"ok\";",
        _u("const re = /['’]/u;\nconst s = “ok”;\n"),
    ),
    Case(
        "shell-script-stays-straight",
        CC + "63732",
        _u('tmp="$(mktemp)"\necho "$tmp"\n'),
        "tmp=“$(mktemp)”\necho “$tmp”",
        "tmp=“$(mktemp)”\necho “$tmp” >&2",
        _u('tmp="$(mktemp)"\necho "$tmp" >&2\n'),
    ),
    Case(
        "inserted-quote-takes-file-style",
        CC + "26141",
        _u("She said, “Hello.”\n"),
        'She said, "Hello."',
        'She said, "Hello." He said, "Hi."',
        _u("She said, “Hello.” He said, “Hi.”\n"),
    ),
    Case(
        "code-span-quotes-stay-straight",
        CC + "31863",
        _u("Say “hi” first.\n"),
        'Say "hi" first.',
        'Say "hi" first, then run `x = "y"`.',
        _u('Say “hi” first, then run `x = "y"`.\n'),
    ),
    Case(
        "json-with-curly-in-string",
        "https://github.com/github/copilot-cli/issues/3254",
        _u('{\n  "hint": "press “save”",\n  "n": 1\n}\n'),
        '  "hint": "press "save"",\n  "n": 1',
        '  "hint": "press "save"",\n  "n": 2',
        _u('{\n  "hint": "press “save”",\n  "n": 2\n}\n'),
    ),
    Case(
        "single-curly-quotes-in-docstring",
        CC + "1986",
        _u('"""Use ‘strict’ mode."""\nx = 1\n'),
        '"""Use \'strict\' mode."""\nx = 1',
        '"""Use \'strict\' mode."""\nx = 2',
        _u('"""Use ‘strict’ mode."""\nx = 2\n'),
    ),
    Case(
        "cjk-corner-quotes-untouched",
        "https://github.com/github/copilot-cli/issues/3254",
        _u("标题：「你好」 — 世界\n"),
        "标题：「你好」 - 世界",
        "标题：「您好」 - 世界",
        _u("标题：「您好」 — 世界\n"),
    ),
    # -- dashes --------------------------------------------------------------------------
    Case(
        "em-dash-prose",
        CC + "26141",
        _u("The tool — when used well — saves time.\n"),
        "The tool - when used well - saves time.",
        "The tool - when used well - saves hours.",
        _u("The tool — when used well — saves hours.\n"),
    ),
    Case(
        "en-dash-range",
        CC + "26141",
        _u("Supported: 3.10–3.12\n"),
        "Supported: 3.10-3.12",
        "Supported: 3.10-3.13",
        _u("Supported: 3.10–3.13\n"),
    ),
    Case(
        "minus-sign-in-docs",
        CC + "26141",
        _u("Offset is −5 px.\n"),
        "Offset is -5 px.",
        "Offset is -6 px.",
        _u("Offset is −6 px.\n"),
    ),
    Case(
        "non-breaking-hyphen",
        CC + "26141",
        _u("See the e‑mail from Bob.\n"),
        "See the e-mail from Bob.",
        "See the e-mail from Alice.",
        _u("See the e‑mail from Alice.\n"),
    ),
    Case(
        "dash-changed-on-purpose",
        CC + "26141",
        _u("pages 10 - 12\n"),
        "pages 10 - 12",
        "pages 10–12",
        _u("pages 10–12\n"),
    ),
    Case(
        "em-dash-comment-in-code",
        CC + "26141",
        _u("x = 1  # default — see docs\ny = 2\n"),
        "x = 1  # default - see docs\ny = 2",
        "x = 1  # default - see docs\ny = 3",
        _u("x = 1  # default — see docs\ny = 3\n"),
    ),
    # -- spaces --------------------------------------------------------------------------
    Case(
        "nbsp-french-punctuation",
        CODEX + "pull/625",
        _u("Bonjour\u00a0! Ça va\u00a0?\n"),
        "Bonjour ! Ça va ?",
        "Bonjour ! Ça roule ?",
        _u("Bonjour\u00a0! Ça roule\u00a0?\n"),
    ),
    Case(
        "narrow-nbsp-thousands",
        CODEX + "pull/625",
        _u("Total: 10\u202f000 items\n"),
        "Total: 10 000 items",
        "Total: 10 000 entries",
        _u("Total: 10\u202f000 entries\n"),
    ),
    Case(
        "thin-space-units",
        CODEX + "pull/625",
        _u("Width: 20\u2009mm\nHeight: 5\u2009mm\n"),
        "Width: 20 mm\nHeight: 5 mm",
        "Width: 20 mm\nHeight: 6 mm",
        _u("Width: 20\u2009mm\nHeight: 6\u2009mm\n"),
    ),
    Case(
        "nbsp-in-html-text",
        CODEX + "pull/625",
        _u("<p>Price:\u00a0$5</p>\n"),
        "<p>Price: $5</p>",
        "<p>Price: $6</p>",
        _u("<p>Price:\u00a0$6</p>\n"),
    ),
    Case(
        "nbsp-or-thin-space-ambiguous",
        CODEX + "pull/625",
        _u("x\u00a0y = 1\nx\u2009y = 1\n"),
        "x y = 1",
        "x y = 2",
        REFUSE,
    ),
    Case(
        "nbsp-with-trailing-spaces",
        CODEX + "pull/625",
        _u("Value:\u00a010  \nNext\n"),
        "Value: 10\nNext",
        "Value: 11\nNext",
        _u("Value:\u00a011  \nNext\n"),
    ),
    Case(
        "figure-dash-phone-number",
        CC + "26141",
        _u("Call 555\u20121234 today.\n"),
        "Call 555-1234 today.",
        "Call 555-1234 now.",
        _u("Call 555\u20121234 now.\n"),
    ),
    Case(
        "markdown-list-apostrophe-and-hard-break",
        "https://github.com/open-octo/octo-agent/pull/317",
        _u("- It’s done  \n- Next\n"),
        "- It's done\n- Next",
        "- It's done\n- Later",
        _u("- It’s done  \n- Later\n"),
    ),
    Case(
        "html-entity-is-not-a-dash",
        CC + "26141",
        _u("a &mdash; b\n"),
        "a — b",
        "a — c",
        REFUSE,
    ),
    # -- normalisation forms and ellipsis -----------------------------------------------
    Case(
        "nfd-file-name-in-docs",
        OPENCODE + "pull/31855",
        _u("See Re\u0301sume\u0301.pdf for details.\n"),
        "See Résumé.pdf for details.",
        "See Résumé.pdf for more.",
        _u("See Re\u0301sume\u0301.pdf for more.\n"),
    ),
    Case(
        "nfd-cyrillic-short-i",
        OPENCODE + "pull/31855",
        _u("мои\u0306 фаи\u0306л\n"),
        "мой файл",
        "мой документ",
        _u("мои\u0306 документ\n"),
    ),
    Case(
        "nfd-inserted-text-follows-file",
        OPENCODE + "pull/32795",
        _u("name = 'Jose\u0301'\n"),
        "name = 'José'",
        "name = 'José Müller'",
        _u("name = 'Jose\u0301 Mu\u0308ller'\n"),
    ),
    Case(
        "model-typed-nfd-file-nfc",
        OPENCODE + "pull/32795",
        _u("city = 'Zürich'\n"),
        "city = 'Zu\u0308rich'",
        "city = 'Zu\u0308rich, CH'",
        _u("city = 'Zürich, CH'\n"),
    ),
    Case(
        "ellipsis-in-ui-string",
        OPENCODE + "pull/31855",
        _u('label = "Loading…"\n'),
        'label = "Loading..."',
        'label = "Saving..."',
        _u('label = "Saving…"\n'),
    ),
    Case(
        "ellipsis-kept-where-unchanged",
        OPENCODE + "pull/31855",
        _u("Wait… then go.\n"),
        "Wait... then go.",
        "Wait... then stop.",
        _u("Wait… then stop.\n"),
    ),
    # -- line endings, BOM ---------------------------------------------------------------
    Case(
        "crlf-file-lf-old-string",
        "https://github.com/charmbracelet/crush/pull/684",
        b"one\r\ntwo\r\nthree\r\n",
        "one\ntwo",
        "one\n2",
        b"one\r\n2\r\nthree\r\n",
    ),
    Case(
        "crlf-old-string-lf-file",
        "https://github.com/QwenLM/qwen-code/pull/2474",
        b"alpha\nbeta\n",
        "alpha\r\nbeta",
        "alpha\r\nBETA",
        b"alpha\nBETA\n",
    ),
    Case(
        "crlf-gbk-file",
        "https://github.com/esengine/DeepSeek-Reasonix/pull/2918",
        "// 这是一个用于说明变量含义的中文注释\r\nint a = 1;\r\n".encode("gbk"),
        "// 这是一个用于说明变量含义的中文注释\nint a = 1;",
        "// 这是一个用于说明变量含义的中文注释\nint a = 2;",
        "// 这是一个用于说明变量含义的中文注释\r\nint a = 2;\r\n".encode("gbk"),
    ),
    Case(
        "crlf-and-tabs",
        CC + "28831",
        b"\t\tFILE* fp = open();\r\n\t\tif (!fp) {\r\n\t\t\treturn;\r\n",
        "        FILE* fp = open();\n        if (!fp) {",
        "        FILE* fp = open();\n        if (fp == NULL) {",
        b"\t\tFILE* fp = open();\r\n\t\tif (fp == NULL) {\r\n\t\t\treturn;\r\n",
    ),
    Case(
        "crlf-replace-all",
        "https://github.com/earendil-works/pi/issues/355",
        b"alpha\r\nbeta\r\nalpha\r\nbeta\r\n",
        "alpha\nbeta",
        "ALPHA\nBETA",
        b"ALPHA\r\nBETA\r\nALPHA\r\nBETA\r\n",
        replace_all=True,
    ),
    Case(
        "bom-crlf-curly",
        "https://github.com/QwenLM/qwen-code/pull/2474",
        BOM + "Title: “Draft”\r\nBody\r\n".encode(),
        'Title: "Draft"',
        'Title: "Final"',
        BOM + "Title: “Final”\r\nBody\r\n".encode(),
    ),
    Case(
        "bom-utf8-exact",
        "https://github.com/QwenLM/qwen-code/pull/2474",
        BOM + _u("x = 'é'\ny = 2\n"),
        "y = 2",
        "y = 3",
        BOM + _u("x = 'é'\ny = 3\n"),
    ),
    # -- pasted line numbers ------------------------------------------------------------
    Case(
        "tab-line-number-prefix",
        "https://github.com/Zoo-Code-Org/Zoo-Code/issues/716",
        _u("import os\nimport sys\n"),
        "1\timport os\n2\timport sys",
        "1\timport os\n2\timport re",
        _u("import os\nimport re\n"),
    ),
    Case(
        "arrow-line-number-prefix",
        CC + "11447",
        _u("a = 1\nb = 2\n"),
        "   1→a = 1\n   2→b = 2",
        "   1→a = 1\n   2→b = 3",
        _u("a = 1\nb = 3\n"),
    ),
    Case(
        "prefixes-only-on-old",
        "https://github.com/xal-sh/xal/pull/42",
        _u("start\nmiddle\nend\n"),
        "2\tmiddle\n3\tend",
        "middle\nfinish",
        _u("start\nmiddle\nfinish\n"),
    ),
    Case(
        "prefixes-and-tabs",
        CC + "37403",
        _u("\tif x {\n\t\ty()\n\t}\n"),
        "1\t    if x {\n2\t        y()",
        "1\t    if x {\n2\t        z()",
        _u("\tif x {\n\t\tz()\n\t}\n"),
    ),
    Case(
        "prefixes-and-curly",
        "https://github.com/Zoo-Code-Org/Zoo-Code/issues/716",
        _u("intro\nwait — what?\n"),
        "2\twait - what?",
        "2\twait - why?",
        _u("intro\nwait — why?\n"),
    ),
    Case(
        "tsv-line-that-looks-numbered",
        "https://github.com/xal-sh/xal/pull/42",
        _u("1\tapple\n2\tpear\n"),
        "2\tpear",
        "2\tplum",
        _u("1\tapple\n2\tplum\n"),
    ),
    # -- inserted text keeps the model's form wherever the file holds it ---------------------
    Case(
        "ellipsis-added-as-code-beside-prose-ellipsis",
        CC + "31071",
        _u(
            "def load(path):\n    # Loading… may take a while\n    pass\n\n\n"
            "class Reader(Protocol):\n    def read(self) -> bytes: ...\n"
        ),
        "def load(path):\n    # Loading... may take a while\n    pass",
        "def load(path):\n    # Loading... may take a while\n    ...",
        _u(
            "def load(path):\n    # Loading… may take a while\n    ...\n\n\n"
            "class Reader(Protocol):\n    def read(self) -> bytes: ...\n"
        ),
    ),
    Case(
        "js-property-quotes-beside-curly-template",
        CC + "31071",
        _u('const card = {\n  kind: "note",\n  text: `Say “hello” first`,\n};\n'),
        '  text: `Say "hello" first`,',
        '  text: `Say "hello" first`,\n  level: "info",',
        _u('const card = {\n  kind: "note",\n  text: `Say “hello” first`,\n  level: "info",\n};\n'),
    ),
    Case(
        "html-attribute-quotes-beside-curly-prose",
        CC + "29786",
        _u('<div class="stats">\n  <p>\n    Той каза “здравей”.\n  </p>\n</div>\n'),
        '    Той каза "здравей".\n  </p>',
        '    Той каза "здравей".\n  </p>\n  <p class="stat-note">Бележка</p>',
        _u(
            '<div class="stats">\n  <p>\n    Той каза “здравей”.\n  </p>\n'
            '  <p class="stat-note">Бележка</p>\n</div>\n'
        ),
    ),
    Case(
        "apostrophe-in-code-beside-curly-docstring",
        CC + "31863",
        _u('def greet():\n    """Say it’s done."""\n    return 1\n\nNAME = \'x\'\n'),
        '    """Say it\'s done."""\n    return 1',
        '    """Say it\'s done."""\n    return \'ok\'',
        _u('def greet():\n    """Say it’s done."""\n    return \'ok\'\n\nNAME = \'x\'\n'),
    ),
    Case(
        "nfd-region-but-file-holds-composed-elsewhere",
        OPENCODE + "pull/32795",
        _u(f"a = '{_nfd('José')}'\nb = 'Müller'\n"),
        "a = 'José'",
        "a = 'José Müller'",
        _u(f"a = '{_nfd('José')} Müller'\nb = 'Müller'\n"),
    ),
    Case(
        "curly-prose-insert-still-curled",
        CC + "29786",
        _u("<p>She said “yes”.</p>\n"),
        '<p>She said "yes".</p>',
        '<p>She said "yes". He said "no".</p>',
        _u("<p>She said “yes”. He said “no”.</p>\n"),
    ),
    # -- folds that change lengths: positions mapped back through the fold ------------------
    Case(
        "nfd-hangul-indented-line",
        NFD_SEARCH,
        _u(f"def title():\n    name = '{_nfd('한')}'\n    return name\n"),
        "    name = '한'\n    return name",
        "    name = '한글'\n    return name",
        _u(f"def title():\n    name = '{_nfd('한글')}'\n    return name\n"),
    ),
    Case(
        "nfd-hangul-model-drops-indentation",
        NFD_SEARCH,
        _u(f"def title():\n    name = '{_nfd('학점')}'\n    return name\n"),
        "name = '학점'\nreturn name",
        "name = '학점'\nreturn name.strip()",
        _u(f"def title():\n    name = '{_nfd('학점')}'\n    return name.strip()\n"),
    ),
    Case(
        "nfd-hangul-tabs-retyped-as-spaces",
        "https://github.com/9001/copyparty/issues/1555",
        _u(f'func f() {{\n\tif ok {{\n\t\tlog("{_nfd("테스트")}")\n\t}}\n}}\n'),
        '    if ok {\n        log("테스트")\n    }',
        '    if ok {\n        log("테스트 완료")\n    }',
        _u(f'func f() {{\n\tif ok {{\n\t\tlog("{_nfd("테스트 완료")}")\n\t}}\n}}\n'),
    ),
    Case(
        "nfd-hangul-trailing-spaces-insert-mid-line",
        NFD_SEARCH,
        _u(f"  - {_nfd('한글')} 문서  \n  - next\n"),
        "  - 한글 문서\n  - next",
        "  - 한글 새 문서\n  - next",
        _u(f"  - {_nfd('한글')} 새 문서  \n  - next\n"),
    ),
    Case(
        "bengali-two-part-vowel-decomposed",
        NFD_SEARCH,
        "    label = 'ক\u09c7\u09be'\n    size = 1\n".encode(),
        "    label = 'কো'\n    size = 1",
        "    label = 'কো'\n    size = 2",
        "    label = 'ক\u09c7\u09be'\n    size = 2\n".encode(),
    ),
    # -- old_string ends with a newline the file's last line lacks --------------------------
    Case(
        "no-final-newline-last-line-changed",
        EOF_NEWLINE,
        _u("a = 1\nb = 2"),
        "b = 2\n",
        "b = 3\n",
        _u("a = 1\nb = 3"),
    ),
    Case(
        "no-final-newline-context-kept",
        "https://github.com/amaiya/patchpal/issues/28",
        _u("x\ny\nz"),
        "y\nz\n",
        "Y\nz\n",
        _u("x\nY\nz"),
    ),
    Case(
        "no-final-newline-lines-appended",
        "https://github.com/NVIDIA-NeMo/labs-OO-Agents/pull/308",
        _u("[tool]\nname = 'x'"),
        "name = 'x'\n",
        "name = 'x'\nversion = 1\n",
        _u("[tool]\nname = 'x'\nversion = 1\n"),
    ),
    Case(
        "no-final-newline-crlf",
        EOF_NEWLINE,
        b"one\r\ntwo",
        "two\n",
        "2\n",
        b"one\r\n2",
    ),
    Case(
        "no-final-newline-with-curly-quotes",
        EOF_NEWLINE,
        _u("intro\ntitle = “Draft”"),
        'title = "Draft"\n',
        'title = "Final"\n',
        _u("intro\ntitle = “Final”"),
    ),
    Case(
        "no-final-newline-prefix-of-a-longer-line",
        EOF_NEWLINE,
        _u("x = 1\nreturn foobar"),
        "return foo\n",
        "return bar\n",
        REFUSE,
    ),
    # -- must refuse, file untouched -----------------------------------------------------
    Case(
        "two-exact-matches",
        AIDER + "pull/685",
        _u("}\nfoo()\n}\n"),
        "}",
        "};",
        REFUSE,
    ),
    Case(
        "two-matches-after-indent-normalisation",
        CC + "26996",
        _u("\tx = 1\n\ty = 2\n\n    x = 1\n    y = 2\n"),
        "  x = 1\n  y = 2",
        "  x = 3\n  y = 4",
        REFUSE,
    ),
    Case(
        "two-matches-differing-by-dash",
        CC + "26141",
        _u("a — b\na – b\n"),
        "a - b",
        "a - c",
        REFUSE,
    ),
    Case(
        "hallucinated-old-string",
        GEMINI + "18370",
        _u("def area(r):\n    return 3.14 * r * r\n"),
        "def area(radius):\n    return math.pi * radius ** 2",
        "def area(radius):\n    return math.pi * radius * radius",
        REFUSE,
    ),
    Case(
        "one-word-differs",
        AIDER + "issues/827",
        _u("struct Shards {\n    len: u32,\n}\n"),
        "pub struct Shards {\n    len: u32,\n}",
        "pub struct Shards {\n    len: u64,\n}",
        REFUSE,
    ),
    Case(
        "stale-file-no-longer-matches",
        GEMINI + "5251",
        _u("PORT = 80\n"),
        "PORT = 80",
        "PORT = 8080",
        REFUSE,
        stale=_u("PORT = 443\n"),
    ),
    Case(
        "stale-file-still-matches-once",
        GEMINI + "3373",
        _u("PORT = 80\n"),
        "PORT = 80",
        "PORT = 8080",
        _u("HOST = x\nPORT = 8080\n"),
        stale=_u("HOST = x\nPORT = 80\n"),
    ),
    Case(
        "no-match-must-not-empty-file",
        CLINE + "9555",
        _u("source 'https://rubygems.org'\ngem 'rails'\n"),
        "gem 'sinatra'",
        "gem 'hanami'",
        REFUSE,
    ),
    Case(
        "multiple-matches-with-line-numbers-pasted",
        OPENCODE + "issues/15515",
        _u("import 'dart:io';\nimport 'dart:io';\n"),
        "2\timport 'dart:io';",
        "",
        REFUSE,
    ),
    Case(
        "broad-match-refused-when-ambiguous",
        OPENCODE + "issues/24959",
        _u("\\end{figure}\n\\section{A}\n\\end{figure}\n\\section{A}\n"),
        "\\end{figure}\n\\section{A}",
        "\\end{figure}\n\n\\section{A}",
        REFUSE,
    ),
    Case(
        "same-after-fitting-to-file",
        CC + "1986",
        _u("msg = ‘%s’\n"),
        "msg = '%s'",
        "msg = ‘%s’",
        REFUSE,
    ),
    Case(
        "partial-last-line-is-a-substring",
        CLINE + "11439",
        _u("    g.freq = live.freq;\n}\n\n// Build tree spheres with time\n"),
        "    g.freq = live.freq;\n}\n\n// Build tree spheres",
        "    g.freq = live.freq * 2;\n}\n\n// Build tree spheres",
        _u("    g.freq = live.freq * 2;\n}\n\n// Build tree spheres with time\n"),
    ),
]
