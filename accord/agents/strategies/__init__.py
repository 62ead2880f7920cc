"""The built-in strategies by name (spec/agents.md, Strategies)."""

from accord.agents.strategies.accord import accord
from accord.agents.strategies.base import Factory, Randomness, Response, SeatView, Strategy
from accord.agents.strategies.micro import micro
from accord.agents.strategies.time_based import boulware, conceder, linear
from accord.agents.strategies.tit_for_tat import tit_for_tat

STRATEGIES: dict[str, Factory] = {
    "accord": accord,
    "boulware": boulware,
    "linear": linear,
    "conceder": conceder,
    "tit_for_tat": tit_for_tat,
    "micro": micro,
}
DEFAULT = "accord"

__all__ = ["DEFAULT", "STRATEGIES", "Factory", "Randomness", "Response", "SeatView", "Strategy"]
