"""A browser for tests: GET the address and follow its redirects (the authorization server
approves at once and sends the code to the login's loopback listener). Used as
``BROWSER="python follow_redirects.py %s"``; Python's ``webbrowser`` runs it."""

from __future__ import annotations

import sys

import httpx

if __name__ == "__main__":
    with httpx.Client(follow_redirects=True, timeout=30) as client:
        answer = client.get(sys.argv[1])
    sys.exit(0 if answer.status_code < 400 else 1)
