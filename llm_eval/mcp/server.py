"""The MCP server: tools that play WorldTest tasks, one episode per client session at a time.

``build_server(episodes, tasks)`` makes an ``mcp.server.MCPServer`` (the official SDK) with
five tools, each a thin door onto the session's current episode (``episodes.McpEpisode``):

============== ===========================================================================
``observe``    the current observation as text (``text.observation_text``): where the
               episode is, the frame, the phase's instructions when a phase begins (or
               ``instructions: true``), the valid actions; after an episode has ended,
               begins the next task of the queue
``act``        one action in the strict action grammar (``click X Y``, ``left``, ``watch 3``,
               ``choose 2``, ...); returns the observation that follows. An invalid action
               is the phase's invalid action (counted, no tick) and comes back as a tool
               error result with the phase's message
``reset``      the action ``reset`` (interaction and change detection)
``go_to_test`` the action ``go-to-test`` (interaction)
``valid_actions`` the action forms valid now (under ``autumnbench``: the offered strings)
============== ===========================================================================

Every result carries ``structuredContent`` too: the task's place in the queue, the phase, the
step, the budget left, the valid actions, whether the last action was invalid, whether the
episode has ended, and its job id. The score is not shown (no agent is told its score).

Sessions: over stdio the process serves one client; over streamable HTTP each MCP session
(``Mcp-Session-Id``, made by the ``initialize`` handshake) is a client of its own, so two
clients at once play separate episodes. The tools answer only in a session: the 2026-era
sessionless requests are refused (``server/discover`` is answered ``method not found``, so an
SDK client in ``auto`` mode makes the handshake). A session's agent is ``mcp/<name>``, the
``clientInfo.name`` of its ``initialize`` (``client_name``: letters, digits, ``_``, ``.``,
``-``; 64 at most). A session ended by the client (HTTP ``DELETE``: ``SessionEnds``) or the
server's stop abandons its unfinished episode: ``interrupted``, unscored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import METHOD_NOT_FOUND, CallToolResult, TextContent, ToolAnnotations

from ..agents.human import HumanInputError
from ..errors import ActionSyntaxError, LlmEvalError
from ..vocabulary import PhaseName
from ..worldtest.commands import parse_command
from ..worldtest.phase import DEFAULT_MAX_CONSECUTIVE_INVALID
from .episodes import (
    CLIENT_LEFT,
    MAX_ACTION_CHARS,
    EpisodeBusy,
    McpEpisode,
    McpEpisodes,
    TooManyEpisodes,
    Turn,
)
from .text import briefing, observation_text, valid_actions

__all__ = ["build_server", "Players", "Player", "SessionEnds", "client_name", "SERVER_NAME",
           "STDIO_SESSION"]

SERVER_NAME = "llm-eval"
STDIO_SESSION = "stdio"          # the one session of a stdio server
SESSION_HEADER = "mcp-session-id"
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")
_INSTRUCTIONS = (
    "This server plays WorldTest tasks on Autumn grid worlds: an interaction phase with no "
    "objective where you explore a world and learn its rules, then a test about the same "
    "world (masked-frame prediction, change detection or planning). Call observe first; "
    "then act one action at a time. Your actions are recorded and scored like any agent's.")


def client_name(raw: str | None) -> str:
    """A client's name as an agent name: runs of other characters become ``-``, it starts
    with a letter or digit, at most 64 characters; ``client`` when nothing is left."""
    name = _NAME_CHARS.sub("-", raw or "").lstrip("-_.")[:64].rstrip("-_.")
    return name or "client"


@dataclass
class Player:
    """One client session: its place in the queue of tasks and its current episode."""

    key: str
    client: str
    position: int = 0                    # the queue's task being played (or next)
    episode: McpEpisode | None = None
    shown_phase: PhaseName | None = None   # the phase of the last observation shown
    lock: anyio.Lock = field(default_factory=anyio.Lock)


class Players:
    """Every session's player, and the queue of tasks each one plays in order."""

    def __init__(self, episodes: McpEpisodes, tasks: list[tuple[str, str]]) -> None:
        if not tasks:
            raise ValueError("an MCP server needs at least one task")
        self.episodes = episodes
        self.tasks = list(tasks)
        self._players: dict[str, Player] = {}
        self.limiter = anyio.CapacityLimiter(256)   # threads waiting on episodes at once

    def get(self, key: str, client: str) -> Player:
        player = self._players.get(key)
        if player is None:
            player = self._players[key] = Player(key, client)
        return player

    def end(self, key: str) -> None:
        """The session ``key`` has ended: abandon its unfinished episode."""
        player = self._players.pop(key, None)
        if player is not None and player.episode is not None:
            self.episodes.abandon(player.episode, CLIENT_LEFT)

    async def blocking(self, fn, *args):
        return await anyio.to_thread.run_sync(fn, *args, limiter=self.limiter)


