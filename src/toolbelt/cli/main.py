"""The ``toolbelt`` command: list tools, run one call by hand, run the demo, serve MCP.

Exit status of ``toolbelt call`` (a contract outside checks rely on): 0 success, 1 tool error,
2 invalid input (bad JSON, unknown tool, arguments that do not validate), 3 permission denied.

Start-up cost matters here (a person waits for every call), so this module imports only
argparse and json at load time; each command imports what it needs, and nothing on the
``call`` path imports a provider SDK or the MCP SDK.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["main"]

MODES = ("default", "accept_edits", "plan", "bypass", "dont_ask")

CALL_EPILOG = """\
exit status: 0 success, 1 tool error, 2 invalid input, 3 permission denied.

Each `toolbelt call` is a session of its own, with a person at the keyboard, so the rule that
an existing file must be read in this session before it is overwritten or edited does not
apply here; it applies everywhere else (library, MCP, chat).

Pass '-' instead of the JSON to read the arguments from standard input (a single argument is
limited to 128 KiB by the operating system)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``toolbelt`` console script; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.version:
        from importlib.metadata import version

        print(f"toolbelt {version('toolbelt')}")
        return 0
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "tools":
        from toolbelt.cli.commands import list_tools

        return list_tools(as_json=args.json)
    if args.command == "call":
        from toolbelt.cli.commands import call_tool

        return call_tool(
            args.tool,
            args.arguments,
            root=args.root,
            mode=args.mode,
            add_dirs=args.add_dir,
            yes=args.yes,
            as_json=args.json,
            trust_workspace=args.trust_workspace,
            sandbox=args.sandbox,
        )
    if args.command == "mcp":
        from toolbelt.cli.mcp_command import serve_mcp

        return serve_mcp(
            root=args.root,
            mode=args.mode,
            add_dirs=args.add_dir,
            http=args.http,
            allow_remote=args.allow_remote,
            token_file=args.token_file,
            trust_workspace=args.trust_workspace,
            sandbox=args.sandbox,
        )
    if args.command == "trust":
        from toolbelt.cli.trust_command import manage_trust

        return manage_trust(args.directory, remove=args.remove, show=args.list)
    if args.command == "demo":
        from toolbelt.cli.demo import run_demo

        return run_demo(root=args.root)
    parser.error(f"unknown command {args.command!r}")
    return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolbelt",
        description="The tool layer of an AI coding agent: run its tools by hand, "
        "serve them over MCP, or use them as a library.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    tools = sub.add_parser("tools", help="list the tools with their input schemas")
    tools.add_argument("--json", action="store_true", help="print JSON with full schemas")

    call = sub.add_parser(
        "call",
        help="run one tool call through the executor",
        epilog=CALL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    call.add_argument("tool", help="tool name, e.g. read_file")
    call.add_argument(
        "arguments", nargs="?", default="{}", help="JSON object of arguments, or - for stdin"
    )
    _add_workspace_options(call)
    call.add_argument("--yes", action="store_true", help="approve every permission prompt")
    call.add_argument("--json", action="store_true", help="print the structured result as JSON")

    mcp = sub.add_parser(
        "mcp",
        help="serve the tools over MCP on stdio (the permission policy is enforced here)",
    )
    _add_workspace_options(mcp)
    mcp.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="serve streamable HTTP instead of stdio (host 127.0.0.1 unless given)",
    )
    mcp.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback --http address (requires a bearer token)",
    )
    mcp.add_argument(
        "--token-file",
        metavar="FILE",
        help="file holding the bearer token clients must send (or set TOOLBELT_MCP_TOKEN)",
    )

    trusted = sub.add_parser(
        "trust",
        help="let a workspace's own settings loosen the policy (hooks, allow rules)",
        description="A workspace's .toolbelt settings may only restrict (deny and ask rules) "
        "until you trust it: its allow rules, hooks, extra directories and default mode are "
        "ignored, because whoever wrote the repository wrote them.",
    )
    trusted.add_argument("directory", nargs="?", default=".", help="workspace (default: .)")
    trusted.add_argument("--remove", action="store_true", help="stop trusting it")
    trusted.add_argument("--list", action="store_true", help="list trusted workspaces")

    demo = sub.add_parser("demo", help="list the tools and run a few calls on a repository")
    demo.add_argument("--root", default=".", help="workspace root (default: current directory)")
    return parser


def _add_workspace_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", default=".", help="workspace root (default: current directory)")
    parser.add_argument(
        "--mode",
        default=None,
        choices=MODES,
        help="permission mode (default: the settings' defaultMode, else default)",
    )
    parser.add_argument(
        "--add-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="another directory whose contents count as inside the workspace (repeatable)",
    )
    parser.add_argument(
        "--sandbox",
        default=None,
        choices=("auto", "landlock", "bwrap", "off"),
        help="OS sandbox for commands (default: the settings' sandbox.mode, else auto: the "
        "best available, with a warning when there is none)",
    )
    parser.add_argument(
        "--trust-workspace",
        action="store_true",
        help="apply the workspace's own settings in full for this run (see `toolbelt trust`)",
    )


if __name__ == "__main__":
    sys.exit(main())
