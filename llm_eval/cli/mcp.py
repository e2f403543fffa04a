"""``llm-eval mcp``: any outside agent (an MCP client) plays a task, recorded like any agent.

``llm-eval mcp (--task WORLD-FAMILY | --suite NAME) [--run-dir DIR] [--transport stdio|http]
[--host 127.0.0.1] [--port N] [--seed S] [--protocol worldtest|autumnbench]
[--interaction-steps N]`` serves one task, or a suite's tasks as a queue (each session plays
them in the manifest's order), to MCP clients: over stdio (the default; the client starts
this command) or streamable HTTP at ``http://HOST:PORT/mcp``. The HTTP server binds a
loopback address only (``127.0.0.1``, ``::1`` or ``localhost``): any other ``--host`` is
refused before anything is bound (exit 2), since whoever reaches the server plays and writes
the run directory. ``--port 0`` takes a free port; the address is printed on stderr.

Everything is checked before serving: the task or suite (a usage error naming it, with "did
you mean"), the seed, and the run directory's lock (one writer per directory, held while the
server runs: a directory a sweep or another server holds is refused). stdout belongs to the
protocol under stdio: this command writes only to stderr. The parser imports nothing heavy;
the handler imports the MCP SDK (``pip install 'llm-eval[mcp]'``).
"""

from __future__ import annotations

import argparse
import sys

from ..argtypes import integer, integer_at_least, integer_between
from ..worldtest.protocols import PROTOCOLS

__all__ = ["add_mcp_parser", "cmd_mcp", "DEFAULT_RUN_DIR", "LOOPBACK_HOSTS", "DEFAULT_PORT",
           "parse_task"]

DEFAULT_RUN_DIR = "runs/mcp"
DEFAULT_PORT = 8765
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")
_PROG = "llm-eval mcp"
MAX_SESSIONS = 256
GRACEFUL_SHUTDOWN_S = 5
LISTEN_BACKLOG = 2048   # uvicorn's default


class _Usage(Exception):
    """A setting that cannot be served; exit 2 with its message."""


def parse_task(text: str) -> tuple[str, str]:
    """``WORLD-FAMILY`` (e.g. ``gravity-planning``) as (world, family)."""
    from ..tasks.models import FAMILIES

    world, _, family = text.rpartition("-")
    if not world or family not in FAMILIES:
        raise _Usage(f"--task {text!r}: expected WORLD-FAMILY with FAMILY one of "
                     f"{', '.join(FAMILIES)}, e.g. gravity-planning")
    return world, family


