"""web_fetch end to end through the executor, against servers on 127.0.0.1 only.

The local servers are reached because the tests list their origins in
``webFetch.allowPrivateOrigins``, exactly as a user would; every other private spelling must be
refused before any connection is made, which the connect hook (``local_server``) records.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from tests.tools.helpers import Requester, call_once
from tests.web.local_server import (
    MIB,
    ConnectLog,
    Server,
    make_certificates,
    recording_connects,
)

from toolbelt.config.factory import build_policy, configure_session
from toolbelt.config.settings import Settings
from toolbelt.core.context import Session
from toolbelt.core.events import CallState
from toolbelt.core.executor import Executor, ToolCall, ToolCallResult
from toolbelt.policy.rules import parse_rule
from toolbelt.tools import builtin_toolset
from toolbelt.tools.web_fetch import WebFetchConfig
from toolbelt.web.client import FetchLimits
from toolbelt.web.guard import Resolver

pytestmark = pytest.mark.anyio


@pytest.fixture
def server() -> Iterator[Server]:
    with Server() as running:
        yield running


@pytest.fixture
def other_server() -> Iterator[Server]:
    with Server() as running:
        yield running


@pytest.fixture
def connects() -> Iterator[ConnectLog]:
    with recording_connects() as log:
        yield log


class StubResolver:
    """Answers from a table, one answer list per lookup in turn; records every lookup."""

    def __init__(self, table: dict[str, list[list[str]]]) -> None:
        self.table = table
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        answers = self.table[host]
        return answers[min(len(self.lookups) - 1, len(answers) - 1)]


async def fetch(
    tmp_path: Path,
    arguments: dict[str, Any],
    *,
    origins: tuple[str, ...] = (),
    allow: tuple[str, ...] = (),
    mode: str = "default",
    resolver: Resolver | None = None,
    limits: FetchLimits | None = None,
    approve: bool = True,
    verify: ssl.SSLContext | None = None,
) -> tuple[ToolCallResult, Requester]:
    session = Session(tmp_path)
    settings = Settings(allow=[parse_rule(rule) for rule in allow], private_origins=list(origins))
    config = WebFetchConfig(limits=limits or FetchLimits(), verify=verify)
    if resolver is not None:
        config.resolver = resolver
    session.resource(WebFetchConfig, lambda: config)
    return await call_once(
        session, "web_fetch", arguments, mode=mode, settings=settings, approve=approve
    )


async def test_html_page_comes_back_as_markdown(tmp_path: Path, server: Server) -> None:
    result, _ = await fetch(tmp_path, {"url": f"{server.origin}/page"}, origins=(server.origin,))
    assert result.state.value == "success", result.text
    assert result.text == (
        f"URL: {server.origin}/page\n"
        "Status: 200 OK (text/html)\n\n"
        "# Timeouts\n\n"
        "HTTPX enforces **timeouts** by default.\n\n"
        '```\nclient = httpx.Client(timeout=10.0)\nclient.get("/")\n```\n\n'
        "| Timeout | Default |\n| --- | --- |\n| connect | 5 s |\n\n"
        "- [Advanced](/advanced)"
    )
    assert server.requests == [("/page", f"127.0.0.1:{server.port}")]


async def test_identifiers_arrive_as_written(tmp_path: Path, server: Server) -> None:
    """The reader copies identifiers into code: no Markdown escapes in prose, tables or link
    text, while code blocks, tables, links and emphasis still come through."""
    url = f"{server.origin}/identifiers"
    result, _ = await fetch(tmp_path, {"url": url}, origins=(server.origin,))
    assert result.state.value == "success", result.text
    assert result.text == (
        f"URL: {url}\n"
        "Status: 200 OK (text/html)\n\n"
        "Title: Tokens\n\n"
        "# Page tokens\n\n"
        "Send PAGE_TOKEN_93 with every request; retries stop at MAX_RETRIES (see __init__ and\n"
        "*args). Wildcards like src/*.py match; 2*3*4 is 24.\n\n"
        '```\nMAX_RETRIES = 5\ntoken = os.environ["PAGE_TOKEN_93"]\n```\n\n'
        "| Setting | Default |\n| --- | --- |\n| MAX_RETRIES | 5 |\n| retry_backoff_ms | 250 |\n\n"
        "Read [the page_tokens guide](/docs/page_tokens#max_retries) and\n"
        "*emphasis* stays **marked**."
    )


async def test_json_and_prompt_noted(tmp_path: Path, server: Server) -> None:
    arguments = {"url": f"{server.origin}/json", "prompt": "how many tools?"}
    result, _ = await fetch(tmp_path, arguments, origins=(server.origin,))
    assert result.text.splitlines()[2] == "Prompt: how many tools?"
    assert result.text.endswith('\n\n{"name": "toolbelt", "tools": 3}')
    assert (
        result.output.structured is not None
        and result.output.structured["content_type"] == "application/json"
    )


async def test_pdf_comes_back_as_page_text(tmp_path: Path, server: Server) -> None:
    result, _ = await fetch(
        tmp_path, {"url": f"{server.origin}/paper.pdf"}, origins=(server.origin,)
    )
    assert result.text == (
        f"URL: {server.origin}/paper.pdf\n"
        "Status: 200 OK (application/pdf)\n\n"
        "--- page 1 ---\nHello from a PDF"
    )


async def test_binary_content_type_refused(tmp_path: Path, server: Server) -> None:
    result, _ = await fetch(tmp_path, {"url": f"{server.origin}/binary"}, origins=(server.origin,))
    assert result.state.value == "error"
    assert "application/octet-stream, which web_fetch does not read" in result.text


async def test_http_error_status_is_an_error_result_with_the_page(
    tmp_path: Path, server: Server
) -> None:
    result, _ = await fetch(tmp_path, {"url": f"{server.origin}/missing"}, origins=(server.origin,))
    assert result.state.value == "error"
    assert "Status: 404 Not Found" in result.text and "No such page." in result.text


async def test_windows_and_the_cache(tmp_path: Path, server: Server) -> None:
    session = Session(tmp_path)
    settings = Settings(private_origins=[server.origin])
    configure_session(session, settings)
    executor = Executor(
        builtin_toolset(), session, policy=build_policy(session, "bypass", settings=settings)
    )
    url = f"{server.origin}/json"
    first = await executor.run_one(ToolCall("a", "web_fetch", {"url": url, "max_length": 10}))
    assert first.text.endswith(
        '\n\n{"name": "\n\n[Showing characters 0–10 of 32. Continue with offset=10 (the page is '
        "cached for 15 minutes).]"
    )
    rest = await executor.run_one(ToolCall("b", "web_fetch", {"url": url, "offset": 10}))
    assert rest.text.endswith('\n\ntoolbelt", "tools": 3}')
    assert server.requests == [("/json", f"127.0.0.1:{server.port}")]  # the second was cached
    past = await executor.run_one(ToolCall("c", "web_fetch", {"url": url, "offset": 99}))
    assert past.text == "offset 99 is past the end of the page, which has 32 characters."
    await session.aclose()


async def test_cached_page_expires_after_fifteen_minutes(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolbelt.web.cache as cache_module

    now = [1000.0]
    monkeypatch.setattr(cache_module.time, "monotonic", lambda: now[0])
    session = Session(tmp_path)
    settings = Settings(private_origins=[server.origin])
    configure_session(session, settings)
    executor = Executor(
        builtin_toolset(), session, policy=build_policy(session, "bypass", settings=settings)
    )
    url = f"{server.origin}/json"
    for advance in (0.0, 14 * 60.0, 2 * 60.0):  # fetched, cached at 14 min, stale at 16 min
        now[0] += advance
        await executor.run_one(ToolCall("c", "web_fetch", {"url": url}))
    await session.aclose()
    assert [path for path, _ in server.requests] == ["/json", "/json"]


async def test_same_site_redirect_is_followed(tmp_path: Path, server: Server) -> None:
    result, _ = await fetch(tmp_path, {"url": f"{server.origin}/to-page"}, origins=(server.origin,))
    assert result.text.startswith(f"URL: {server.origin}/page\n")
    assert [path for path, _ in server.requests] == ["/to-page", "/page"]


async def test_redirect_from_allowed_origin_to_private_one_is_refused(
    tmp_path: Path, server: Server, other_server: Server, connects: ConnectLog
) -> None:
    for spelled in (
        f"http://127.0.0.1:{other_server.port}/page",
        f"http://0177.0.0.1:{other_server.port}/page",
        f"http://2130706433:{other_server.port}/page",
    ):
        url = f"{server.origin}/go?{quote(spelled, safe='')}"
        result, _ = await fetch(tmp_path, {"url": url}, origins=(server.origin,))
        assert result.state.value == "error"
        assert result.text.startswith("web_fetch does not reach 127.0.0.1: a loopback address")
    assert other_server.requests == []
    assert {port for _, port in connects.connects} == {server.port}


async def test_redirect_to_another_host_is_reported_not_followed(
    tmp_path: Path, server: Server, connects: ConnectLog
) -> None:
    target = quote("https://docs.example.test/page", safe="")
    result, _ = await fetch(
        tmp_path, {"url": f"{server.origin}/go?{target}"}, origins=(server.origin,)
    )
    assert result.state.value == "success"
    assert result.text == (
        f"{server.origin}/go?{target} redirected (HTTP 302) to another host: "
        "https://docs.example.test/page. It was not followed; to read it, call web_fetch again "
        'with url="https://docs.example.test/page".'
    )
    assert connects.connects == [("127.0.0.1", server.port)]


async def test_redirect_loop_stops_after_five(tmp_path: Path, server: Server) -> None:
    result, _ = await fetch(tmp_path, {"url": f"{server.origin}/loop"}, origins=(server.origin,))
    assert (
        result.text
        == f"{server.origin}/loop redirected more than 5 times; the site may be in a redirect loop."
    )
    assert len(server.requests) == 6


async def test_gigabyte_body_stops_at_the_cap(tmp_path: Path, server: Server) -> None:
    limits = FetchLimits(max_bytes=2 * MIB)
    result, _ = await fetch(
        tmp_path,
        {"url": f"{server.origin}/huge", "max_length": 100},
        origins=(server.origin,),
        limits=limits,
    )
    assert result.state.value == "success"
    assert (
        result.output.structured is not None and result.output.structured["total_chars"] == 2 * MIB
    )
    assert "Only the first 2,097,152 bytes of the response were used (the cap)" in result.text
    assert server.bytes_sent < 100 * MIB  # the client hung up; the server did not send 1 GiB


async def test_html_beyond_the_conversion_cap_is_cut(tmp_path: Path, server: Server) -> None:
    limits = FetchLimits(max_html_bytes=300)
    result, _ = await fetch(
        tmp_path, {"url": f"{server.origin}/page"}, origins=(server.origin,), limits=limits
    )
    assert result.text.startswith(
        f"URL: {server.origin}/page\nStatus: 200 OK (text/html)\n\n# Timeouts\n\nHTTPX enforces"
    )
    assert "Advanced" not in result.text
    assert result.text.endswith(
        "[Only the first 300 bytes of the response were used (the cap), so the page ends early.]"
    )


async def test_gzip_bomb_stops_at_the_cap(tmp_path: Path, server: Server) -> None:
    limits = FetchLimits(max_bytes=2 * MIB)
    result, _ = await fetch(
        tmp_path,
        {"url": f"{server.origin}/bomb", "max_length": 100},
        origins=(server.origin,),
        limits=limits,
    )
    assert (
        result.output.structured is not None and result.output.structured["total_chars"] == 2 * MIB
    )
    assert "Only the first 2,097,152 bytes of the response were used (the cap)" in result.text
    assert server.bytes_sent < 10 * MIB  # about 2 KB of it inflated to the cap


async def test_a_server_that_stalls_mid_page_gives_what_arrived(
    tmp_path: Path, server: Server
) -> None:
    limits = FetchLimits(read_timeout=0.3)
    result, _ = await fetch(
        tmp_path, {"url": f"{server.origin}/slow"}, origins=(server.origin,), limits=limits
    )
    assert result.state is CallState.SUCCESS
    assert result.text == (
        f"URL: {server.origin}/slow\nStatus: 200 OK (text/plain)\n\nfirst bytes\n\n[The page "
        "is incomplete: the server sent nothing more for 0.3 s; this is what had arrived. Try "
        "again later for the rest.]"
    )


async def test_a_page_dripping_a_byte_at_a_time_is_cut_at_the_deadline(
    tmp_path: Path, server: Server
) -> None:
    """One byte every 20 ms never trips the read timeout: the total deadline ends the body,
    and what arrived comes back, said to be incomplete (and not cached)."""
    limits = FetchLimits(read_timeout=5, total_timeout=1.0)
    arguments = {"url": f"{server.origin}/drip"}
    result, _ = await fetch(tmp_path, arguments, origins=(server.origin,), limits=limits)
    assert result.state is CallState.SUCCESS
    head, _, rest = result.text.partition("\n\n")
    assert head == f"URL: {server.origin}/drip\nStatus: 200 OK (text/plain)"
    body, _, note = rest.partition("\n\n")
    assert 10 < len(body) < 100 and set(body) == {"d"}
    assert note == (
        "[The page is incomplete: the server was still sending when the 1 s the fetch may take "
        "were up; this is what had arrived. Try again later for the rest.]"
    )


def test_every_budget_of_a_fetch_stays_well_under_what_a_client_waits() -> None:
    """MCP clients give a call about a minute: the fetch's deadline, converting the largest
    page converted (about 1.1 s a MB) and the small model's limit add up to well under it."""
    from toolbelt.web.condense import TIME_LIMIT

    limits = FetchLimits()
    converting = 1.1 * limits.max_html_bytes / 1024**2
    assert limits.total_timeout + converting + TIME_LIMIT <= 40


