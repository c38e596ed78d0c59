"""Language servers and fast checkers: what the code says about itself after an edit.

``languages`` names each file's language and the servers and checkers that know it;
``discovery`` finds a server's program (the settings, toolbelt's own environment, the user's
PATH, and — in a trusted workspace only — the workspace's ``node_modules/.bin`` or
``.venv/bin``); ``spawn`` starts it, the one place a server process is made; ``client``
speaks LSP to it (``capabilities``: what it says it can do); ``servers`` keeps one warm per
session and restarts it with back-off; ``diagnostics`` tells new problems from old;
``checkers`` runs ruff, ``node --check``, ``bash -n`` or ``gofmt -e`` where no server is;
``service`` puts them together for an edit's result; ``queries`` answers the lsp tool.
"""