def _tasks(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.task is not None:
        return [parse_task(args.task)]
    from ..suites import load_suite
    from ..suites.manifest import SuiteError

    try:
        suite = load_suite(args.suite)
    except SuiteError as exc:
        raise _Usage(str(exc)) from None
    return [(t.world, t.family) for t in suite.tasks]


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve (module docstring); returns the exit code."""
    if args.host not in LOOPBACK_HOSTS:
        print(f"{_PROG}: error: --host {args.host}: not a loopback address; the MCP server "
              f"listens on this machine only ({', '.join(LOOPBACK_HOSTS)})", file=sys.stderr)
        return 2
    try:
        import mcp  # noqa: F401  (the SDK: an optional dependency)
    except ImportError:
        print(f"{_PROG}: error: the MCP SDK is not installed: pip install 'llm-eval[mcp]'",
              file=sys.stderr)
        return 2
    from ..mcp.episodes import McpEpisodes, task_template
    from ..mcp.server import STDIO_SESSION, Players, build_server
    from ..runlock import hold_run_dir
    from ..runstore import RunStoreError
    from ..sweep.spec import SpecError

    try:
        tasks = _tasks(args)
        for world, family in tasks:   # refused here, not at a client's first call
            task_template(world, family, seed=args.seed, protocol=args.protocol,
                          suite=args.suite, interaction_steps=args.interaction_steps)
        with hold_run_dir(args.run_dir):
            episodes = McpEpisodes(args.run_dir, seed=args.seed, protocol=args.protocol,
                                   interaction_steps=args.interaction_steps, suite=args.suite)
            try:
                players = Players(episodes, tasks)
                server = build_server(players)
                if args.transport == "stdio":
                    _serve_stdio(server, args, len(tasks))
                    players.end(STDIO_SESSION)   # stdin closed: the client has left
                else:
                    _serve_http(server, players, args, len(tasks))
            finally:
                episodes.close()
    except (_Usage, SpecError, RunStoreError) as exc:
        print(f"{_PROG}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:   # the port is taken, the address cannot be bound
        print(f"{_PROG}: error: cannot listen on {args.host} port {args.port}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:   # Ctrl-C, the way to stop it (uvicorn raises it again once
        pass                    # it has shut down); the episodes were closed on the way out
    return 0


def _count(n: int) -> str:
    return f"{n} task{'s' if n != 1 else ''}"


def _serve_stdio(server, args: argparse.Namespace, tasks: int) -> None:
    import anyio

    print(f"{_PROG}: serving {_count(tasks)} over stdio; episodes are recorded in "
          f"{args.run_dir}", file=sys.stderr, flush=True)
    anyio.run(server.run_stdio_async)


def _serve_http(server, players, args: argparse.Namespace, tasks: int) -> None:
    import socket

    import anyio
    import uvicorn

    from ..mcp.server import SessionEnds

    # the SDK's app turns on its DNS-rebinding protection for a loopback host: only requests
    # naming this machine (Host and Origin) are served
    app = SessionEnds(server.streamable_http_app(host=args.host, session_idle_timeout=None,
                                                 max_sessions=MAX_SESSIONS), players)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
        # listening before the address is printed: a client that connects as soon as it reads
        # it is queued, never refused (uvicorn listens again on this socket, which is allowed)
        sock.listen(LISTEN_BACKLOG)
        port = sock.getsockname()[1]
        shown = f"[{args.host}]" if ":" in args.host else args.host
        print(f"{_PROG}: serving {_count(tasks)} at http://{shown}:{port}/mcp (streamable "
              f"HTTP); episodes are recorded in {args.run_dir} (Ctrl-C stops)",
              file=sys.stderr, flush=True)
        config = uvicorn.Config(app, log_level="warning", lifespan="on",
                                timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S)
        anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
    finally:
        sock.close()


def add_mcp_parser(commands) -> argparse.ArgumentParser:
    """Add ``mcp`` to the ``llm-eval`` subcommands."""
    parser = commands.add_parser(
        "mcp", help="let any MCP client (an outside agent) play tasks, recorded like models",
        description="Serve one task, or a suite's tasks in turn, to MCP clients (Claude Code, "
                    "Codex, an Agents SDK program, ...) with the tools observe, act, reset, "
                    "go_to_test and valid_actions. Each episode is a job of agent "
                    "mcp/<client name> in the run directory, with its transcript, so report, "
                    "compare and replay treat it like any agent. The client's own model calls "
                    "are not seen.")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--task", metavar="WORLD-FAMILY",
                       help="the task to serve, e.g. gravity-planning")
    which.add_argument("--suite", metavar="NAME",
                       help="serve a suite's tasks (e.g. v1) as a queue, in its order")
    parser.add_argument("--run-dir", default=DEFAULT_RUN_DIR, metavar="DIR",
                        help=f"the run directory episodes are recorded in (default "
                             f"{DEFAULT_RUN_DIR})")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                        help="stdio (the client starts this command; default) or streamable "
                             "HTTP at http://HOST:PORT/mcp")
    parser.add_argument("--host", default="127.0.0.1",
                        help="loopback address to listen on with --transport http (default "
                             "127.0.0.1; anything but 127.0.0.1, ::1 or localhost is refused)")
    parser.add_argument("--port", type=integer_between(0, 65535, "port"), default=DEFAULT_PORT,
                        help=f"port for --transport http (default {DEFAULT_PORT}; 0: a free "
                             f"port, printed on stderr)")
    parser.add_argument("--seed", type=integer, default=1,
                        help="the seed of every episode, as a sweep's seeds (default 1)")
    parser.add_argument("--protocol", choices=tuple(PROTOCOLS), default="worldtest",
                        help="the rules the episodes follow (default worldtest)")
    parser.add_argument("--interaction-steps", type=integer_at_least(1), metavar="N",
                        help="the interaction budget (default: each task's)")
    parser.set_defaults(handler=cmd_mcp)
    return parser