async def test_slow_server_stops_at_the_total_deadline(tmp_path: Path, server: Server) -> None:
    limits = FetchLimits(read_timeout=30, total_timeout=0.3)
    result, _ = await fetch(
        tmp_path, {"url": f"{server.origin}/slow"}, origins=(server.origin,), limits=limits
    )
    assert result.text.endswith(
        "first bytes\n\n[The page is incomplete: the server was still sending when the 0.3 s "
        "the fetch may take were up; this is what had arrived. Try again later for the rest.]"
    )


async def test_connects_to_the_checked_address_keeping_the_name(
    tmp_path: Path, server: Server, connects: ConnectLog
) -> None:
    name = f"http://docs.site.test:{server.port}"
    resolver = StubResolver({"docs.site.test": [["127.0.0.1"]]})
    result, _ = await fetch(tmp_path, {"url": f"{name}/page"}, origins=(name,), resolver=resolver)
    assert result.state.value == "success", result.text
    assert server.requests == [("/page", f"docs.site.test:{server.port}")]
    assert connects.connects == [("127.0.0.1", server.port)]
    assert resolver.lookups == ["docs.site.test"]


async def test_https_to_the_checked_address_verifies_the_name_and_sends_it_as_sni(
    tmp_path: Path, connects: ConnectLog
) -> None:
    server_tls, client_tls = make_certificates(tmp_path, "tls.site.test")
    with Server(tls=server_tls) as server:
        name = f"https://tls.site.test:{server.port}"
        resolver = StubResolver(
            {"tls.site.test": [["127.0.0.1"]], "other.site.test": [["127.0.0.1"]]}
        )
        result, _ = await fetch(
            tmp_path,
            {"url": f"{name}/json"},
            origins=(name,),
            resolver=resolver,
            verify=client_tls,
        )
        assert result.state.value == "success", result.text
        assert result.text.endswith('\n\n{"name": "toolbelt", "tools": 3}')
        assert server.server_names == ["tls.site.test"]
        assert server.requests == [("/json", f"tls.site.test:{server.port}")]
        # the same address under a name the certificate does not carry is refused
        other = f"https://other.site.test:{server.port}"
        wrong, _ = await fetch(
            tmp_path,
            {"url": f"{other}/json"},
            origins=(other,),
            resolver=resolver,
            verify=client_tls,
        )
        assert wrong.state.value == "error"
        assert "CERTIFICATE_VERIFY_FAILED" in wrong.text
        assert len(server.requests) == 1
    assert {host for host, _ in connects.connects} == {"127.0.0.1"}


