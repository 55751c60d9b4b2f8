"""The tmux server itself: whether it runs, its version, and its format variables."""

from __future__ import annotations

from ...errors import InvalidArgument
from ...generated.swift.models.get_server_info import GetServerInfoInput, GetServerInfoOutput
from ...generated.swift.models.get_tmux_variables import (
    GetTmuxVariablesInput,
    GetTmuxVariablesOutput,
)
from ..tmux.errors import NoServer
from ..tmux.objects.server import Server
from ..tmux.transport.formats import SEP, counts_clients, parse_rows
from .lookup import Lookups, given

# Format variables that count clients, recomputed without this process's own clients
# (output clients of waits in progress included).
CLIENT_COUNTS = frozenset(
    {
        "session_attached",
        "session_many_attached",
        "session_attached_list",
        "window_active_clients",
        "window_active_clients_list",
    }
)


class ServerInfo:
    def __init__(self, lookups: Lookups) -> None:
        self.lookups = lookups

    async def get_server_info(self, params: GetServerInfoInput) -> GetServerInfoOutput:
        server = self.lookups().server
        try:
            lines = await server.run("display-message", "-p", "#{version}")
        except NoServer:
            return GetServerInfoOutput.model_validate(
                {"running": False, "socketPath": server.socket.path}
            )
        version = lines[0] if lines else ""
        return GetServerInfoOutput.model_validate(
            {"running": True, "version": version, "socketPath": server.socket.path}
        )

    async def get_tmux_variables(self, params: GetTmuxVariablesInput) -> GetTmuxVariablesOutput:
        names = [name.root for name in params.names]
        if not names:
            raise InvalidArgument("names", names, "is empty", "Pass 1 to 32 format variable names.")
        lookup = self.lookups()
        server = lookup.server
        pane = given(params.paneId)
        fields = ("pane_id", "pane_active", *names)
        fmt = SEP.join(f"#{{{name}}}" for name in fields)  # names passed the schema's pattern
        # list-panes, not display-message: the format then never sees a client, so
        # nothing depends on which transport (or whose control client) asked. A variable
        # counting clients is read with this process's clients detached.
        run = server.run_unattached if counts_clients(fmt) else server.run
        if pane is not None:
            target = (await lookup.pane(pane)).pane_id
            rows = parse_rows(await run("list-panes", "-t", target, "-F", fmt), fields)
            values = next((r for r in rows if r["pane_id"] == target), {})
        else:
            sessions = await server.list_sessions()
            if sessions:
                scope = ("-t", sessions[0].session_id)
                rows = parse_rows(await run("list-panes", *scope, "-F", fmt), fields)
                values = next((r for r in rows if r["pane_active"] == "1"), {})
            else:
                lines = await server.run("display-message", "-p", fmt)
                values = next(iter(parse_rows(lines, fields)), {})
        if CLIENT_COUNTS.intersection(names) and values.get("pane_id"):
            values.update(await client_counts(server, values["pane_id"]))
        return GetTmuxVariablesOutput.model_validate(
            {"values": {name: values.get(name) or None for name in names}}
        )


async def client_counts(server: Server, pane_id: str) -> dict[str, str]:
    """The client-counting variables recomputed without this process's own clients."""
    row = await server.pane(pane_id).display_message()
    if row is None:
        return {}
    clients = await server.list_clients()
    in_session = [c for c in clients if c.session_id == row.session_id]
    on_window = [c for c in clients if c.window_id == row.window_id]
    return {
        "session_attached": str(len(in_session)),
        "session_many_attached": "1" if len(in_session) > 1 else "0",
        "session_attached_list": ",".join(c.name for c in in_session),
        "window_active_clients": str(len(on_window)),
        "window_active_clients_list": ",".join(c.name for c in on_window),
    }
