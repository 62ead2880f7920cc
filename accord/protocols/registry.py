"""The tables Accord serves: one line each. The kernel, `accord check`, the sweeper, receipts
and the in-process engine all read this registry."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from accord.core.protocol import Table
from accord.protocols.arbitrated.state import PROTOCOL as ARBITRATED
from accord.protocols.arbitrated.table import ArbitratedTable
from accord.protocols.intro.state import PROTOCOL as INTRO
from accord.protocols.intro.table import IntroTable
from accord.protocols.rooms.state import PROTOCOL as ROOMS
from accord.protocols.rooms.state import RoomPolicy
from accord.protocols.rooms.table import RoomsTable


@dataclass(frozen=True)
class TableSettings:
    """What an operator sets that a table reads (DESIGN.md, Configuration)."""

    base_url: str = "http://127.0.0.1:8000"
    invite_ttl_seconds: int = 259_200
    idle_ttl_seconds: int = 604_800


TableFactory = Callable[[TableSettings], Table[Any]]

REGISTRY: Final[Mapping[str, TableFactory]] = {
    ROOMS: lambda s: RoomsTable(
        RoomPolicy(s.invite_ttl_seconds, s.idle_ttl_seconds), base_url=s.base_url
    ),
    ARBITRATED: lambda s: ArbitratedTable(base_url=s.base_url),
    INTRO: lambda s: IntroTable(),
}


def build_tables(
    settings: TableSettings, registry: Mapping[str, TableFactory] = REGISTRY
) -> dict[str, Table[Any]]:
    tables = {name: make(settings) for name, make in registry.items()}
    assert all(name == table.name for name, table in tables.items()), "a table under its name"
    return tables
