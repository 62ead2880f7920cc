"""The composition root: every service of one Accord process, built once from its settings
and clock, for the HTTP app, the CLI and tests alike."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from accord.app.adviser import Adviser
from accord.app.adviser_links import AdviserLinks
from accord.app.adviser_skills import AdviserSkills
from accord.app.channels import Channels
from accord.app.doors import Doors
from accord.app.events import Events
from accord.app.index import IntentIndex
from accord.app.intents import IntentHooks, Intents
from accord.app.intro_agent import IntroAgent
from accord.app.intro_follow import IntroFollow
from accord.app.keys import KeyService
from accord.app.links import Links
from accord.app.llm import chat_model
from accord.app.merchants import Merchants
from accord.app.negotiations import Ended, Negotiations
from accord.app.opportunities import Opportunities
from accord.app.principals import Principals
from accord.app.rooms import Rooms
from accord.app.sessions import Sessions
from accord.app.settings import Settings
from accord.app.webhook_delivery import WebhookDelivery
from accord.app.webhooks import Webhooks
from accord.core.protocol import Table
from accord.protocols.arbitrated.state import PROTOCOL as ARBITRATED
from accord.protocols.arbitrated.table import ArbitratedTable
from accord.protocols.intro.state import PROTOCOL as INTRO
from accord.protocols.intro.table import IntroTable
from accord.protocols.registry import REGISTRY, TableFactory, build_tables
from accord.protocols.rooms.state import PROTOCOL as ROOMS
from accord.protocols.rooms.table import RoomsTable
from accord.store.database import Database
from accord.trust.keys import Keys


@dataclass(frozen=True)
class Swept:
    ended: Sequence[Ended]
    """Negotiations that expired or closed, each with the envelope that ended it."""
    opportunities_expired: Sequence[str]
    """Opportunities that stayed `pending` too long."""

    def __len__(self) -> int:
        return len(self.ended) + len(self.opportunities_expired)


def utc_now() -> datetime:
    return datetime.now(UTC)


class Accord:
    """`db` and `keys` may be shared between several roots (tests run two processes' worth of
    services on one store); `registry` adds or replaces tables."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = utc_now,
        db: Database | None = None,
        keys: Keys | None = None,
        registry: Mapping[str, TableFactory] = REGISTRY,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self._owns_db = db is None
        self.db = Database(settings.database) if db is None else db
        self.keys = KeyService(settings, clock=clock, keys=keys)
        self.events = Events(self.db)
        self.notifier = self.events.notifier
        self.tables: dict[str, Table[Any]] = build_tables(settings.table_settings, registry)
        self.negotiations = Negotiations(
            self.db,
            self.tables,
            settings,
            clock=clock,
            keys=self.keys,
            notifier=self.notifier,
        )
        self.merchants = Merchants(self.db, settings, clock=clock)
        self.principals = Principals(self.db, clock=clock)
        self.index = IntentIndex(
            self.db, ranking=settings.ranking, mutual_threshold=settings.mutual_threshold
        )
        self.notifier.subscribe(self.index.heard, self.index.follows)
        intro = cast(IntroTable, self.tables[INTRO])
        follow = IntroFollow(self.negotiations, intro, self.index, clock=clock)
        self.intents = Intents(
            self.db,
            clock=clock,
            index=self.index,
            hooks=IntentHooks(edited=follow.edited, owner_wrote=follow.owner_wrote),
            write=self.negotiations.write,
        )
        self.opportunities = Opportunities(self.negotiations, intro, self.index, clock=clock)
        model = chat_model(settings)
        self.intro_agent = IntroAgent(
            self.db, self.opportunities, self.principals, self.intents, model=model
        )
        self.opportunities.follow = self.intro_agent.follow
        self.intents.committed = self.intro_agent.follow_intent
        self.principals.selected = self.intro_agent.follow_principal
        self.adviser = Adviser(self.db, self.negotiations, clock=clock)
        self.adviser_links = AdviserLinks(self.adviser, self.db)
        self.adviser_skills = AdviserSkills(self.adviser, self.adviser_links, model=model)
        self.adviser.catch_up = self.adviser_links.catch_up
        self.adviser_links.changed = self.notifier.subscribe(
            self.adviser_links.heard, self.adviser_links.follows
        )
        self.links = Links(self.db, settings, clock=clock)
        self.doors = Doors(self.db.read)
        self.telegram = (
            Channels(self.db, self.links, "telegram", settings.telegram_token, clock=clock)
            if settings.telegram_token
            else None
        )
        """The chats linked to the Telegram bot, when it is on."""
        self.rooms = Rooms(
            self.negotiations, cast(RoomsTable, self.tables[ROOMS]), settings, links=self.links
        )
        self.sessions = Sessions(
            self.negotiations,
            cast(ArbitratedTable, self.tables[ARBITRATED]),
            settings,
            merchants=self.merchants,
        )
        self.webhooks = Webhooks(self.db, settings, clock=clock)
        self.webhook_delivery = WebhookDelivery(self.db, self.keys, settings, clock=clock)
        self.webhooks.wake = self.webhook_delivery.wake
        self.webhook_delivery.changed = self.notifier.subscribe(
            self.webhook_delivery.heard, self.webhook_delivery.follows
        )

    def sweep(self) -> "Swept":
        """Every expiry that is due: negotiations (each table's own), then introductions
        that waited on their people past `--pending-ttl`; then the `accord` agent's turns
        in the introductions still under way, and the adviser cases following a table."""
        ended = self.negotiations.sweep()
        swept = Swept(ended, self.opportunities.expire_pending(self.settings.pending_ttl))
        self.intro_agent.follow_open()
        self.adviser_links.follow()
        return swept

    def close(self) -> None:
        if self._owns_db:
            self.db.close()
