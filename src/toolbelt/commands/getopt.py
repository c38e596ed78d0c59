"""Command-line options parsed the way GNU ``getopt_long`` (and git's parse-options) parse them.

Pattern-matching ``args`` for ``"-f"`` misses what the program really accepts: a value glued to
its option (``-fFILE``, ``--file=FILE``), an option inside a cluster (``-nf FILE``), an
unambiguous abbreviation (``--fil FILE``), options after operands. ``parse`` reads arguments
the program's way, given which options take a value, and reports each option by its full name
with its value, and the operands, each with the index of the argument it came from (so the
caller knows whether that argument was only known at run time).

An abbreviation that matches several listed long options is reported as every one of them:
the program would refuse it, and the caller judges the worst.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["OPTIONAL", "REQUIRED", "Option", "OptionSpec", "Parsed", "parse"]

REQUIRED = 1
OPTIONAL = 2  # a long option's value only after `=`, a short option's only glued to it


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """Which options of one program take a value."""

    short_values: str = ""
    """Short options that take a value (``-f FILE`` or ``-fFILE``)."""
    short_optional: str = ""
    """Short options whose value, if any, is glued to them (``-I`` / ``-Iseconds``)."""
    long: Mapping[str, int] = field(default_factory=dict)
    """Long option name (without ``--``) → 0 (no value), REQUIRED or OPTIONAL."""
    permute: bool = True
    """Options may follow operands (GNU); False stops at the first operand (POSIX, wrappers)."""


@dataclass(frozen=True, slots=True)
class Option:
    name: str
    """``-f`` or ``--file`` (the full name, whatever abbreviation was written)."""
    value: str | None
    index: int
    """Index in ``args`` of the argument holding the value (or the option)."""


@dataclass(frozen=True, slots=True)
class Parsed:
    options: tuple[Option, ...]
    operands: tuple[tuple[int, str], ...]

    def has(self, *names: str) -> bool:
        return any(option.name in names for option in self.options)

    def values(self, *names: str) -> list[Option]:
        return [o for o in self.options if o.name in names and o.value is not None]


def parse(args: list[str], spec: OptionSpec) -> Parsed:
    """``args`` (without the program name) read as ``spec``'s program reads them."""
    options: list[Option] = []
    operands: list[tuple[int, str]] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            operands += [(i, a) for i, a in enumerate(args) if i > index]
            break
        if arg.startswith("--"):
            index = _long(args, index, spec, options)
        elif arg.startswith("-") and arg != "-":
            index = _short(args, index, spec, options)
        else:
            operands.append((index, arg))
            if not spec.permute:
                operands += [(i, a) for i, a in enumerate(args) if i > index]
                break
        index += 1
    return Parsed(tuple(options), tuple(operands))


def _long(args: list[str], index: int, spec: OptionSpec, options: list[Option]) -> int:
    name, equals, value = args[index][2:].partition("=")
    matches = [name] if name in spec.long else [n for n in spec.long if n.startswith(name)]
    if not matches:
        options.append(Option(f"--{name}", value if equals else None, index))
        return index
    taken = index
    for match in matches:
        arity = spec.long[match]
        if equals:
            options.append(Option(f"--{match}", value, index))
        elif arity == REQUIRED and index + 1 < len(args):
            options.append(Option(f"--{match}", args[index + 1], index + 1))
            taken = index + 1
        else:
            options.append(Option(f"--{match}", None, index))
    return taken


def _short(args: list[str], index: int, spec: OptionSpec, options: list[Option]) -> int:
    cluster = args[index][1:]
    for position, letter in enumerate(cluster):
        rest = cluster[position + 1 :]
        if letter in spec.short_values:
            if rest:
                options.append(Option(f"-{letter}", rest, index))
                return index
            if index + 1 < len(args):
                options.append(Option(f"-{letter}", args[index + 1], index + 1))
                return index + 1
            options.append(Option(f"-{letter}", None, index))
            return index
        if letter in spec.short_optional:
            options.append(Option(f"-{letter}", rest or None, index))
            return index
        options.append(Option(f"-{letter}", None, index))
    return index