async def test_falls_back_to_the_next_checked_address_when_one_cannot_connect(
    tmp_path: Path, server: Server, connects: ConnectLog
) -> None:
    name = f"http://dual.site.test:{server.port}"
    resolver = StubResolver({"dual.site.test": [["::1", "127.0.0.1"]]})
    result, _ = await fetch(tmp_path, {"url": f"{name}/json"}, origins=(name,), resolver=resolver)
    assert result.state.value == "success", result.text
    assert connects.connects == [("::1", server.port), ("127.0.0.1", server.port)]
    assert resolver.lookups == ["dual.site.test"]


async def test_dns_rebinding_cannot_switch_the_address(
    tmp_path: Path, server: Server, connects: ConnectLog
) -> None:
    """The name answers public first, loopback after: the fetch dials only the checked answer."""
    resolver = StubResolver({"rebind.test": [["93.184.215.14"], ["127.0.0.1"]]})
    url = f"http://rebind.test:{server.port}/page"
    result, _ = await fetch(tmp_path, {"url": url}, resolver=resolver)
    assert result.state.value == "error"
    assert resolver.lookups == ["rebind.test"]
    assert connects.connects == [("93.184.215.14", server.port)]  # refused by the test hook
    assert server.requests == []


LITERAL_SPELLINGS = [
    "http://127.0.0.1/",
    "http://127.0.0.1:8080/admin",
    "https://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.1/",
    "http://0x7F.0.0.1/",
    "http://0177.0.0.1/",
    "http://0177.1/",
    "http://127.000.000.001/",
    "http://127.1/",
    "http://127.0.1/",
    "http://127.0.0.1./",
    "http://0/",
    "http://0.0.0.0/",
    "http://[::]/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::127.0.0.1]/",
    "http://[2002:7f00:1::]/",
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/",
    "http://0xa9.0xfe.0xa9.0xfe/",
    "http://[fd00:ec2::254]/",
    "http://[::ffff:169.254.169.254]/",
    "http://10.0.0.1/",
    "http://012.1/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://198.18.0.1/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[fe80::1]/",
    "http://[ff02::1]/",
    "http://[fc00::1]/",
    "http://①②⑦.⓪.⓪.①/",
    "http://１２７.０.０.１/",
    "http://127。0。0。1/",
    "http://%31%32%37.0.0.1/",
    "http://127.0.0.1\\@docs.example.test/",
    "http:\\\\127.0.0.1\\",
    "http:/127.0.0.1/",
    "HTTP://127.0.0.1/",
    " http://127.0.0.1/ ",
    "http://12\t7.0.0.1/",
]
RESOLVED_SPELLINGS = {
    "http://localhost.test/": [["127.0.0.1"]],
    "http://LOCALHOST.TEST./": [["127.0.0.1"]],
    "http://multi.test/": [["93.184.215.14", "10.0.0.1"]],
    "http://metadata.test/": [["169.254.169.254"]],
    "http://v6.test/": [["::1"]],
    "http://mapped.test/": [["::ffff:10.0.0.1"]],
    "http://zero.test/": [["0.0.0.0"]],
}


