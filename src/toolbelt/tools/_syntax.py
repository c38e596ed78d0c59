"""A command bash cannot parse fails at once, rather than after its whole timeout.

The persistent shell reads each command from a pipe: text that is not complete shell syntax —
an unclosed quote, ``$(`` or ``{`` — makes it wait for the rest, so the call sat out its
timeout (two minutes by default) and came back as "timed out", which tells the model nothing.
Where the analysis' parser already read the command without an error nothing more is done;
otherwise ``bash -n`` (parse only: nothing runs, no startup file is read) says whether bash
accepts it, and its own message is returned.
"""

from __future__ import annotations

import subprocess

from toolbelt.commands.analysis import analyze_command
from toolbelt.procs.tree import run_leaf

__all__ = ["syntax_error"]

_PARSE_SECONDS = 5.0


def syntax_error(command: str) -> str | None:
    """Why bash cannot parse ``command``, as a sentence for the model; None when it can."""
    if analyze_command(command).parse_ok:
        return None
    try:
        done = run_leaf(
            ["bash", "-n"],
            input=command.encode(),
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
            timeout=_PARSE_SECONDS,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None  # the shell will say so itself
    if done.returncode == 0:
        return None
    said = " ".join(done.stderr.decode(errors="replace").replace("bash: ", "").split())
    return (
        f"The command is not complete shell syntax, so it was not run ({said}). Close every "
        "quote, bracket and `$(`, or put the text in a file and run that."
    )
