"""The tables behind shell command analysis: what is read-only, what is dangerous, and why.

Kept as data so a reader can audit them at a glance; the analysis (``analysis``, ``code_walk``,
``redirects``) applies them, and so does the pinning of launch entries (``config.launch_files``):
one table of shells and interpreters for both.
"""

from __future__ import annotations

__all__ = [
    "DANGEROUS_PROGRAMS",
    "FILE_CREATORS",
    "FILE_READERS",
    "GIT_DANGEROUS",
    "GIT_READONLY",
    "GIT_SAFE_GLOBALS",
    "GIT_UNSAFE_FLAGS",
    "INTERPRETERS",
    "READONLY_PROGRAMS",
    "READS_NO_FILES",
    "RUNNERS",
    "SAFE_VARIABLES",
    "SHELLS",
    "WRAPPERS",
]

# read-only programs whose arguments name files they read: a read outside the workspace asks,
# as read_file's would, and read rules (Read(~/.ssh/**) denied) apply to them
FILE_READERS = frozenset(
    [
        "cat",
        "cksum",
        "cmp",
        "column",
        "comm",
        "cut",
        "df",
        "diff",
        "dirs",
        "du",
        "egrep",
        "fgrep",
        "file",
        "find",
        "free",
        "grep",
        "head",
        "hexdump",
        "hostname",
        "jq",
        "less",
        "ls",
        "lsof",
        "md5sum",
        "more",
        "nl",
        "od",
        "ps",
        "readlink",
        "realpath",
        "rg",
        "sed",
        "sha1sum",
        "sha256sum",
        "sort",
        "stat",
        "tail",
        "tree",
        "uniq",
        "uptime",
        "wc",
        "xxd",
    ]
)

# read-only programs given no file to read (their arguments are text, names or settings)
READS_NO_FILES = frozenset(
    [
        ":",
        "[",
        "alias",
        "basename",
        "cd",
        "date",
        "dirname",
        "echo",
        "env",
        "export",
        "false",
        "git",
        "id",
        "popd",
        "printenv",
        "printf",
        "pushd",
        "pwd",
        "seq",
        "set",
        "sleep",
        "test",
        "tr",
        "true",
        "type",
        "uname",
        "unset",
        "which",
        "whoami",
    ]
)

READONLY_PROGRAMS = FILE_READERS | READS_NO_FILES

FILE_CREATORS: dict[str, frozenset[str]] = {
    "mkdir": frozenset({"-p", "--parents", "-m", "--mode", "-v", "--verbose"}),
    "touch": frozenset(
        {"-a", "-m", "-c", "--no-create", "-d", "--date", "-r", "--reference", "-t", "--time"}
    ),
    "tee": frozenset({"-a", "--append", "-i", "--ignore-interrupts", "-p", "--output-error"}),
    "cp": frozenset(
        {"-r", "-R", "--recursive", "-p", "--preserve", "-v", "--verbose", "-n", "--no-clobber",
         "-u", "--update", "-T", "--no-target-directory", "-t", "--target-directory", "-L",
         "--dereference", "-H", "-x", "--one-file-system", "--parents", "--sparse",
         "--reflink", "-b", "--backup", "-S", "--suffix"}
    ),
    "install": frozenset(
        {"-d", "--directory", "-D", "-m", "--mode", "-v", "--verbose", "-t",
         "--target-directory", "-T", "--no-target-directory", "-c", "-p",
         "--preserve-timestamps", "-C", "--compare"}
    ),
}  # fmt: skip
"""Programs that write only the files they are given (each a write target the analysis
names), with the options that do no more than shape what they create. A command made of
these and read-only programs has no effect the analysis does not see; any other option
(``cp -l`` makes a link through which a later write reaches the source, ``cp -a`` copies
symlinks, ``cp --remove-destination`` deletes) makes it one the analysis cannot see into."""

