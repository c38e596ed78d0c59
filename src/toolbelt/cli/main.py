"""The ``toolbelt`` command: list tools, run one call by hand, run an agent task, run the demo,
serve MCP.

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

from toolbelt.policy.modes import MODES

__all__ = ["main"]

CALL_EPILOG = """\
exit status: 0 success, 1 tool error, 2 invalid input, 3 permission denied.

Each `toolbelt call` is a session of its own, with a person at the keyboard, so the rule that
an existing file must be read in this session before it is overwritten or edited does not
apply here; it applies everywhere else (library, MCP, chat).

Pass '-' instead of the JSON to read the arguments from standard input (a single argument is
limited to 128 KiB by the operating system)."""

RUN_EPILOG = """\
exit status: 0 the loop ended (stderr notes a stop short of an answer), 1 provider error,
2 invalid usage, 130 interrupted.

Keys and base URLs come from the providers' usual environment variables (ANTHROPIC_API_KEY,
OPENAI_API_KEY, OPENAI_BASE_URL, GEMINI_API_KEY, ...); a local --base-url needs no key.
Without a person at the terminal, calls that would ask are denied unless --yes is given."""


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

        return list_tools(
            as_json=args.json,
            toolset_spec=args.toolset,
            root=args.root,
            trust_workspace=args.trust_workspace,
        )
    if args.command == "mcp-servers":
        from toolbelt.cli.mcp_servers_command import list_servers

        return list_servers(args.root, trust_workspace=args.trust_workspace, as_json=args.json)
    if args.command == "skills":
        from toolbelt.cli.skills_command import list_skills

        return list_skills(args.root, trust_workspace=args.trust_workspace, as_json=args.json)
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
            toolset_spec=args.toolset,
            sandbox=args.sandbox,
        )
    if args.command == "mcp":
        from toolbelt.cli.mcp_command import mcp_limits, serve_mcp

        return serve_mcp(
            root=args.root,
            mode=args.mode,
            add_dirs=args.add_dir,
            http=args.http,
            allow_remote=args.allow_remote,
            token_file=args.token_file,
            trust_workspace=args.trust_workspace,
            no_auth=args.no_auth,
            limits=mcp_limits(args),
            toolset_spec=args.toolset,
            sandbox=args.sandbox,
        )
    if args.command == "run":
        from toolbelt.cli.run_command import run_task

        return run_task(
            args.prompt,
            model=args.model,
            base_url=args.base_url,
            tool_format=args.tool_format,
            root=args.root,
            mode=args.mode,
            add_dirs=args.add_dir,
            yes=args.yes,
            max_turns=args.max_turns,
            as_json=args.json,
            trust_workspace=args.trust_workspace,
            toolset_spec=args.toolset,
            sandbox=args.sandbox,
        )
    if args.command == "trust":
        from toolbelt.cli.trust_command import manage_trust

        return manage_trust(args.directory, remove=args.remove, show=args.list, force=args.force)
    if args.command == "checkpoints":
        from toolbelt.cli.checkpoints_command import list_checkpoints

        return list_checkpoints(args.root, as_json=args.json)
    if args.command in ("undo", "redo"):
        from toolbelt.cli.checkpoints_command import undo_or_redo

        return undo_or_redo(
            args.call_id, root=args.root, force=args.force, redoing=args.command == "redo"
        )
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
    _add_toolset_option(tools)
    tools.add_argument(
        "--root",
        default=None,
        help="also list the tools of this workspace's MCP servers (starting them)",
    )
    tools.add_argument(
        "--trust-workspace",
        action="store_true",
        help="use the workspace's own MCP servers (.mcp.json) for this run (see `toolbelt trust`)",
    )

    servers = sub.add_parser(
        "mcp-servers",
        help="show the configured MCP servers: where from, started, tools, errors",
    )
    servers.add_argument("--root", default=".", help="workspace root (default: current directory)")
    servers.add_argument(
        "--trust-workspace",
        action="store_true",
        help="include the workspace's own servers (.mcp.json) for this run",
    )
    servers.add_argument("--json", action="store_true", help="print JSON")

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
        help="file holding the bearer token clients must send (default: a random one, "
        "written to a private file whose path is printed)",
    )
    add_http_limits(mcp)

    _add_run_command(sub)

    trusted = sub.add_parser(
        "trust",
        help="let a workspace's own settings loosen the policy (hooks, allow rules)",
        description="A workspace's .toolbelt settings may only restrict (deny and ask rules) "
        "until you trust it: its allow rules, hooks, extra directories and default mode are "
        "ignored, because whoever wrote the repository wrote them. Trusting approves its MCP "
        "servers and hooks as written now, with the workspace files they name (a server's "
        "script, a hook's): one that changes later does not run until you trust the "
        "workspace again.",
    )
    trusted.add_argument("directory", nargs="?", default=".", help="workspace (default: .)")
    trusted.add_argument("--remove", action="store_true", help="stop trusting it")
    trusted.add_argument("--list", action="store_true", help="list trusted workspaces")
    trusted.add_argument(
        "--force",
        action="store_true",
        help="trust a directory as broad as /, your home or a top-level directory anyway",
    )

    skills = sub.add_parser("skills", help="list the skills the skill tool can run")
    skills.add_argument("--root", default=".", help="workspace root (default: current directory)")
    skills.add_argument(
        "--trust-workspace",
        action="store_true",
        help="include the workspace's own skills for this run (see `toolbelt trust`)",
    )
    skills.add_argument("--json", action="store_true", help="print JSON")

    _add_checkpoint_commands(sub)

    demo = sub.add_parser("demo", help="list the tools and run a few calls on a repository")
    demo.add_argument("--root", default=".", help="workspace root (default: current directory)")
    return parser


def _add_checkpoint_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    listing = sub.add_parser(
        "checkpoints",
        help="list the changes toolbelt's tools made in a workspace, newest first",
        description="Every change a file tool or a command made in the workspace, from any "
        "process: call id, session, tool, time, state and files (A created, M modified, "
        "D deleted). `toolbelt undo CALL_ID` puts one back.",
    )
    listing.add_argument("--root", default=".", help="workspace root (default: current directory)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    for name, what in (
        ("undo", "put a call's files back as they were before it (default: the newest change)"),
        ("redo", "put back what an undo reverted (default: the call undone last)"),
    ):
        command = sub.add_parser(
            name,
            help=what,
            description=f"{what[0].upper()}{what[1:]}, from whichever process made it.",
            epilog="exit status: 0 done, 1 nothing to do or refused (the message names each "
            "file changed since), 2 invalid usage.",
        )
        command.add_argument(
            "call_id", nargs="?", metavar="CALL_ID", help="from `toolbelt checkpoints`"
        )
        command.add_argument(
            "--root", default=".", help="workspace root (default: current directory)"
        )
        command.add_argument(
            "--force",
            action="store_true",
            help="overwrite files changed since by someone else (refused otherwise)",
        )


def _add_run_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser(
        "run",
        help="run one task with a model that uses the tools (answer on stdout)",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("prompt", help="the task, or - to read it from standard input")
    run.add_argument(
        "--model",
        metavar="PROVIDER:MODEL",
        help="e.g. anthropic:claude-sonnet-4-5, openai:gpt-5, ollama:qwen3-coder "
        "(default: $TOOLBELT_MODEL)",
    )
    run.add_argument("--base-url", metavar="URL", help="the provider's API at another address")
    run.add_argument(
        "--tool-format",
        default="native",
        metavar="FORMAT",
        help="how the model writes tool calls: native (the provider's own; default), auto "
        "(native, and calls written as text are recognised), or a text format for models "
        "served without a tool parser: hermes, qwen3-coder, glm-4.5, glm-4.7, mistral, "
        "mistral-v11, llama3, deepseek-v3, deepseek-v3.1, deepseek-v3.2, kimi-k2, harmony",
    )
    _add_workspace_options(run)
    run.add_argument("--yes", action="store_true", help="approve every permission prompt")
    run.add_argument("--max-turns", type=int, default=50, metavar="N", help="default 50")
    run.add_argument(
        "--json", action="store_true", help="print the whole transcript with usage as JSON"
    )


def add_http_limits(parser: argparse.ArgumentParser) -> None:
    """The HTTP door's opt-out of its token and its limits."""
    parser.add_argument(
        "--no-auth",
        action="store_true",
        help="serve loopback HTTP without a token (any local program or web page may call tools)",
    )
    parser.add_argument("--max-sessions", type=int, default=100, metavar="N")
    parser.add_argument(
        "--max-calls", type=int, default=256, metavar="N", help="tool calls in flight at once"
    )
    parser.add_argument(
        "--session-idle-timeout",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help="end a session unused this long, with every process it started (default 1800)",
    )
    parser.add_argument(
        "--request-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="time a client has to send a request's headers, then its body (default 10)",
    )


def _add_toolset_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--toolset",
        metavar="MODULE:ATTR",
        help="use this Toolset (or function returning one) instead of the built-in tools: an "
        "installed MODULE (never imported from the current directory) or a FILE.py by path",
    )


def _add_workspace_options(parser: argparse.ArgumentParser) -> None:
    _add_toolset_option(parser)
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
