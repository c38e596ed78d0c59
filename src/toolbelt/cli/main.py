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
import atexit
import gc
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolbelt.policy.modes import MODES

if TYPE_CHECKING:
    from toolbelt.cli.conversation_setup import ConversationOptions as ConversationOptionsType

__all__ = ["main"]

CALL_EPILOG = """\
exit status: 0 success, 1 tool error, 2 invalid input, 3 permission denied.

Each `toolbelt call` is a session of its own, with a person at the keyboard, so the rule that
an existing file must be read in this session before it is overwritten or edited does not
apply here; it applies everywhere else (library, MCP, chat).

Pass '-' instead of the JSON to read the arguments from standard input (a single argument is
limited to 128 KiB by the operating system)."""

CHAT_EPILOG = """\
At a terminal: Enter sends, Esc then Enter adds a line, Esc or Ctrl-C cancels the running
turn, Ctrl-D leaves; /help lists the slash commands. With standard input a pipe, every line
is a prompt of one conversation (the answer on stdout, tool activity on stderr).
Conversations are saved as they happen: --continue takes the latest up again, --resume ID a
given one (`toolbelt sessions` lists them)."""

RUN_EPILOG = """\
exit status: 0 the loop ended (stderr notes a stop short of an answer), 3 it ended with calls
refused, 1 provider error, 2 invalid usage, 130 interrupted.

Keys and base URLs come from the providers' usual environment variables (ANTHROPIC_API_KEY,
OPENAI_API_KEY, OPENAI_BASE_URL, GEMINI_API_KEY, ...); a local --base-url needs no key.
Without a person at the terminal, calls that would ask are denied unless --yes is given."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``toolbelt`` console script; returns the exit status."""
    # at exit, the interpreter's last garbage collection walks every object start-up made
    # (pydantic's schemas, the modules): a frozen heap is skipped, and the process ends
    # sooner. Registered first, so it runs after every other exit handler.
    atexit.register(gc.freeze)
    parser = _parser()
    args = parser.parse_args(argv)
    if args.version:
        from toolbelt.core.distribution import installed_version

        print(f"toolbelt {installed_version()}")
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
        from toolbelt.cli.mcp_servers_command import servers_command

        return servers_command(args)
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
            rotate_token=args.rotate_token,
            port=args.port,
            ready_file=args.ready_file,
            idle_exit=args.idle_exit,
            max_lifetime=args.max_lifetime,
        )
    if args.command == "run":
        from toolbelt.cli.run_command import run_task

        output_format = "json" if args.json else args.output_format
        return run_task(
            args.prompt,
            _conversation_options(args),
            yes=args.yes,
            output_format=output_format,
            mcp_prompt=args.mcp_prompt,
        )
    if args.command == "chat":
        from toolbelt.cli.chat_command import run_chat

        return run_chat(_conversation_options(args), yes=args.yes)
    if args.command == "sessions":
        from toolbelt.cli.sessions_command import list_saved

        return list_saved(args.root, as_json=args.json)
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
    _add_servers_commands(servers)

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
    mcp.set_defaults(root=None)
    for action in mcp._actions:
        if action.dest == "root":
            action.help = (
                "workspace root (default: on stdio the client's first root, else the "
                "directory it starts in; never / or your home directory)"
            )
    mcp.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        nargs="?",
        const="",
        help="serve streamable HTTP instead of stdio (host 127.0.0.1 unless given; with "
        "--port, just the HOST)",
    )
    mcp.add_argument(
        "--port",
        type=int,
        metavar="PORT",
        help="the HTTP port (implies --http); 0 lets the system pick a free one, which "
        "--ready-file reports",
    )
    mcp.add_argument(
        "--ready-file",
        metavar="PATH",
        help="once serving HTTP, write {url, pid, version, token_file} there as JSON "
        "(atomically; removed when the server stops)",
    )
    mcp.add_argument(
        "--idle-exit",
        type=float,
        metavar="SECONDS",
        help="stop (as on SIGTERM) once no MCP request came for this long",
    )
    mcp.add_argument(
        "--max-lifetime",
        type=float,
        metavar="SECONDS",
        help="stop (as on SIGTERM) once the server has run this long",
    )
    mcp.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback --http address (requires a bearer token)",
    )
    mcp.add_argument(
        "--token-file",
        metavar="FILE",
        help="file holding the bearer token clients must send; or put it in "
        "$TOOLBELT_MCP_TOKEN, which the server removes from its environment (default: a "
        "random one kept for this port in a private file under "
        "$XDG_STATE_HOME/toolbelt/tokens, whose path is printed, so saved client "
        "configurations keep working across restarts; with --port 0 one for this run only)",
    )
    mcp.add_argument(
        "--rotate-token",
        action="store_true",
        help="replace the kept token of this port with a new one (update saved clients)",
    )
    add_http_limits(mcp)

    _add_run_command(sub)
    _add_chat_command(sub)
    sessions = sub.add_parser("sessions", help="list this workspace's saved conversations")
    sessions.add_argument("--root", default=".", help="workspace root (default: current directory)")
    sessions.add_argument("--json", action="store_true", help="print JSON")

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


