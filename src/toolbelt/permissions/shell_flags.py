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

from toolbelt.permissions.shell_options import OPTIONAL, REQUIRED, OptionSpec, Parsed, parse
from toolbelt.permissions.shell_rules import FILE_READERS
from toolbelt.permissions.shell_sed import sed_effects

__all__ = ["Effects", "program_effects"]


@dataclass
class Effects:
    """What one simple command does besides printing."""

    reads: list[tuple[str, bool]] = field(default_factory=list)
    """Files it reads, with whether the name is only known at run time."""
    writes: list[str] = field(default_factory=list)
    readonly: bool = True
    dangerous: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Program:
    spec: OptionSpec
    roles: dict[str, str]
    """Option name → "read", "write", "run" (starts a program), "list" (file names from
    data), "change" (changes something: not read-only)."""
    operands: str = "read"
    """"read" (files), "none" (text), "pattern" (first is a pattern/script, then files),
    "write" (files it writes), "last" (the last is the destination), "change" (any operand
    changes something: ``hostname NAME``)."""
    pattern_options: tuple[str, ...] = ()
    """Options that give the pattern, so the first operand is a file after all."""


def _spec(values: str = "", optional: str = "", **long: int) -> OptionSpec:
    return OptionSpec(values, optional, {k.replace("_", "-"): v for k, v in long.items()})