@pytest.mark.parametrize("url", LITERAL_SPELLINGS)
async def test_private_address_spellings_refused_before_asking_or_connecting(
    tmp_path: Path, url: str, connects: ConnectLog
) -> None:
    result, requester = await fetch(tmp_path, {"url": url})
    assert result.state.value == "error"
    assert result.text.startswith("web_fetch does not reach "), result.text
    assert "Fetch a public URL instead" in result.text
    assert requester.asked == []
    assert connects.connects == []


@pytest.mark.parametrize("url", sorted(RESOLVED_SPELLINGS))
async def test_names_resolving_to_private_addresses_refused_without_connecting(
    tmp_path: Path, url: str, connects: ConnectLog
) -> None:
    table = {"localhost.test": RESOLVED_SPELLINGS["http://localhost.test/"]}
    table.update({u.split("/")[2].lower().rstrip("."): a for u, a in RESOLVED_SPELLINGS.items()})
    resolver = StubResolver(table)
    result, _ = await fetch(tmp_path, {"url": url}, resolver=resolver)
    assert result.state.value == "error"
    assert " resolves to " in result.text and "web_fetch does not reach" in result.text
    assert connects.connects == []


def test_the_tables_hold_at_least_forty_spellings() -> None:
    assert len(LITERAL_SPELLINGS) + len(RESOLVED_SPELLINGS) >= 40


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("file:///etc/passwd", "web_fetch reads only http:// and https:// URLs, not file:"),
        ("gopher://127.0.0.1:70/", "web_fetch reads only http:// and https:// URLs, not gopher:"),
        ("ftp://example.test/x", "web_fetch reads only http:// and https:// URLs, not ftp:"),
        ("example.test/page", "'example.test/page' is not a URL; write a full http://"),
        ("http://user:pw@127.0.0.1/", "This URL carries credentials before `@`"),
        ("http://docs.example.test@127.0.0.1/", "This URL carries credentials before `@`"),
        ("http://[::1/", "has an unclosed IPv6 address"),
        ("http://256.1.1.1.1/", "is not a valid IPv4 address (more than four parts)"),
        ("http://x.test:99999/", "has an invalid port '99999'"),
    ],
)
async def test_malformed_or_other_scheme_urls(tmp_path: Path, url: str, message: str) -> None:
    result, requester = await fetch(tmp_path, {"url": url})
    assert result.state.value == "error"
    assert message in result.text, result.text
    assert requester.asked == []


