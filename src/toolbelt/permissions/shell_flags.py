"""Which flags turn a read-only program into one that writes a file or runs a program.

``sed -i`` edits in place (also inside a cluster such as ``-ni``), ``sed`` scripts can hold
``w`` and ``e``, ``sort -o`` and ``tree -o`` write, ``rg --pre`` and ``--hostname-bin`` run
programs, a second file name is ``uniq``'s and ``xxd``'s output; git's ``--output``,
``--ext-diff``, ``--textconv`` and ``grep -O`` write or run. ``shell.py`` asks these. And
which arguments of a reading program name files (``file_arguments``): not a grep pattern.
"""

from __future__ import annotations

import re

from toolbelt.permissions.shell_rules import GIT_UNSAFE_FLAGS

__all__ = ["file_arguments", "flags_readonly", "option", "unsafe_git_flag"]

_SED_EXEC = re.compile(r"(^|[;/}\s])[wWe](\s|$)")


def flags_readonly(program: str, args: list[str]) -> bool:
    """Whether ``program`` (on the read-only list) stays read-only with ``args``."""
    if program == "sed":
        scripts = [a for a in args if not a.startswith("-")]
        in_place = option(args, "i", "--in-place")
        from_file = option(args, "f", "--file")  # a script file can hold `w` and `e` too
        return not in_place and not from_file and not any(_SED_EXEC.search(a) for a in scripts)
    if program == "rg":  # each runs a program
        return not option(args, "z", "--pre", "--search-zip", "--hostname-bin")
    if program == "sort":
        return not option(args, "o", "--output", "--compress-program")
    if program in ("uniq", "xxd"):  # a second file name is the output file
        return len([a for a in args if not a.startswith("-")]) < 2
    if program == "file":
        return not any(a in ("-C", "--compile") for a in args)
    if program == "date":
        return not any(a.startswith(("-s", "--set")) for a in args)
    if program in ("env", "printenv"):
        return not [a for a in args if "=" not in a and not a.startswith("-")]
    if program in ("export", "set", "unset", "alias", "cd", "pushd", "popd"):
        return True
    if program == "printf":
        return not option(args, "v")
    if program == "tree":
        return not option(args, "o")
    return True


def option(args: list[str], letter: str, *long: str) -> bool:
    """Whether ``args`` give the short option ``letter`` — alone or in a cluster such as
    ``-ni`` — or start one of the ``long`` options."""
    return any(
        (arg.startswith("-") and not arg.startswith("--") and letter in arg[1:])
        or (bool(long) and arg.startswith(long))
        for arg in args
    )


def unsafe_git_flag(arg: str) -> bool:
    """Whether ``arg`` makes a read-only git subcommand write a file or run a program."""
    return any(arg == flag or arg.startswith(f"{flag}=") for flag in GIT_UNSAFE_FLAGS) or (
        arg.startswith("-O") and not arg.startswith("--")
    )


_PATTERN_OPTIONS = {
    "grep": ("-e", "--regexp", "-f", "--file"),
    "egrep": ("-e", "--regexp", "-f", "--file"),
    "fgrep": ("-e", "--regexp", "-f", "--file"),
    "rg": ("-e", "--regexp", "-f", "--file"),
    "sed": ("-e", "--expression", "-f", "--file"),
    "jq": ("-f", "--from-file"),
}
"""Programs whose first operand is a pattern or script unless one of these options gives it."""
_PATTERN_VALUES = ("-e", "--regexp", "--expression")
"""Options whose next argument is a pattern or script, not a file."""


def file_arguments(program: str, args: list[str], flags: list[bool]) -> list[tuple[str, bool]]:
    """The arguments of a reading program that name files, with whether each is dynamic:
    operands and ``--option=value`` values that look like paths; a leading pattern or script
    (``grep PATTERN``, ``sed SCRIPT``, ``jq FILTER``) and the value of ``-e`` are not files."""
    named: list[tuple[str, bool]] = []
    operands: list[tuple[str, bool]] = []
    skip = False
    for arg, is_dynamic in zip(args, flags, strict=False):
        if skip:
            skip = False
            continue
        if arg in _PATTERN_VALUES:
            skip = True
        elif arg.startswith("--"):
            value = arg.partition("=")[2]
            if "/" in value:
                named.append((value, is_dynamic))
        elif not arg.startswith("-"):
            operands.append((arg, is_dynamic))
    explicit = _PATTERN_OPTIONS.get(program, ())
    given = any(
        a == o or a.startswith(o + ("=" if o.startswith("--") else ""))
        for a in args
        for o in explicit
    )
    if program in _PATTERN_OPTIONS and not given and operands:
        operands = operands[1:]  # the pattern
    return named + operands