def _session_key(ctx: Context) -> str:
    request = ctx.request_context.request
    if request is None:   # stdio: the process is the session
        return STDIO_SESSION
    key = request.headers.get(SESSION_HEADER)
    if not key:
        raise _Refused("this server keeps an episode per MCP session: connect with the "
                       "initialize handshake (a session), not sessionless requests")
    return key


def _client_of(ctx: Context) -> str:
    params = ctx.request_context.session.client_params
    return client_name(params.client_info.name if params is not None else None)


def _invalid(before: Turn, after: Turn, action: str) -> str | None:
    """What was wrong with ``action``, taken in ``before``, or None if it was valid. The
    phase's own message when it is still asking (the next observation's ``invalid``);
    when the action ended the phase (its limit of invalid actions in a row) the next
    observation is another phase's, so the action is checked as the phase checked it: the
    same parser against the same forms (under ``autumnbench`` the harness says, in its text)."""
    if before.observation is None or before.observation.text is not None:
        return None
    if after.observation is not None and after.observation.phase == before.observation.phase:
        return after.observation.invalid
    try:
        parse_command(action[:MAX_ACTION_CHARS], before.observation.actions)
    except ActionSyntaxError as exc:
        return (f"{exc.message}; the {before.observation.phase} phase has ended: that was "
                f"one invalid action in a row too many (at most "
                f"{DEFAULT_MAX_CONSECUTIVE_INVALID})")
    return None


class _Refused(Exception):
    """A call that cannot be served; its message goes back as the tool's error result."""


def text_of(result: CallToolResult) -> str:
    # every result is made by _result: text blocks only
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def _result(text: str, data: dict[str, Any], *, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=data, is_error=error)


class _Tools:
    """The tools' bodies (module docstring), over ``Players``."""

    def __init__(self, players: Players) -> None:
        self.players = players

    @property
    def count(self) -> int:
        return len(self.players.tasks)

    def _where(self, player: Player) -> dict[str, Any]:
        # not the world's name: no agent is told it (it could hint at the rules)
        data: dict[str, Any] = {"agent": f"mcp/{player.client}",
                                "task_number": min(player.position, self.count - 1) + 1,
                                "tasks": self.count}
        if player.episode is not None:
            data["job"] = player.episode.job.id
        return data

    async def _episode(self, player: Player, *, advance: bool) -> McpEpisode | None:
        """The player's current episode, begun if need be; with ``advance``, an ended one
        gives way to the next task's (None when the queue is done)."""
        if player.episode is not None and player.episode.done and advance:
            player.position += 1
            player.episode = None
        if player.episode is None and player.position < self.count:
            world, family = self.players.tasks[player.position]
            player.episode = await self.players.blocking(
                self.players.episodes.open, player.client, world, family)
            player.shown_phase = None
        return player.episode

    def _ended(self, player: Player) -> CallToolResult:
        left = self.count - player.position - 1
        outcome = player.episode.outcome if player.episode is not None else None
        failed = outcome is not None and outcome.status != "done"
        how = "has ended and is recorded"
        if outcome is not None and failed:
            how = (f"could not be played to its end ({outcome.status}: {outcome.error}); it is "
                   f"recorded, unscored")
        text = (f"The episode of task {player.position + 1} of {self.count} {how}. "
                + (f"{left} more task{'s' if left != 1 else ''}: call observe to begin the "
                   f"next one." if left else "That was the last task: there is nothing more "
                                             "to play."))
        return _result(text, {**self._where(player), "done": True, "more": left > 0},
                       error=failed)

    def _shown(self, player: Player, turn: Turn, *, instructions: bool = False,
               error: str | None = None) -> CallToolResult:
        obs = turn.observation
        if turn.ended or obs is None:   # an episode that asks no action has ended (Turn)
            ended = self._ended(player)
            if error is None:
                return ended
            return _result(f"Your last action was invalid: {error}\n\n{text_of(ended)}",
                           {**ended.structured_content, "invalid": error}, error=True)
        first = player.shown_phase is None
        begun = instructions or obs.phase != player.shown_phase
        player.shown_phase = obs.phase
        text = observation_text(obs, instructions=begun)
        if first:   # the episode's first observation: what the agent is and does
            text = (f"Task {player.position + 1} of {self.count}.\n\n"
                    f"{briefing(obs)}\n\n{text}")
        if error is not None and error != obs.invalid:   # the action ended its phase
            text = f"Your last action was invalid: {error}\n\n{text}"
        data = {**self._where(player), "done": False, "phase": obs.phase, "step": obs.step,
                "budget_left": obs.budget_left, "valid_actions": valid_actions(obs),
                "invalid": error if error is not None else obs.invalid}
        return _result(text, data, error=error is not None)

    async def _session(self, ctx: Context) -> Player:
        return self.players.get(_session_key(ctx), _client_of(ctx))

    async def observe(self, ctx: Context, instructions: bool) -> CallToolResult:
        player = await self._session(ctx)
        async with player.lock:
            episode = await self._episode(player, advance=True)
            if episode is None:
                return self._ended_queue(player)
            turn = await self.players.blocking(episode.turn)
            return self._shown(player, turn, instructions=instructions)

    def _ended_queue(self, player: Player) -> CallToolResult:
        return _result(f"All {self.count} task{'s' if self.count != 1 else ''} have been "
                       f"played: there is nothing more to play.",
                       {**self._where(player), "done": True, "more": False})

    async def act(self, ctx: Context, action: str) -> CallToolResult:
        player = await self._session(ctx)
        async with player.lock:
            episode = await self._episode(player, advance=False)
            if episode is None:
                ended = self._ended_queue(player)
                return _result(f"No action was taken. {text_of(ended)}",
                               ended.structured_content, error=True)
            if episode.done:
                ended = self._ended(player)
                return _result(f"No action was taken. {text_of(ended)}",
                               ended.structured_content, error=True)
            before, turn = await self.players.blocking(episode.act, action)
            return self._shown(player, turn, error=_invalid(before, turn, action))

    async def valid(self, ctx: Context) -> CallToolResult:
        player = await self._session(ctx)
        async with player.lock:
            episode = await self._episode(player, advance=False)
            if episode is None:
                return self._ended_queue(player)
            turn = await self.players.blocking(episode.turn)
            if turn.ended:
                return self._ended(player)
            forms = valid_actions(turn.observation)
            text = "Valid actions now:\n" + "\n".join(f"- `{f}`" for f in forms)
            return _result(text, {**self._where(player), "done": False,
                                  "phase": turn.observation.phase, "valid_actions": forms})


