"""Programs that run another program given in their arguments, unwrapped down to it.

Each wrapper's options are parsed as the wrapper parses them (``timeout -s KILL 5 rm``,
``nice -n5``, ``env -u NAME -C dir``), so the program that really runs is found. ``env -S``
/ ``--split-string`` (also glued: ``-S'touch x'``, abbreviated: ``--split``) splits a string
into the command to run: the string is split and judged like any other command. ``xargs``
builds its command from data it reads, so it is never read-only; what it runs is still judged
for danger. Options that change the environment or directory the program sees (``env -i``,
``-u``, ``-C``) make the command not read-only: they can undo the git settings toolbelt sets.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field

from toolbelt.commands.getopt import OPTIONAL, REQUIRED, OptionSpec, parse
from toolbelt.commands.programs import DANGEROUS_PROGRAMS, WRAPPERS

__all__ = ["Unwrapped", "unwrap"]


def _spec(values: str = "", optional: str = "", **long: int) -> OptionSpec:
    return OptionSpec(
        values, optional, {k.replace("_", "-"): v for k, v in long.items()}, permute=False
    )


R, OPT = REQUIRED, OPTIONAL
_SPECS = {
    "command": _spec(),
    "builtin": _spec(),
    "exec": _spec("a"),
    "nice": _spec("n", adjustment=R),
    "nohup": _spec(),
    "time": _spec("of", output=R, format=R, append=0, portability=0, verbose=0, quiet=0),
    "timeout": _spec("sk", signal=R, kill_after=R, preserve_status=0, foreground=0, verbose=0),
    "stdbuf": _spec("ioe", input=R, output=R, error=R),
    "ionice": OptionSpec("cnp", "", {"class": R, "classdata": R, "pid": R}, permute=False),
    "chrt": _spec("T", sched_runtime=R, sched_period=R, sched_deadline=R),
    "setsid": _spec(ctty=0, fork=0, wait=0),
    "env": _spec(
        "uCS", ignore_environment=0, null=0, unset=R, chdir=R, split_string=R, debug=0,
        block_signal=OPT, default_signal=OPT, ignore_signal=OPT, list_signal_handling=0,
    ),
    "sudo": _spec("uUgCDhprtTR", user=R, group=R, chdir=R, prompt=R, role=R, type=R),
    "doas": _spec("uC"),
    "coproc": _spec(),
    "flock": _spec("wEc", timeout=R, conflict_exit_code=R, command=R, shared=0, exclusive=0,
                   unlock=0, nonblock=0, close=0, no_fork=0, verbose=0),
    "chroot": _spec(userspec=R, groups=R, skip_chdir=0),
    "taskset": _spec(all_tasks=0, pid=0, cpu_list=0),
    "strace": _spec("abeEIoOpPsSuUX", output=R),
    "ltrace": _spec("aeEFlnoOpsSuAD", output=R),
    "valgrind": _spec(),
    "unbuffer": _spec("p"),
    "parallel": _spec("jPIdSaENnLsX", jobs=R, arg_file=R, delimiter=R, sshlogin=R,
                      joblog=R, results=R, tmpdir=R),
    "xargs": _spec(
        "IndPLsEa", "ile", arg_file=R, delimiter=R, max_args=R, max_procs=R, replace=OPT,
        max_lines=OPT, eof=OPT, max_chars=R, process_slot_var=R, null=0, no_run_if_empty=0,
        verbose=0, interactive=0, open_tty=0, exit=0, show_limits=0,
    ),
}  # fmt: skip
# DURATION, PRIORITY, LOCKFILE, NEWROOT, MASK come before the command
_SKIP_OPERANDS = {"timeout": 1, "chrt": 1, "flock": 1, "chroot": 1, "taskset": 1}
# a lock file, another root, a tracer that shows every byte a process reads or writes
_NEVER_READONLY = ("flock", "chroot", "strace", "ltrace", "valgrind")
_WRITES_A_FILE = ("-o", "--output", "--joblog", "--results")
_ENV_CHANGES = (
    *("-i", "--ignore-environment", "-u", "--unset", "-C", "--chdir"),
    *("--block-signal", "--default-signal", "--ignore-signal"),
)


@dataclass
class Unwrapped:
    """The program that really runs, and what the wrappers around it did."""

    argv: list[str]
    dynamic: list[bool]
    readonly: bool = True
    dangerous: list[str] = field(default_factory=list)
    assigned: list[str] = field(default_factory=list)
    """Variables the wrappers set (``env NAME=value``)."""
    reads: list[str] = field(default_factory=list)


def unwrap(words: list[str], dynamic: list[bool]) -> Unwrapped:
    """Strip wrappers (``env X=1``, ``nohup``, ``timeout 5``, ``xargs -0``) down to the program."""
    result = Unwrapped(list(words), list(dynamic))
    for _ in range(32):  # `env env env …` ends; a loop bound keeps a crafted one cheap
        argv = result.argv
        program = os.path.basename(argv[0]) if argv else ""
        if program not in WRAPPERS or program not in _SPECS:
            return result
        if program in ("sudo", "doas"):
            result.dangerous.append(DANGEROUS_PROGRAMS[program])
        args, flags = argv[1:], result.dynamic[1:]
        parsed = parse(args, _SPECS[program])
        start = parsed.operands[0][0] if parsed.operands else len(args)
        rest, rest_flags = args[start:], flags[start:]
        if program == "env" and rest[:1] == ["-"]:  # `env -` is `env -i`
            result.readonly = False
            rest, rest_flags = rest[1:], rest_flags[1:]
        if program == "env":
            if parsed.has(*_ENV_CHANGES) or any(o.name not in _KNOWN_ENV for o in parsed.options):
                result.readonly = False
            while rest and "=" in rest[0] and not rest[0].startswith("="):
                result.assigned.append(rest[0].partition("=")[0])
                rest, rest_flags = rest[1:], rest_flags[1:]
            for split in parsed.values("-S", "--split-string"):
                words_in = _split(split.value or "")
                if words_in is None or "$" in (split.value or "") or flags[split.index]:
                    result.readonly = False
                words_in = words_in or []
                rest = words_in + rest
                rest_flags = [flags[split.index]] * len(words_in) + rest_flags
        elif program == "xargs":
            result.readonly = False  # its command line comes from data it reads
            result.reads += [o.value for o in parsed.values("-a", "--arg-file") if o.value]
            if not rest:
                rest, rest_flags = ["echo"], [False]
        elif program == "parallel":
            result.readonly = False  # its commands come from its arguments and input
            end = next((i for i, a in enumerate(rest) if a.startswith(":::")), len(rest))
            rest, rest_flags = rest[:end], rest_flags[:end]
        elif program == "flock" and parsed.has("-c", "--command"):
            result.dangerous.append("flock -c runs a string as shell code")
        elif program == "taskset" and parsed.has("-p", "--pid"):
            rest, rest_flags = [], []  # changes another process
            result.readonly = False
        if program in _NEVER_READONLY:
            result.readonly = False
        if program in ("strace", "ltrace") and parsed.has("-p"):
            result.dangerous.append(f"{program} -p attaches to another process and reads its data")
        elif program == "command" and parsed.has("-v", "-V"):
            rest, rest_flags = ["type"], [False]
        if parsed.has(*_WRITES_A_FILE) and program in ("time", "strace", "ltrace", "parallel"):
            result.readonly = False
        skip = _SKIP_OPERANDS.get(program, 0)
        result.argv, result.dynamic = rest[skip:], rest_flags[skip:]
    result.readonly = False
    return result


_KNOWN_ENV = {f"--{name}" for name in _SPECS["env"].long} | {"-i", "-0", "-u", "-C", "-S", "-v"}


def _split(text: str) -> list[str] | None:
    """``env -S``'s splitting, close enough to judge: shell-like words (None: unbalanced)."""
    try:
        return shlex.split(text.replace("\\_", " "))
    except ValueError:
        return None
