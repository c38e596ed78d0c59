"""sed scripts read with sed's own grammar: what a script runs, writes and reads.

A sed script is a program: ``e`` and ``s///e`` run shell commands, ``w``/``W`` and ``s///w``
write files, ``r``/``R`` read them (CVE-2025-64755 is this class). A pattern such as "``e``
after a slash" misses ``1e cmd``, ``$!{e cmd`` and ``--expression=…``, so the script is parsed:
addresses (``3``, ``$``, ``first~step``, ``/re/I``, ``\\%re%``, ``a,+N``, ``0,/re/``), ``!``,
blocks, commands separated by ``;`` or newlines, and each command's own arguments. Anything
the parser does not recognise makes the caller ask.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolbelt.commands.getopt import OPTIONAL, REQUIRED, OptionSpec, parse

__all__ = ["SED_OPTIONS", "SedEffects", "sed_effects", "sed_script"]

SED_OPTIONS = OptionSpec(
    short_values="efl",
    short_optional="i",
    long={
        "expression": REQUIRED,
        "file": REQUIRED,
        "in-place": OPTIONAL,
        "line-length": REQUIRED,
        **dict.fromkeys(
            [
                "null-data",
                "zero-terminated",
                "quiet",
                "silent",
                "sandbox",
                "separate",
                "debug",
                "posix",
                "regexp-extended",
                "unbuffered",
                "follow-symlinks",
                "binary",
                "help",
                "version",
            ],
            0,
        ),
    },
)
_HARMLESS_OUTPUT = ("/dev/stdout", "/dev/stderr")
_PLAIN = set("=dDgGhHlLnNpPxzFqQ")  # commands with no argument but an optional number


@dataclass
class SedEffects:
    """What one sed invocation does besides printing."""

    runs: bool = False
    unsure: bool = False
    """A script file (``-f``) or a script the parser could not read."""
    writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    """Files the script reads (``r``, ``R``) and the input files."""
    in_place: bool = False


def sed_effects(args: list[str]) -> tuple[SedEffects, list[int]]:
    """The effects of ``sed ARGS``, and the indexes of the arguments naming input files."""
    parsed = parse(args, SED_OPTIONS)
    effects = SedEffects(in_place=parsed.has("-i", "--in-place"))
    scripts = [o.value or "" for o in parsed.options if o.name in ("-e", "--expression")]
    operands = list(parsed.operands)
    if parsed.has("-f", "--file"):
        effects.unsure = True
    elif not scripts:
        if not operands:
            effects.unsure = True
            return effects, []
        scripts = [operands.pop(0)[1]]
    script = sed_script("\n".join(scripts))
    if script is None:
        effects.unsure = True
    else:
        effects.runs, effects.writes, effects.reads = script.runs, script.writes, script.reads
    files = [index for index, _ in operands]
    if effects.in_place:
        effects.writes += [args[index] for index in files]
    return effects, files


@dataclass
class _Script:
    runs: bool = False
    writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)


class _Unparsable(Exception):
    pass


def sed_script(text: str) -> _Script | None:
    """Parse a sed script; None when it is not one sed would accept as we understand it."""
    try:
        return _Reader(text).script()
    except (_Unparsable, IndexError):
        return None


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.found = _Script()

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        char = self.text[self.at]
        self.at += 1
        return char

    def blanks(self) -> None:
        while self.peek() in (" ", "\t"):
            self.at += 1

    def rest_of_line(self) -> str:
        end = self.text.find("\n", self.at)
        end = len(self.text) if end < 0 else end
        line, self.at = self.text[self.at : end], end
        return line

    def script(self) -> _Script:
        depth = 0
        while True:
            while self.peek() in (" ", "\t", "\n", ";"):
                self.at += 1
            if not self.peek():
                break
            if self.peek() == "#":
                self.rest_of_line()
                continue
            self.addresses()
            command = self.take()
            if command == "{":
                depth += 1
            elif command == "}":
                depth -= 1
                if depth < 0:
                    raise _Unparsable
            else:
                self.command(command)
        if depth:
            raise _Unparsable
        return self.found

    def addresses(self) -> None:
        if self.address():
            self.blanks()
            if self.peek() == ",":
                self.at += 1
                self.blanks()
                if self.peek() in ("+", "~"):
                    self.at += 1
                if not self.address():
                    raise _Unparsable
        self.blanks()
        while self.peek() == "!":
            self.at += 1
            self.blanks()

    def address(self) -> bool:
        char = self.peek()
        if char.isdigit():
            self.number()
            if self.peek() == "~":
                self.at += 1
                self.number()
            return True
        if char == "$":
            self.at += 1
            return True
        if char in ("/", "\\"):
            self.at += 1
            self.regex(self.take() if char == "\\" else "/")
            while self.peek() in ("I", "M"):
                self.at += 1
            return True
        return False

    def number(self) -> None:
        start = self.at
        while self.peek().isdigit():
            self.at += 1
        if self.at == start:
            raise _Unparsable

    def delimited(self, delimiter: str) -> str:
        """Text up to an unescaped ``delimiter`` (consumed); a backslash escapes any char."""
        if delimiter in ("\n", "\\", ""):
            raise _Unparsable
        out = []
        while (char := self.take()) != delimiter:
            if char == "\\":
                char += self.take()
            out.append(char)
        return "".join(out)

    def regex(self, delimiter: str) -> None:
        """A regex up to an unescaped ``delimiter``; inside a bracket expression (``[/]``,
        ``[]/]``, ``[[:alpha:]/]``) the delimiter is an ordinary character, as in GNU sed."""
        if delimiter in ("\n", "\\", ""):
            raise _Unparsable
        while (char := self.take()) != delimiter:
            if char == "\\":
                self.take()
            elif char == "[":
                self.bracket()

    def bracket(self) -> None:
        if self.peek() == "^":
            self.at += 1
        if self.peek() == "]":
            self.at += 1
        while (char := self.take()) != "]":
            if char == "[" and self.peek() in (":", "=", "."):
                close = self.take() + "]"
                end = self.text.find(close, self.at)
                if end < 0:
                    raise _Unparsable
                self.at = end + 2
            elif char == "\n":
                raise _Unparsable

    def end_of_command(self) -> None:
        self.blanks()
        if self.peek() not in ("", ";", "\n", "}", "#"):
            raise _Unparsable

    def command(self, command: str) -> None:
        if command in _PLAIN:
            self.blanks()
            while self.peek().isdigit():
                self.at += 1
            self.end_of_command()
        elif command in (":", "b", "t", "T", "v"):
            # GNU sed ends a label at a blank as well as `;`: `:a e cmd` runs `e cmd`
            self.blanks()
            while self.peek() not in ("", ";", "\n", " ", "\t"):
                self.at += 1
        elif command in ("a", "i", "c"):
            self.text_argument()
        elif command in ("r", "R", "w", "W"):
            self.blanks()
            name = self.rest_of_line()
            self.file(name, write=command in ("w", "W"))
        elif command == "e":
            self.found.runs = True
            self.rest_of_line()
        elif command == "s":
            self.substitute()
        elif command == "y":
            delimiter = self.take()
            self.delimited(delimiter)
            self.delimited(delimiter)
            self.end_of_command()
        else:
            raise _Unparsable

    def file(self, name: str, *, write: bool) -> None:
        if not name:
            raise _Unparsable
        if write:
            if name not in _HARMLESS_OUTPUT:
                self.found.writes.append(name)
        elif name != "/dev/stdin":
            self.found.reads.append(name)

    def text_argument(self) -> None:
        """``a\\`` + lines, or GNU's one-line ``a text``: up to an unescaped newline."""
        self.blanks()
        if self.peek() == "\\":
            self.at += 1
            if self.peek() == "\n":
                self.at += 1
        while (char := self.peek()) and char != "\n":
            self.at += 2 if char == "\\" else 1

    def substitute(self) -> None:
        delimiter = self.take()
        self.regex(delimiter)
        self.delimited(delimiter)
        while (flag := self.peek()) and flag in "gpiImMe0123456789w":
            self.at += 1
            if flag == "e":
                self.found.runs = True
            elif flag == "w":
                self.blanks()
                self.file(self.rest_of_line(), write=True)
                return
        self.end_of_command()