async def _call(body) -> CallToolResult:
    """Run a tool body; what cannot be served is the tool's error result, never a crash."""
    try:
        return await body()
    except (_Refused, EpisodeBusy, TooManyEpisodes, HumanInputError) as exc:
        return _result(str(exc), {"error": str(exc)}, error=True)
    except LlmEvalError as exc:   # a task that cannot be played, a store that failed
        return _result(f"the server could not serve this call: {exc}", {"error": str(exc)},
                       error=True)


async def _handshake_only(ctx, call_next):
    """Middleware: ``server/discover`` is not served, so clients make the ``initialize``
    handshake (sessions; module docstring)."""
    if ctx.method == "server/discover":
        raise MCPError(code=METHOD_NOT_FOUND, message="server/discover is not served: this "
                       "server plays one episode per session; use the initialize handshake")
    return await call_next(ctx)


def build_server(players: Players) -> MCPServer:
    """The MCP server whose tools play ``players``' tasks (module docstring)."""
    from .. import __version__

    server = MCPServer(SERVER_NAME, version=__version__, instructions=_INSTRUCTIONS,
                       log_level="WARNING")
    server.middleware.append(_handshake_only)
    tools = _Tools(players)
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    acting = ToolAnnotations(read_only_hint=False, destructive_hint=False,
                             idempotent_hint=False, open_world_hint=False)

    @server.tool(annotations=read_only)
    async def observe(ctx: Context, instructions: bool = False) -> CallToolResult:
        """Show the current observation: where the episode is, the frame, and the actions
        valid now (with the phase's instructions when a phase begins, or when
        instructions is true). After an episode has ended, begins the next task."""
        return await _call(lambda: tools.observe(ctx, instructions))

    @server.tool(annotations=acting)
    async def act(ctx: Context, action: str) -> CallToolResult:
        """Take one action, written exactly as the valid actions list it, e.g. `click 3 4`,
        `left`, `noop`, `watch 2`, `choose 1`, `declare`, `submit 5`. Returns the next
        observation; an invalid action comes back as an error and is counted."""
        return await _call(lambda: tools.act(ctx, action))

    @server.tool(annotations=acting)
    async def reset(ctx: Context) -> CallToolResult:
        """Restart the world from its initial state (the action `reset`: allowed in the
        interaction phase and in change detection; it uses one action of the budget)."""
        return await _call(lambda: tools.act(ctx, "reset"))

    @server.tool(annotations=acting)
    async def go_to_test(ctx: Context) -> CallToolResult:
        """End the interaction phase and start the test at once (the action `go-to-test`)."""
        return await _call(lambda: tools.act(ctx, "go-to-test"))

    @server.tool(name="valid_actions", annotations=read_only)
    async def valid_actions_tool(ctx: Context) -> CallToolResult:
        """List the actions valid now, with their argument ranges."""
        return await _call(lambda: tools.valid(ctx))

    return server


class SessionEnds:
    """ASGI middleware around the streamable HTTP app: a session the client ended (a
    ``DELETE`` the SDK accepted) abandons its player's unfinished episode."""

    def __init__(self, app, players: Players) -> None:
        self.app = app
        self.players = players

    async def __call__(self, scope, receive, send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "DELETE":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        key = headers.get(SESSION_HEADER)
        status: list[int] = []

        async def sent(message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        await self.app(scope, receive, sent)
        if key and status and 200 <= status[0] < 300:
            self.players.end(key)