def _add_servers_commands(servers: argparse.ArgumentParser) -> None:
    """``mcp-servers login|logout|add|remove|get``; each takes ``--root`` and
    ``--trust-workspace`` after its own arguments too (``args.sub_root``)."""
    commands = servers.add_subparsers(dest="servers_command", metavar="SUBCOMMAND")

    def command(name: str, text: str) -> argparse.ArgumentParser:
        parser = commands.add_parser(name, help=text, description=text)
        parser.add_argument("name", help="the server's name, as configured")
        parser.add_argument("--root", dest="sub_root", default=None, help="workspace root")
        parser.add_argument(
            "--trust-workspace",
            dest="sub_trust",
            action="store_true",
            help="include the workspace's own servers (.mcp.json) for this run",
        )
        return parser

    login = command(
        "login",
        "log in to a remote (http/sse) server: opens the browser (BROWSER is honoured), always "
        "prints the address, and takes the redirect on 127.0.0.1 or pasted here",
    )
    login.add_argument(
        "--no-browser",
        action="store_true",
        help="only print the address (over SSH: paste back the address the browser reached)",
    )
    login.add_argument(
        "--callback-port",
        type=int,
        metavar="N",
        help="the loopback port of the redirect (default: the entry's oauth.callbackPort, "
        "else the registered one, else any free port)",
    )
    command("logout", "forget the login to a server, revoking its tokens where offered")
    get = command("get", "show one server: its entry, state, tools and login")
    get.add_argument("--json", dest="sub_json", action="store_true", help="print JSON")
    remove = command("remove", "remove a server's entry from your file or the workspace's")
    remove.add_argument("--scope", choices=("user", "project"), default=None)
    add = command(
        "add",
        "add a server: NAME COMMAND [ARGS...] (put -- before arguments that start with -), "
        "or NAME URL for a remote one",
    )
    add.add_argument("target", help="the command to run, or the server's URL")
    add.add_argument("args", nargs="*", help="the command's arguments")
    add.add_argument("--transport", choices=("stdio", "http", "sse"), default=None)
    add.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="user: your ~/.config/toolbelt/mcp.json (default); project: the workspace's .mcp.json",
    )
    add.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("-H", "--header", action="append", default=[], metavar='"NAME: VALUE"')
    add.add_argument("--client-id", metavar="ID", help="a client registered with the server")
    add.add_argument(
        "--client-secret-var",
        metavar="VAR",
        help="the environment variable holding that client's secret (never the secret itself)",
    )
    add.add_argument("--callback-port", type=int, metavar="N", help="a fixed redirect port")


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
    run.add_argument(
        "prompt",
        nargs="?",
        help="the task, or - to read it from standard input; @server:uri attaches an MCP "
        "server's resource",
    )
    run.add_argument(
        "--prompt",
        dest="mcp_prompt",
        nargs="+",
        metavar=("SERVER:NAME", "K=V"),
        help="start with an MCP server's prompt, its arguments as name=value words",
    )
    _add_model_options(run)
    _add_workspace_options(run)
    _add_resume_options(run)
    run.add_argument("--yes", action="store_true", help="approve every permission prompt")
    run.add_argument("--max-turns", type=int, default=50, metavar="N", help="default 50")
    run.add_argument(
        "--output-format",
        default="text",
        choices=("text", "json", "stream-json"),
        help="text (the answer; the run on stderr), json (the whole transcript with usage at "
        "the end) or stream-json (one JSON event per line as it happens)",
    )
    run.add_argument("--json", action="store_true", help="the same as --output-format json")


def _add_chat_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chat = sub.add_parser(
        "chat",
        help="talk with a model that uses the tools (interactive; one prompt per line in a pipe)",
        epilog=CHAT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_model_options(chat)
    _add_workspace_options(chat)
    _add_resume_options(chat)
    chat.add_argument("--yes", action="store_true", help="approve every permission prompt")
    chat.add_argument("--max-turns", type=int, default=50, metavar="N", help="per prompt; 50")


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        metavar="PROVIDER:MODEL",
        help="e.g. anthropic:claude-sonnet-4-5, openai:gpt-5, ollama:qwen3-coder "
        "(default: $TOOLBELT_MODEL, or the resumed conversation's)",
    )
    parser.add_argument("--base-url", metavar="URL", help="the provider's API at another address")
    parser.add_argument(
        "--tool-format",
        default="native",
        metavar="FORMAT",
        help="how the model writes tool calls: native (the provider's own; default), auto "
        "(native, and calls written as text are recognised), or a text format for models "
        "served without a tool parser: hermes, qwen3-coder, glm-4.5, glm-4.7, mistral, "
        "mistral-v11, llama3, deepseek-v3, deepseek-v3.1, deepseek-v3.2, kimi-k2, harmony",
    )


def _add_resume_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="continue a saved conversation of this workspace (the latest without ID; "
        "`toolbelt sessions` lists them)",
    )
    group.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="continue this workspace's latest conversation",
    )


def _conversation_options(args: argparse.Namespace) -> ConversationOptionsType:
    from toolbelt.cli.conversation_setup import NO_RESUME, ConversationOptions

    resume = args.resume
    return ConversationOptions(
        model=args.model,
        base_url=args.base_url,
        tool_format=args.tool_format,
        root=args.root,
        mode=args.mode,
        add_dirs=args.add_dir,
        trust_workspace=args.trust_workspace,
        toolset_spec=args.toolset,
        sandbox=args.sandbox,
        max_turns=args.max_turns,
        resume=NO_RESUME if resume is None else (resume or None),
        continue_latest=args.continue_latest,
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