async def test_default_mode_asks_per_domain(tmp_path: Path, server: Server) -> None:
    result, requester = await fetch(
        tmp_path, {"url": f"{server.origin}/page"}, origins=(server.origin,), approve=False
    )
    assert result.state.value == "error"
    assert requester.asked == [("web_fetch", f"fetch {server.origin}/page reaches the network.")]
    assert server.requests == []


async def test_domain_rule_allows_without_asking(tmp_path: Path, server: Server) -> None:
    result, requester = await fetch(
        tmp_path,
        {"url": f"{server.origin}/page"},
        origins=(server.origin,),
        allow=("WebFetch(domain:127.0.0.1)",),
    )
    assert result.state.value == "success" and requester.asked == []


async def test_plan_mode_fetches_allowed_domains_only(tmp_path: Path, server: Server) -> None:
    url = f"{server.origin}/page"
    allowed, _ = await fetch(
        tmp_path,
        {"url": url},
        origins=(server.origin,),
        mode="plan",
        allow=("WebFetch(domain:127.0.0.1)",),
    )
    assert allowed.state.value == "success"
    refused, requester = await fetch(tmp_path, {"url": url}, origins=(server.origin,), mode="plan")
    assert refused.state.value == "error"
    assert refused.text.startswith("Plan mode is on, so `web_fetch` cannot reach the network.")
    assert requester.asked == []
    assert len(server.requests) == 1
