"""The door's three servers, one per tool set: *rooms* (no bearer, a seat or invite token),
*shop* (a publishable key or a session token) and *principal* (a principal's agent key: its
intents, introductions and adviser cases, and rooms)."""

from collections.abc import Callable
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer
from mcp_types import SubscriptionsListenRequestParams

from accord import __version__
from accord.app.identity import (
    Caller,
    InviteCaller,
    MerchantCaller,
    PrincipalCaller,
    SeatCaller,
    SessionCaller,
)
from accord.app.root import Accord
from accord.mcp import common, principal, rooms, shop
from accord.mcp.arguments import DoorServer
from accord.mcp.context import Door
from accord.mcp.subscriptions import Listen


@dataclass(frozen=True)
class Servers:
    rooms: MCPServer
    shop: MCPServer
    principal: MCPServer

    def all(self) -> tuple[MCPServer, ...]:
        return (self.rooms, self.shop, self.principal)

    def for_caller(self, caller: Caller | None) -> MCPServer:
        """The tool set a bearer is served (once it has passed the agent door)."""
        match caller:
            case None | SeatCaller() | InviteCaller():
                return self.rooms
            case SessionCaller() | MerchantCaller():
                return self.shop
            case PrincipalCaller():
                return self.principal
        raise ValueError(f"no tool set for {caller!r}")


def build(accord: Callable[[], Accord], *, token: str | None = None) -> Servers:
    """The three servers over one application; `token` is the bearer of a process (stdio)."""
    door = Door(accord, token)

    def server(name: str, tables: tuple[str, ...]) -> MCPServer:
        made = DoorServer(
            f"accord-{name}",
            title=f"Accord ({name})",
            instructions=common.INSTRUCTIONS,
            version=__version__,
            website_url=None,
        )
        common.install(made, door, tables=tables)
        # MCPServer serves listen streams from an in-process bus it publishes to; Accord's
        # follow the bearer's own audience instead, so its handler takes the method's place
        # (the lowlevel server's documented way: `add_request_handler`).
        made._lowlevel_server.add_request_handler(
            "subscriptions/listen", SubscriptionsListenRequestParams, Listen(door)
        )
        return made

    rooms_server = server("rooms", ("rooms",))
    rooms.install(rooms_server, door)
    shop_server = server("shop", ("shop",))
    shop.install(shop_server, door)
    principal_server = server("principal", ("intro", "rooms"))
    principal.install(principal_server, door)
    rooms.install(principal_server, door)
    return Servers(rooms_server, shop_server, principal_server)