R, OPT = REQUIRED, OPTIONAL
_GREP = _Program(
    _spec("efmABCdD", regexp=R, file=R, max_count=R, after_context=R, before_context=R,
          context=OPT, devices=R, directories=R, exclude_from=R, exclude=R, include=R,
          exclude_dir=R, label=R, color=OPT, colour=OPT, binary_files=R),
    {"-f": "read", "--file": "read", "--exclude-from": "read"},
    "pattern", ("-e", "--regexp", "-f", "--file"),
)  # fmt: skip
_READER = _Program(OptionSpec(), {})
_SUMS = _Program(_spec(check=0, tag=0), {"-c": "list", "--check": "list"})
PROGRAMS: dict[str, _Program] = {
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _Program(
        _spec("efgtTjmABCMrEd", regexp=R, file=R, glob=R, iglob=R, type=R, type_not=R,
              threads=R, max_count=R, after_context=R, before_context=R, context=R,
              max_columns=R, replace=R, encoding=R, max_depth=R, pre=R, pre_glob=R,
              ignore_file=R, hostname_bin=R, search_zip=0, type_add=R, sort=R, sortr=R,
              path_separator=R, engine=R, max_filesize=R, colors=R, context_separator=R),
        {"-f": "read", "--file": "read", "--ignore-file": "read", "--pre": "run",
         "--hostname-bin": "run", "-z": "run", "--search-zip": "run"},
        "pattern", ("-e", "--regexp", "-f", "--file"),
    ),
    "date": _Program(
        _spec("dfrs", "I", date=R, file=R, reference=R, set=R, iso_8601=OPT, rfc_3339=R),
        {"-f": "read", "--file": "read", "-r": "read", "--reference": "read",
         "-s": "change", "--set": "change"},
        "none",
    ),
    "sort": _Program(
        _spec("oTkStz", output=R, temporary_directory=R, key=R, buffer_size=R,
              field_separator=R, files0_from=R, compress_program=R, random_source=R,
              batch_size=R, parallel=R),
        {"-o": "write", "--output": "write", "-T": "write", "--temporary-directory": "write",
         "--files0-from": "list", "--compress-program": "run", "--random-source": "read"},
    ),
    "wc": _Program(_spec(files0_from=R), {"--files0-from": "list"}),
    "du": _Program(
        _spec("dBXt", max_depth=R, block_size=R, exclude_from=R, threshold=R, exclude=R,
              files0_from=R, time_style=R, time=OPT),
        {"-X": "read", "--exclude-from": "read", "--files0-from": "list"},
    ),
    "diff": _Program(
        _spec("XICFUWxD", exclude_from=R, from_file=R, to_file=R, label=R, exclude=R,
              ignore_matching_lines=R, show_function_line=R, horizon_lines=R, unified=OPT,
              context=OPT, width=R, ifdef=R, color=OPT, palette=R),
        {"-X": "read", "--exclude-from": "read", "--from-file": "read", "--to-file": "read"},
    ),
    "jq": _Program(
        _spec("fL", from_file=R, indent=R),
        {"-f": "read", "--from-file": "read", "-L": "read"},
        "pattern", ("-f", "--from-file"),
    ),
    "file": _Program(
        _spec("fmFePC", files_from=R, magic_file=R, separator=R, exclude=R, parameter=R,
              compile=0),
        {"-f": "list", "--files-from": "list", "-m": "read", "--magic-file": "read",
         "-C": "write", "--compile": "write"},
    ),
    "tree": _Program(
        _spec("oLPIHT", output=R, fromfile=0, filelimit=R, timefmt=R, sort=R, charset=R),
        {"-o": "write", "--output": "write", "--fromfile": "list"},
    ),
    "hexdump": _Program(_spec("efns", format=R, format_file=R, length=R, skip=R),
                        {"-f": "read", "--format-file": "read"}),
    "less": _Program(
        _spec("oOkbhjpPTxyz#", log_file=R, LOG_FILE=R, lesskey_file=R, tag_file=R),
        {"-o": "write", "-O": "write", "--log-file": "write", "--LOG-FILE": "write",
         "-k": "read", "--lesskey-file": "read", "-T": "read", "--tag-file": "read"},
    ),
    "ps": _Program(_spec("oOpqstuUgGCN", format=R, pid=R, ppid=R, user=R, sort=R), {}, "none"),
    "head": _Program(_spec("nc", lines=R, bytes=R), {}),
    "tail": _Program(_spec("ncs", lines=R, bytes=R, pid=R, sleep_interval=R), {}),
    "cut": _Program(_spec("bcdf", bytes=R, characters=R, delimiter=R, fields=R,
                          output_delimiter=R), {}),
    "od": _Program(_spec("AjNtwS", address_radix=R, skip_bytes=R, read_bytes=R,
                         format=R, width=OPT, strings=OPT), {}),
    "nl": _Program(_spec("bdfhilnsvw"), {}),
    "uniq": _Program(_spec("fsw", skip_fields=R, skip_chars=R, check_chars=R), {}),
    "xxd": _Program(_spec("clgosn", cols=R, len=R, groupsize=R, seek=R, name=R), {}),
    "ls": _Program(_spec("ITw", ignore=R, hide=R, tabsize=R, width=R, format=R, color=OPT,
                         time_style=R, quoting_style=R, sort=R, time=R, block_size=R,
                         indicator_style=R), {}),
    "stat": _Program(_spec("c", format=R, printf=R), {}),
    "hostname": _Program(_spec("F", file=R), {"-F": "change", "--file": "change"}, "change"),
    "cksum": _Program(_spec("al", algorithm=R, length=R, check=0),
                      {"-c": "list", "--check": "list"}),
    **dict.fromkeys(("md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum"), _SUMS),
    # programs that write: every file they are given is a write target
    "tee": _Program(_spec(output_error=OPT), {}, "write"),
    "touch": _Program(_spec("rdt", reference=R, date=R, time=R),
                      {"-r": "read", "--reference": "read"}, "write"),
    "truncate": _Program(_spec("rs", reference=R, size=R),
                         {"-r": "read", "--reference": "read"}, "write"),
    "mkdir": _Program(_spec("m", mode=R, context=OPT), {}, "write"),
    **dict.fromkeys(
        ("cp", "mv", "install", "ln", "rsync"),
        _Program(
            _spec("tSmogbeTfB", target_directory=R, directory=0, suffix=R, mode=R, owner=R, group=R,
                  backup=OPT, exclude=R, exclude_from=R, include=R, filter=R, rsh=R,
                  rsync_path=R, files_from=R),
            {"-t": "write", "--target-directory": "write", "--exclude-from": "read",
             "--files-from": "list", "-e": "run", "--rsh": "run", "--rsync-path": "run"},
            "last",
        ),
    ),
    "patch": _Program(
        _spec("oipBrDdDVYzFgx", output=R, input=R, strip=R, directory=R, reject_file=R,
              prefix=R, basename_prefix=R, suffix=R),
        {"-o": "write", "--output": "write", "-i": "read", "--input": "read",
         "-r": "write", "--reject-file": "write", "-d": "list", "--directory": "list"},
        "write",
    ),
    **dict.fromkeys(("gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd"),
                    _Program(_spec("S", suffix=R), {}, "write")),
    "curl": _Program(_spec("oKdHXuTbcDF", output=R, config=R, dump_header=R, cookie_jar=R,
                           upload_file=R, data=R, data_binary=R, data_urlencode=R,
                           data_raw=R, form=R),
                     {"-o": "write", "--output": "write", "-K": "read", "--config": "read",
                      "-c": "write", "--cookie-jar": "write", "-D": "write",
                      "--dump-header": "write", "-T": "read", "--upload-file": "read"}, "none"),
    "wget": _Program(_spec("OPoai", output_document=R, directory_prefix=R, output_file=R,
                           append_output=R, input_file=R),
                     {"-O": "write", "--output-document": "write", "-P": "write",
                      "--directory-prefix": "write", "-o": "write", "--output-file": "write",
                      "-a": "write", "-i": "list", "--input-file": "list"}, "none"),
}  # fmt: skip


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
    known = PROGRAMS.get(program) or (_READER if program in FILE_READERS else None)
    if known is None:
        return effects
    parsed = parse(args, known.spec)
    for option in parsed.options:
        _option(known.roles.get(option.name, ""), option.value, dynamic[option.index], effects)
    _operands(known, parsed, dynamic, effects)
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
        effects.readonly = False  # +cmd runs a pager command
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
        effects.readonly = False


def _operands(known: _Program, parsed: Parsed, dynamic: list[bool], effects: Effects) -> None:
    operands = list(parsed.operands)
    if known.operands == "none":
        return
    if known.operands == "pattern" and not parsed.has(*known.pattern_options):
        operands = operands[1:]
    if known.operands == "change":
        effects.readonly = effects.readonly and not operands
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
        effects.readonly = False
    if sed.writes or sed.in_place:
        effects.readonly = False
        effects.writes += sed.writes
    effects.reads += [(name, False) for name in sed.reads]
    effects.reads += [(args[index], dynamic[index]) for index in files]