# program -> why it is dangerous
DANGEROUS_PROGRAMS = {
    "rm": "rm deletes files",
    "rmdir": "rmdir deletes directories",
    "unlink": "unlink deletes files",
    "shred": "shred destroys files",
    "dd": "dd writes raw data to files or devices",
    "mkfs": "mkfs formats a file system",
    "fdisk": "fdisk changes disk partitions",
    "parted": "parted changes disk partitions",
    "wipefs": "wipefs erases file-system signatures",
    "chmod": "chmod changes permissions",
    "chown": "chown changes ownership",
    "chgrp": "chgrp changes ownership",
    "chattr": "chattr changes file attributes",
    "sudo": "sudo runs a command as another user",
    "su": "su switches user",
    "doas": "doas runs a command as another user",
    "kill": "kill sends signals to processes",
    "killall": "killall ends processes",
    "pkill": "pkill ends processes",
    "shutdown": "shutdown stops the machine",
    "reboot": "reboot restarts the machine",
    "halt": "halt stops the machine",
    "poweroff": "poweroff stops the machine",
    "eval": "eval runs a string as shell code",
    "source": "source runs a file as shell code",
    ".": ". runs a file as shell code",
    "crontab": "crontab schedules commands",
    "systemctl": "systemctl controls system services",
    "mount": "mount changes mounted file systems",
    "umount": "umount changes mounted file systems",
    "truncate": "truncate cuts files",
    "watch": "watch runs its arguments as shell code, again and again",
}

SHELLS = frozenset(["sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"])
"""Shells: ``-c`` runs its argument as code; a script comes from the first operand or stdin."""
INTERPRETERS = {
    "python": "-c",
    "python3": "-c",
    "pypy": "-c",
    "pypy3": "-c",
    "perl": "-e",
    "ruby": "-e",
    "node": "-e",
    "nodejs": "-e",
    "bun": "-e",
    "deno": "",
    "tsx": "-e",
    "ts-node": "-e",
    "php": "-r",
    "lua": "-e",
    "rscript": "-e",
    "osascript": "-e",
}
"""Language interpreters, each with the option that passes it code inline ("": none, as
``deno eval`` takes code by subcommand); like a shell, each runs its first operand as a
script, or what it reads on stdin."""
RUNNERS = frozenset(
    ["java", "go", "uv", "uvx", "npx", "pnpm", "yarn", "poetry", "pipenv", "hatch", "pdm"]
)
"""Toolchains and package runners whose first operand names what they run (``java
Main.java``, ``uv run srv``): a launch entry's files are found through them too
(``config.launch_files``)."""

GIT_READONLY = frozenset(
    [
        "status",
        "log",
        "diff",
        "show",
        "blame",
        "rev-parse",
        "ls-files",
        "ls-tree",
        "cat-file",
        "describe",
        "shortlog",
        "grep",
        "reflog",
        "whatchanged",
        "name-rev",
        "merge-base",
    ]
)
GIT_DANGEROUS = {
    "push": "git push changes a remote repository",
    "reset": "git reset can discard work",
    "rebase": "git rebase rewrites history",
    "commit": "git commit records changes",
    "clean": "git clean deletes untracked files",
    "checkout": "git checkout can discard changes",
    "restore": "git restore discards changes",
    "filter-branch": "git filter-branch rewrites history",
    "filter-repo": "git filter-repo rewrites history",
    "gc": "git gc can drop unreachable objects",
    "update-ref": "git update-ref moves references",
}


# git options before the subcommand that cannot make it run or write anything; any other
# (`-c core.fsmonitor=…`, `--config-env`, `--exec-path`, `-C`, `--git-dir`) is not read-only
GIT_SAFE_GLOBALS = frozenset(
    [
        "--no-pager",
        "-P",
        "--no-optional-locks",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-replace-objects",
    ]
)
# flags that make a read-only git subcommand write a file or run a program
GIT_UNSAFE_FLAGS = (
    "--output",  # log/diff/show --output=FILE writes it
    "--ext-diff",  # runs diff.external / GIT_EXTERNAL_DIFF
    "--textconv",  # runs the textconv filters of .gitattributes
    "--open-files-in-pager",  # grep -O runs a pager command
    "-O",
    "--no-index",  # diff --no-index compares any two files, outside the repository too
)

# variables a command may set (`VAR=x cmd`, `export VAR=x`) and stay read-only; any other can
# change what runs (PATH, LD_PRELOAD, GIT_EXTERNAL_DIFF, PAGER, BASH_ENV, …), now or in a
# later call of the persistent shell
SAFE_VARIABLES = frozenset(
    [
        "LANG",
        "LANGUAGE",
        "TZ",
        "COLUMNS",
        "LINES",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "TERM",
    ]
)

# programs that run another program given as their arguments
WRAPPERS = frozenset(
    [
        "command",
        "builtin",
        "exec",
        "nice",
        "nohup",
        "time",
        "timeout",
        "stdbuf",
        "ionice",
        "chrt",
        "setsid",
        "env",
        "sudo",
        "doas",
        "xargs",
        "coproc",
        "flock",
        "chroot",
        "taskset",
        "strace",
        "ltrace",
        "valgrind",
        "unbuffer",
        "parallel",
    ]
)
