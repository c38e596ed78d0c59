"""A home beside thousands of other directories under /tmp still fits in one bwrap command.

Beside a hidden secret the grants list every other entry of its directory; under a busy /tmp
(CI's test directories, a shared machine) that was thousands of mounts, and bwrap refused
to start ("Exceeded maximum number of arguments 9000"). Many siblings are now bound as their
directory, and the secret is still hidden by the mount that follows.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.sandboxes import usable_backends
from toolbelt.sandbox.bwrap import bwrap_argv
from toolbelt.sandbox.profiles import Grants


def test_thousands_of_siblings_make_one_mount_and_the_secret_stays_hidden(
    tmp_path: Path,
) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    for number in range(3000):
        (busy / f"d{number}").mkdir()
    home = busy / "d0"
    (home / "notes.txt").write_text("my notes\n")
    secret = home / ".netrc"
    secret.write_text("password hunter2\n")
    siblings = tuple(str(busy / f"d{n}") for n in range(1, 3000))
    grants = Grants(read=(*siblings, str(home / "notes.txt")), hidden=(str(secret),))
    argv = bwrap_argv(
        grants, ["cat", str(home / "notes.txt"), str(secret)], cwd=tmp_path, network=False
    )
    assert len(argv) < 200
    assert argv.count(str(busy)) == 2  # --ro-bind-try busy busy, once
    if "bwrap" not in usable_backends():
        pytest.skip("bwrap cannot run here")
    ran = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert ran.stdout == "my notes\n"  # the secret reads as /dev/null: empty
