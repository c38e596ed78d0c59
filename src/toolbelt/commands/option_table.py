"""The programs the analysis knows, as data: which options take values, which name files.

Kept as a table a reader can audit at a glance; ``shell_flags`` applies it. Each entry says
which short options take a value, the long options with their arity, what each option that
matters does ("read", "write", "run", "list", "change") and what the operands are.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolbelt.commands.getopt import OPTIONAL, REQUIRED, OptionSpec

__all__ = ["PROGRAMS", "READER", "Program"]


@dataclass(frozen=True)
class Program:
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
_GREP = Program(
    _spec("efmABCdD", regexp=R, file=R, max_count=R, after_context=R, before_context=R,
          context=OPT, devices=R, directories=R, exclude_from=R, exclude=R, include=R,
          exclude_dir=R, label=R, color=OPT, colour=OPT, binary_files=R),
    {"-f": "read", "--file": "read", "--exclude-from": "read"},
    "pattern", ("-e", "--regexp", "-f", "--file"),
)  # fmt: skip
READER = Program(OptionSpec(), {})
_SUMS = Program(_spec(check=0, tag=0), {"-c": "list", "--check": "list"})
PROGRAMS: dict[str, Program] = {
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": Program(
        _spec("efgtTjmABCMrEd", regexp=R, file=R, glob=R, iglob=R, type=R, type_not=R,
              threads=R, max_count=R, after_context=R, before_context=R, context=R,
              max_columns=R, replace=R, encoding=R, max_depth=R, pre=R, pre_glob=R,
              ignore_file=R, hostname_bin=R, search_zip=0, type_add=R, sort=R, sortr=R,
              path_separator=R, engine=R, max_filesize=R, colors=R, context_separator=R),
        {"-f": "read", "--file": "read", "--ignore-file": "read", "--pre": "run",
         "--hostname-bin": "run", "-z": "run", "--search-zip": "run"},
        "pattern", ("-e", "--regexp", "-f", "--file"),
    ),
    "date": Program(
        _spec("dfrs", "I", date=R, file=R, reference=R, set=R, iso_8601=OPT, rfc_3339=R),
        {"-f": "read", "--file": "read", "-r": "read", "--reference": "read",
         "-s": "change", "--set": "change"},
        "none",
    ),
    "sort": Program(
        _spec("oTkStz", output=R, temporary_directory=R, key=R, buffer_size=R,
              field_separator=R, files0_from=R, compress_program=R, random_source=R,
              batch_size=R, parallel=R),
        {"-o": "write", "--output": "write", "-T": "write", "--temporary-directory": "write",
         "--files0-from": "list", "--compress-program": "run", "--random-source": "read"},
    ),
    "wc": Program(_spec(files0_from=R), {"--files0-from": "list"}),
    "du": Program(
        _spec("dBXt", max_depth=R, block_size=R, exclude_from=R, threshold=R, exclude=R,
              files0_from=R, time_style=R, time=OPT),
        {"-X": "read", "--exclude-from": "read", "--files0-from": "list"},
    ),
    "diff": Program(
        _spec("XICFUWxD", exclude_from=R, from_file=R, to_file=R, label=R, exclude=R,
              ignore_matching_lines=R, show_function_line=R, horizon_lines=R, unified=OPT,
              context=OPT, width=R, ifdef=R, color=OPT, palette=R),
        {"-X": "read", "--exclude-from": "read", "--from-file": "read", "--to-file": "read"},
    ),
    "jq": Program(
        _spec("fL", from_file=R, indent=R),
        {"-f": "read", "--from-file": "read", "-L": "read"},
        "pattern", ("-f", "--from-file"),
    ),
    "file": Program(
        _spec("fmFePC", files_from=R, magic_file=R, separator=R, exclude=R, parameter=R,
              compile=0),
        {"-f": "list", "--files-from": "list", "-m": "read", "--magic-file": "read",
         "-C": "write", "--compile": "write"},
    ),
    "tree": Program(
        _spec("oLPIHT", output=R, fromfile=0, filelimit=R, timefmt=R, sort=R, charset=R),
        {"-o": "write", "--output": "write", "--fromfile": "list"},
    ),
    "hexdump": Program(_spec("efns", format=R, format_file=R, length=R, skip=R),
                        {"-f": "read", "--format-file": "read"}),
    "less": Program(
        _spec("oOkbhjpPTxyz#", log_file=R, LOG_FILE=R, lesskey_file=R, tag_file=R),
        {"-o": "write", "-O": "write", "--log-file": "write", "--LOG-FILE": "write",
         "-k": "read", "--lesskey-file": "read", "-T": "read", "--tag-file": "read"},
    ),
    "ps": Program(_spec("oOpqstuUgGCN", format=R, pid=R, ppid=R, user=R, sort=R), {}, "none"),
    "head": Program(_spec("nc", lines=R, bytes=R), {}),
    "tail": Program(_spec("ncs", lines=R, bytes=R, pid=R, sleep_interval=R), {}),
    "cut": Program(_spec("bcdf", bytes=R, characters=R, delimiter=R, fields=R,
                          output_delimiter=R), {}),
    "od": Program(_spec("AjNtwS", address_radix=R, skip_bytes=R, read_bytes=R,
                         format=R, width=OPT, strings=OPT), {}),
    "nl": Program(_spec("bdfhilnsvw"), {}),
    "uniq": Program(_spec("fsw", skip_fields=R, skip_chars=R, check_chars=R), {}),
    "xxd": Program(_spec("clgosn", cols=R, len=R, groupsize=R, seek=R, name=R), {}),
    "ls": Program(_spec("ITw", ignore=R, hide=R, tabsize=R, width=R, format=R, color=OPT,
                         time_style=R, quoting_style=R, sort=R, time=R, block_size=R,
                         indicator_style=R), {}),
    "stat": Program(_spec("c", format=R, printf=R), {}),
    "hostname": Program(_spec("F", file=R), {"-F": "change", "--file": "change"}, "change"),
    "cksum": Program(_spec("al", algorithm=R, length=R, check=0),
                      {"-c": "list", "--check": "list"}),
    **dict.fromkeys(("md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum"), _SUMS),
    # programs that write: every file they are given is a write target
    "tee": Program(_spec(output_error=OPT), {}, "write"),
    "touch": Program(_spec("rdt", reference=R, date=R, time=R),
                      {"-r": "read", "--reference": "read"}, "write"),
    "truncate": Program(_spec("rs", reference=R, size=R),
                         {"-r": "read", "--reference": "read"}, "write"),
    "mkdir": Program(_spec("m", mode=R, context=OPT), {}, "write"),
    **dict.fromkeys(
        ("cp", "mv", "install", "ln", "rsync"),
        Program(
            _spec("tSmogbeTfB", target_directory=R, directory=0, suffix=R, mode=R, owner=R, group=R,
                  backup=OPT, exclude=R, exclude_from=R, include=R, filter=R, rsh=R,
                  rsync_path=R, files_from=R),
            {"-t": "write", "--target-directory": "write", "--exclude-from": "read",
             "--files-from": "list", "-e": "run", "--rsh": "run", "--rsync-path": "run"},
            "last",
        ),
    ),
    "patch": Program(
        _spec("oipBrDdDVYzFgx", output=R, input=R, strip=R, directory=R, reject_file=R,
              prefix=R, basename_prefix=R, suffix=R),
        {"-o": "write", "--output": "write", "-i": "read", "--input": "read",
         "-r": "write", "--reject-file": "write", "-d": "list", "--directory": "list"},
        "write",
    ),
    **dict.fromkeys(("gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd"),
                    Program(_spec("S", suffix=R), {}, "write")),
    "curl": Program(_spec("oKdHXuTbcDF", output=R, config=R, dump_header=R, cookie_jar=R,
                           upload_file=R, data=R, data_binary=R, data_urlencode=R,
                           data_raw=R, form=R),
                     {"-o": "write", "--output": "write", "-K": "read", "--config": "read",
                      "-c": "write", "--cookie-jar": "write", "-D": "write",
                      "--dump-header": "write", "-T": "read", "--upload-file": "read"}, "none"),
    "wget": Program(_spec("OPoai", output_document=R, directory_prefix=R, output_file=R,
                           append_output=R, input_file=R),
                     {"-O": "write", "--output-document": "write", "-P": "write",
                      "--directory-prefix": "write", "-o": "write", "--output-file": "write",
                      "-a": "write", "-i": "list", "--input-file": "list"}, "none"),
}  # fmt: skip
