"""What a known program's arguments make it do: files it reads or writes, programs it runs.

Each program's options are parsed as the program parses them (``shell_options``): ``-fFILE``,
``--file=FILE``, ``--fil FILE`` and ``-nf FILE`` are all ``--file``. Every option that names a
file is a read (``date -f``, ``grep -f``, ``diff --from-file``) or a write (``sort -o``,
``tree -o``, ``tee``, ``touch``, ``cp -t``); options that run a program (``rg --pre``,
``sort --compress-program``) or take file names from data (``--files0-from``,
``sha256sum -c``, ``file -f``) make the command ask, since what they touch cannot be seen.
``shell.py`` applies the result; ``shell_sed`` does the same for sed scripts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolbelt.commands.getopt import Parsed, parse
from toolbelt.commands.option_table import PROGRAMS, READER, Program
from toolbelt.commands.programs import FILE_CREATORS, FILE_READERS
from toolbelt.commands.sed import sed_effects

__all__ = ["Effects", "program_effects"]


@dataclass
class Effects:
    """What one simple command does besides printing."""

    reads: list[tuple[str, bool]] = field(default_factory=list)
    """Files it reads, with whether the name is only known at run time."""
    writes: list[str] = field(default_factory=list)
    readonly: bool = True
    dangerous: list[str] = field(default_factory=list)
    unseen: bool = False
    """It does something besides its named reads and writes: runs a program, takes file
    names from data, changes something (``hostname NAME``), or a file writer was given an
    option beyond those that only shape what it creates (``FILE_CREATORS``)."""


_CURL_DATA = ("-d", "--data", "--data-binary", "--data-urlencode", "--data-raw", "-F", "--form")


def program_effects(program: str, args: list[str], dynamic: list[bool]) -> Effects:
    """What ``program ARGS`` reads, writes and runs, as far as its options say."""
    effects = Effects()
    if program == "sed":
        _sed(args, dynamic, effects)
        return effects
    if program == "dd":
        effects.writes += [a[3:] for a in args if a.startswith("of=")]
        effects.reads += [(a[3:], d) for a, d in zip(args, dynamic, strict=False) if a[:3] == "if="]
        return effects
    if program == "jq":
        args, dynamic = _jq_pairs(args, dynamic, effects)
    known = PROGRAMS.get(program) or (READER if program in FILE_READERS else None)
    if known is None:
        return effects
    parsed = parse(args, known.spec)
    for option in parsed.options:
        _option(known.roles.get(option.name, ""), option.value, dynamic[option.index], effects)
    _operands(known, parsed, dynamic, effects)
    if program == "mv":  # moving a file away changes it as much as writing it
        effects.writes += [value for _, value in parsed.operands]
    if program == "install" and parsed.has("-d", "--directory"):  # every operand is created
        effects.writes += [value for _, value in parsed.operands]
    if program == "ln":  # a link's target is not read
        effects.reads = [r for r in effects.reads if r[0] in [o.value for o in parsed.options]]
    if program == "curl":  # -d @FILE, -F name=@FILE and name=<FILE upload a file
        for option in parsed.options:
            value = option.value or ""
            if option.name in _CURL_DATA and ("@" in value or "<" in value):
                name = value[1:] if value[:1] == "@" else re.split(r"=[@<]", value, maxsplit=1)[-1]
                effects.reads.append((name.split(";")[0], dynamic[option.index]))
    if program in ("less", "more") and any(a.startswith("+") for a in args):
        effects.readonly, effects.unseen = False, True  # +cmd runs a pager command
    shaping = FILE_CREATORS.get(program)
    if shaping is not None and any(o.name not in shaping for o in parsed.options):
        effects.unseen = True  # `cp -l` links, `cp --remove-destination` deletes …
    if program == "sort" and effects.writes:  # -o opens, then truncates: not a creation
        effects.unseen = True
    if program == "patch" and not effects.writes:
        effects.dangerous.append("patch writes the files its input names")
    if program in ("uniq", "xxd") and len(parsed.operands) > 1:  # the second is the output
        effects.writes.append(parsed.operands[1][1])
        effects.reads = effects.reads[:1]
    return effects


_JQ_PAIRS = {"--slurpfile": True, "--rawfile": True, "--arg": False, "--argjson": False}


def _jq_pairs(
    args: list[str], dynamic: list[bool], effects: Effects
) -> tuple[list[str], list[bool]]:
    """jq's options with two values (``--slurpfile NAME FILE``): the file is a read."""
    kept: list[tuple[str, bool]] = []
    index = 0
    while index < len(args):
        arg = args[index]
        full = next((n for n in _JQ_PAIRS if n == arg), None) or next(
            (
                n
                for n in ("--slurpfile", "--rawfile", "--argjson")
                if len(arg) > 6 and n.startswith(arg)
            ),
            None,
        )
        if full is not None and index + 2 < len(args):
            if _JQ_PAIRS[full]:
                effects.reads.append((args[index + 2], dynamic[index + 2]))
            index += 3
            continue
        kept.append((arg, dynamic[index]))
        index += 1
    return [a for a, _ in kept], [d for _, d in kept]


def _option(role: str, value: str | None, is_dynamic: bool, effects: Effects) -> None:
    if role == "read" and value is not None:
        effects.reads.append((value, is_dynamic))
    elif role == "write":
        effects.readonly = False
        if value is not None:
            effects.writes.append(value)
    elif role in ("run", "list", "change"):
        effects.readonly, effects.unseen = False, True


def _operands(known: Program, parsed: Parsed, dynamic: list[bool], effects: Effects) -> None:
    operands = list(parsed.operands)
    if known.operands == "none":
        return
    if known.operands == "pattern" and not parsed.has(*known.pattern_options):
        operands = operands[1:]
    if known.operands == "change" and operands:
        effects.readonly, effects.unseen = False, True
    elif known.operands == "write":
        effects.readonly = False
        effects.writes += [value for _, value in operands]
    elif known.operands == "last":  # sources are read, the destination written
        effects.readonly = False
        sources = operands
        if operands and not parsed.has("-t", "--target-directory"):
            effects.writes.append(operands[-1][1])
            sources = operands[:-1]
        effects.reads += [(value, dynamic[index]) for index, value in sources]
    else:
        effects.reads += [(value, dynamic[index]) for index, value in operands]


def _sed(args: list[str], dynamic: list[bool], effects: Effects) -> None:
    sed, files = sed_effects(args)
    if sed.runs:
        effects.dangerous.append("the sed script runs shell commands (e)")
    if sed.unsure:
        effects.readonly, effects.unseen = False, True
    if sed.writes or sed.in_place:
        effects.readonly = False
        effects.writes += sed.writes
    effects.reads += [(name, False) for name in sed.reads]
    effects.reads += [(args[index], dynamic[index]) for index in files]
