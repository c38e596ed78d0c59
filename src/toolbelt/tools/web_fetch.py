"""web_fetch: read a public web page as Markdown, behind an SSRF guard and per-domain approval.

Read-only is not harmless here: a URL carries data out (``https://x.test/?q=<secret>``), so each
domain is asked for unless a ``WebFetch(domain:…)`` rule allows it, and plan mode fetches only
allowed domains. Where the request goes is decided by ``toolbelt.web``: the URL is parsed as a
browser would, the host resolved once, every address checked, and the connection made to the
checked address (DNS rebinding cannot switch it); redirects are checked hop by hop. The
response is capped in time and in decompressed bytes, converted to Markdown, cached for 15
minutes, and returned in windows (``offset``/``max_length``).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.tools._settings import session_settings
from toolbelt.tools._web_page import ConvertedPage, condensed_page, page_window, redirect_result
from toolbelt.web.addresses import blocked_reason
from toolbelt.web.cache import PageCache
from toolbelt.web.client import FetchLimits
from toolbelt.web.guard import Resolver, canonical_origins, refusal, system_resolver
from toolbelt.web.urls import WebUrl, parse_web_url

__all__ = ["WebFetchConfig", "WebFetchInput", "WebFetchTool"]

DEFAULT_LENGTH = 50_000
MAX_LENGTH = 100_000

DESCRIPTION = """\
Fetch a web page (http:// or https://) and return its content as Markdown; JSON, XML, plain \
text and PDF (first 20 pages) come back as text. Use it for documentation, issues, API \
references the user points you to. Pages are cached for 15 minutes, so reading further with \
`offset` is free. Up to `max_length` characters (default 50,000, at most 100,000) are returned \
per call, with the offset to continue from. Redirects within the same site are followed; a \
redirect to another host is reported and you fetch that URL with a new call. Private and local \
addresses (localhost, 10.x, 192.168.x, cloud metadata) are refused unless the user allowed that \
origin. Each new domain may need the user's approval. `prompt` says what you are looking for: \
where the runtime has a small model, it reads the page and you get its answer to your prompt \
(call again without `prompt` for the page itself); otherwise the page comes back with your \
prompt noted above it — read it for the answer yourself."""


class WebFetchInput(ToolInput):
    """Arguments of `web_fetch`."""

    url: str = Field(min_length=1, max_length=8192, description="The http(s) URL to fetch.")
    prompt: str | None = Field(
        default=None,
        max_length=4000,
        description="What to look for in the page (answered from it when a model can condense).",
    )
    max_length: int = Field(
        default=DEFAULT_LENGTH, ge=1, le=MAX_LENGTH, description="Characters to return at most."
    )
    offset: int = Field(
        default=0, ge=0, description="Character offset to start from (to read further)."
    )


class WebFetchOutput(BaseModel):
    """Structured result of `web_fetch`."""

    url: str = Field(description="The final URL, after same-site redirects.")
    status: int = Field(description="The HTTP status of the final response.")
    content_type: str = Field(description="The response's media type.")
    total_chars: int = Field(description="Characters in the converted page.")
    offset: int = Field(description="First character returned.")
    returned_chars: int = Field(
        description="Characters of the page returned (condensed: read by the small model)."
    )
    redirect_to: str | None = Field(default=None, description="Another host the page sent to.")
    condensed_by: str | None = Field(
        default=None, description="The model that answered the prompt from the page, if any."
    )


@dataclass
class WebFetchConfig:
    """A session resource: how names are resolved, the caps, and (for a private CA) the TLS
    context that verifies certificates; tests swap in stubs."""

    resolver: Resolver = system_resolver
    limits: FetchLimits = field(default_factory=FetchLimits)
    verify: ssl.SSLContext | None = None


class WebFetchTool(Tool[WebFetchInput]):
    """Fetch a URL through the SSRF guard and return it as Markdown."""

    name = "web_fetch"
    rule_family = "WebFetch"
    claude_name = "WebFetch"
    title = "Fetch web page"
    description = DESCRIPTION
    output_model = WebFetchOutput
    example = {"url": "https://docs.python.org/3/library/asyncio.html", "prompt": "TaskGroup"}
    hints = ToolHints(readonly=True, destructive=False, idempotent=True, open_world=True)
    programmatic = False

    async def access(self, args: WebFetchInput, ctx: ToolContext) -> Access:
        url = _checked_url(args.url, ctx)
        return Access(AccessKind.NETWORK, url=str(url), summary=f"fetch {url}")

    async def run(self, args: WebFetchInput, ctx: ToolContext) -> ToolOutput:
        import anyio

        from toolbelt.web.convert import body_text, is_html, is_pdf, pdf_body_text
        from toolbelt.web.fetcher import fetch_page

        url = _checked_url(args.url, ctx)
        cache = ctx.session.resource(PageCache)
        page: ConvertedPage | None = cache.get(str(url))
        if page is None:
            config = ctx.session.resource(WebFetchConfig)
            origins = canonical_origins(session_settings(ctx.session).private_origins)
            ctx.progress(f"fetching {url}")
            fetched = await fetch_page(
                url,
                private_origins=origins,
                resolver=config.resolver,
                limits=config.limits,
                verify=config.verify,
            )
            if fetched.redirect_to is not None:
                return redirect_result(fetched.url, fetched.redirect_to, fetched.response.status)
            response = fetched.response
            limits = config.limits
            body, cut = response.body, limits.max_bytes if response.truncated else None
            if is_html(response.content_type, body) and len(body) > limits.max_html_bytes:
                body, cut = body[: limits.max_html_bytes], limits.max_html_bytes
            charset = _charset(response.headers.get("content-type", ""))
            if is_pdf(response.content_type, body):
                text = await pdf_body_text(body)  # in a process a cancellation ends
            else:
                _, text = await anyio.to_thread.run_sync(
                    lambda: body_text(response.content_type, body, charset)
                )
            page = ConvertedPage(
                str(fetched.url),
                response.status,
                response.reason,
                response.content_type,
                text,
                cut,
                response.incomplete,
            )
            if page.incomplete is None:  # a retry may get the whole page
                cache.put(str(url), page)
        if args.prompt and ctx.model is not None and page.text:
            return await condensed_page(page, args.prompt, args.offset, args.max_length, ctx)
        return page_window(page, args.prompt, args.offset, args.max_length)


def _checked_url(raw: str, ctx: ToolContext) -> WebUrl:
    """The parsed URL; literal private addresses and credentials are refused before asking."""
    url = parse_web_url(raw)
    if url.userinfo:
        raise ToolError(
            f"This URL carries credentials before `@` (it would reach {url.host}); remove the "
            "`user@` part — web_fetch does not send credentials."
        )
    address = url.ip
    reason = None if address is None else blocked_reason(address)
    if address is not None and reason is not None:
        allowed = canonical_origins(session_settings(ctx.session).private_origins)
        if url.origin not in allowed:
            raise ToolError(refusal(url, address, reason))
    return url


def _charset(content_type: str) -> str | None:
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.strip().partition("=")
        if name.lower() == "charset" and value:
            return value.strip().strip('"')
    return None
