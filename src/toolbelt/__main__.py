"""``python -m toolbelt``: the ``toolbelt`` command, for where the console script is not on
PATH (a venv that is not activated, ``pipx run``, a host's MCP config naming the
interpreter)."""

from __future__ import annotations

import sys

from toolbelt.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
