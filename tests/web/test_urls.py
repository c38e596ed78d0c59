"""URLs parsed as a browser parses them: the canonical form web_fetch checks and requests."""

from __future__ import annotations

import pytest

from toolbelt.core.errors import ToolError
from toolbelt.web.urls import parse_web_url, resolve_redirect


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("HTTPS://Docs.Example.TEST/A/b?q=1#frag", "https://docs.example.test/A/b?q=1"),
        ("https://docs.example.test:443/", "https://docs.example.test/"),
        ("http://docs.example.test:8080", "http://docs.example.test:8080/"),
        ("http://evil.test\\@127.0.0.1/", "http://evil.test/@127.0.0.1/"),
        ("http:\\\\docs.example.test\\a\\b?x=\\y", "http://docs.example.test/a/b?x=\\y"),
        ("http://0x7f.1:81/x", "http://127.0.0.1:81/x"),
        ("http://3232235777/", "http://192.168.1.1/"),
        ("http://[0:0:0:0:0:ffff:7f00:1]/", "http://[::ffff:7f00:1]/"),
        ("http://bücher.example/", "http://xn--bcher-kva.example/"),
        ("http://ＥＸＡＭＰＬＥ.test/", "http://example.test/"),
        ("http://example.test./", "http://example.test./"),
    ],
)
def test_canonical_form(text: str, canonical: str) -> None:
    assert str(parse_web_url(text)) == canonical


def test_userinfo_is_split_off_at_the_last_at_sign() -> None:
    url = parse_web_url("http://a@b@127.0.0.1:8/")
    assert (url.userinfo, url.host, url.port) == ("a@b", "127.0.0.1", 8)


def test_redirects_resolve_relative_to_the_current_url() -> None:
    base = parse_web_url("https://docs.example.test/guide/intro")
    assert str(resolve_redirect(base, "../api?x=1")) == "https://docs.example.test/api?x=1"
    assert str(resolve_redirect(base, "//0177.1/")) == "https://127.0.0.1/"


@pytest.mark.parametrize(
    "text",
    ["http://%ff%fe/", "http://foo.123/", "http://08.0.0.1/", "http://a b.test/", "http:///"],
)
def test_invalid_hosts_are_refused(text: str) -> None:
    with pytest.raises(ToolError):
        parse_web_url(text)
