"""``llm-eval serve [RUN_DIR] [--host 127.0.0.1] [--port 8000]``: people play in the browser.

The parser imports nothing heavy; the handler imports Starlette and uvicorn, builds the app
(``app.create_app``) and runs it with ``server``'s settings until Ctrl-C. It binds the loopback address unless told
otherwise, and says so when it is told otherwise. With ``--study SPEC.yaml`` it makes (or
reloads) the study's participant links, writes them to a file beside the run store and
prints the operator's results address.
"""

from __future__ import annotations

import argparse
import sys

from ..argtypes import integer, integer_at_least, integer_between
from ..worldtest.protocols import PROTOCOLS

__all__ = ["add_serve_parser", "cmd_serve", "DEFAULT_RUN_DIR"]

DEFAULT_RUN_DIR = "runs/human"


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server (module docstring)."""
    from ..runlock import hold_run_dir
    from ..runstore import RunStoreError
    from ..serve.app import LOOPBACK_HOSTS, ServeSettings, create_app
    from ..serve.server import ServeServer, serve_config
    from ..serve.study import Study, StudyError, load_study_spec

    try:
        spec = load_study_spec(args.study) if args.study is not None else None
        with hold_run_dir(args.run_dir):   # refuse a busy run directory before binding
            study = Study(spec, args.run_dir) if spec is not None else None
    except (StudyError, RunStoreError) as exc:   # a bad spec, a directory another run holds
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return 2
    settings = ServeSettings(args.run_dir, host=args.host, seed=args.seed,
                             protocol=args.protocol, interaction_steps=args.interaction_steps,
                             allowed_hosts=args.allow_host, study=spec,
                             operator_token=study.state["operator"] if study else None,
                             browse=args.browse)
    if args.host not in LOOPBACK_HOSTS:
        print(f"llm-eval serve: warning: listening on {args.host}, not only this machine; "
              f"anyone who can reach it can play", file=sys.stderr)
    base = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}"
    runs = f"{base}/runs/{settings.operator_token}"
    # the operator's links are secrets: printed for them, never logged
    if study is None or spec is None:
        print(f"llm-eval serve: episodes are recorded in {args.run_dir}; open {base}/ ; "
              f"the runs, live: {runs} (Ctrl-C stops)", file=sys.stderr, flush=True)
    else:
        print(f"llm-eval serve: study {spec.name}: {spec.participants} participant links in "
              f"{study.links_path} (each is {base}/p/TOKEN); results: "
              f"{base}/api/study/{study.state['operator']}/results; the runs, live: {runs} "
              f"(Ctrl-C stops)", file=sys.stderr, flush=True)
    server = ServeServer(serve_config(create_app(settings), host=args.host, port=args.port))
    try:
        server.run()
    except KeyboardInterrupt:   # the Ctrl-C that stopped it, raised again once it has
        pass
    if not server.started:   # uvicorn said why (the port is taken, ...)
        print("llm-eval: error: the server did not start", file=sys.stderr)
        return 1
    return 0


def add_serve_parser(commands) -> argparse.ArgumentParser:
    """Add ``serve`` to the ``llm-eval`` subcommands."""
    serve = commands.add_parser(
        "serve", help="let people play tasks in the browser, recorded like models' episodes",
        description="Start a local web server where a person plays WorldTest tasks (the "
                    "interaction phase, then the test) in the browser. Every episode is a job "
                    "of agent human/<name> in RUN_DIR, with its transcript, so report, "
                    "compare and replay treat people like models.")
    serve.add_argument("run_dir", nargs="?", default=DEFAULT_RUN_DIR, metavar="RUN_DIR",
                       help=f"the run directory episodes are recorded in (default "
                            f"{DEFAULT_RUN_DIR})")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=integer_between(1, 65535, "port"), default=8000,
                       help="port (default 8000)")
    serve.add_argument("--seed", type=integer, default=1,
                       help="the seed of every episode, as a sweep's seeds (default 1)")
    serve.add_argument("--protocol", choices=tuple(PROTOCOLS), default="worldtest",
                       help="the protocol the start page proposes (default worldtest)")
    serve.add_argument("--interaction-steps", type=integer_at_least(1), metavar="N",
                       help="the interaction budget (default: each task's)")
    serve.add_argument("--study", metavar="SPEC.yaml",
                       help="run a study: tasks assigned to participants, who come through "
                            "their own links (docs/serve.md)")
    serve.add_argument("--browse", action="append", metavar="RUN_DIR",
                       help="another run directory the operator's runs page shows beside "
                            "RUN_DIR, e.g. a sweep running now (repeatable)")
    serve.add_argument("--allow-host", action="append", metavar="NAME",
                       help="another name the server may be reached under (repeatable)")
    serve.set_defaults(handler=cmd_serve)
    return serve
