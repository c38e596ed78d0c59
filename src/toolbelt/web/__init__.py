"""The web fetcher behind ``web_fetch``: URL parsing, the SSRF guard, capped fetches, Markdown.

``urls`` parses a URL the way a browser does (so the host we check is the host anyone would
reach), ``addresses`` says which IP addresses are off limits, ``guard`` resolves a host once
and checks every address, ``client`` connects to exactly that checked address with the name
kept for the Host header and TLS, under byte and time caps; ``convert`` turns HTML into
Markdown and ``cache`` keeps pages for 15 minutes. Nothing here imports httpx or the HTML
libraries at import time.
"""
