"""What a linked chat can read and do, as calls of the application layer with the credential the
chat holds (interfaces A4). Synchronous, like the services; the bot runs each in a thread.

Nothing here decides: the service refuses what the credential may not do, and its refusal's
message is what the person reads."""

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any, Literal

from aiogram.types import InlineKeyboardButton

from accord.app.channels import Binding, Channels
from accord.app.identity import PrincipalCaller, SeatCaller, SessionCaller
from accord.app.root import Accord
from accord.core.refusals import RefusalCode, Refused, refuse
from accord.protocols.intro.moves import AnswerRequest
from accord.protocols.intro.opportunities import DecisionInput
from accord.protocols.rooms.moves import ConfirmRequest
from accord.telegram import messages
from accord.telegram.messages import Asked, ConfirmTap, DecisionTap, OptionTap, Reply

JSONBody = dict[str, Any]


@dataclass(frozen=True)
class Tapped:
    """A button's outcome: the short notice Telegram shows, and what the message becomes."""

    notice: str
    reply: Reply


@dataclass(frozen=True)
class Replied:
    """A reply's outcome: what the chat is told, and whether the question is no longer open
    (its message then keeps only its Open button)."""

    reply: Reply
    settled: bool = False


class Chat:
    def __init__(self, accord: Callable[[], Accord]) -> None:
        self._accord = accord

    @property
    def channels(self) -> Channels:
        channels = self._accord().telegram
        assert channels is not None, "the Telegram door runs only with a bot token"
        return channels

    @property
    def base_url(self) -> str:
        return self._accord().settings.base_url

    # -- linking ----------------------------------------------------------------------------

    def link(self, chat_id: str, code: str) -> list[Reply]:
        """Bind the chat with the code; then what it now follows, and what waits."""
        binding = self.channels.bind(chat_id, code)
        what = self.describe(binding)
        first = Reply(messages.linked(what))
        return [first, *self.state(binding), *self.waiting(binding)]

    def describe(self, binding: Binding) -> str:
        match binding.caller:
            case SeatCaller():
                return str(self._room(binding)["name"])
            case SessionCaller():
                return "Your purchase session"
            case PrincipalCaller():
                return "Your principal"
        raise AssertionError(binding.caller)

    def state(self, binding: Binding) -> list[Reply]:
        match binding.caller:
            case SeatCaller():
                return [messages.room(self._room(binding), self.base_url)]
            case SessionCaller(negotiation_id=session_id):
                url = f"{self.base_url}/sessions/{session_id}"
                return [messages.one_line("Purchase updates come here.", url)]
            case PrincipalCaller():
                url = f"{self.base_url}/opportunities"
                return [messages.one_line("Introductions and your adviser's news come here.", url)]
        raise AssertionError(binding.caller)

    def unlink_choices(self, chat_id: str) -> Reply:
        held = self.channels.held(chat_id)
        return messages.unlink_choices([(b.id, self.describe_safely(b)) for b in held])

    def unlink(self, chat_id: str, binding_id: str) -> Tapped:
        try:
            binding = self.channels.unlink(chat_id, binding_id)
        except Refused as refused:
            return Tapped(refused.refusal.message, Reply(escape(refused.refusal.message)))
        text = f"{self.describe_safely(binding)} is unlinked from this chat."
        return Tapped("Unlinked.", Reply(escape(text)))

    def describe_safely(self, binding: Binding) -> str:
        """Its name, or what it is when its credential no longer opens it."""
        try:
            return self.describe(binding)
        except Refused:
            return f"{binding.caller.kind} {getattr(binding.caller, 'negotiation_id', '')}".strip()

    # -- reading -----------------------------------------------------------------------------

    def rooms(self, chat_id: str) -> Reply:
        lines = []
        for binding in self.channels.held(chat_id):
            if isinstance(binding.caller, SeatCaller):
                room = self._room(binding)
                line = f"<b>{escape(room['name'])}</b>: {messages.room_state(room)}"
                if room.get("deadline"):
                    line += f" Deadline {escape(room['deadline'])}."
                lines.append(line)
        if not lines:
            return Reply("This chat follows no room. Link one from its page: Connect Telegram.")
        return Reply("\n".join(lines))

    def pending(self, chat_id: str) -> list[Reply]:
        replies = [r for b in self.channels.held(chat_id) for r in self.waiting(b)]
        return replies or [Reply("Nothing waits for you.")]

    def waiting(self, binding: Binding) -> list[Reply]:
        """Every confirmation and decision waiting for the person, with its buttons."""
        accord = self._accord()
        match binding.caller:
            case SeatCaller(negotiation_id=room_id):
                room = self._room(binding)
                asked = accord.rooms.pending(binding.token, room_id)["confirmations"]
                return [messages.confirmation(room, one) for one in asked]
            case PrincipalCaller():
                caller = self._principal(binding)
                service = accord.opportunities
                replies = []
                for opp in service.list_seated(caller, "pending", None)["opportunities"]:
                    if opp["decisions"]["yours"] is None:
                        whole = service.get(caller, opp["opportunity_id"])
                        replies.append(messages.opportunity(whole, self.base_url))
                # asked while the agents talk or after; each is recorded once sent, so that a
                # reply to it answers it
                for asked in service.open_questions(caller)["questions"]:
                    opp_id = asked["opportunity_id"]
                    replies.append(messages.question(binding.id, opp_id, asked, self.base_url))
                return replies
        return []

    def web(self, chat_id: str) -> Reply:
        """A one-time link per credential the chat holds, to open it in a browser."""
        rows = []
        for binding in self.channels.held(chat_id):
            made = self._accord().links.mint(binding.token)
            rows.append([InlineKeyboardButton(
                text=f"Open {self.describe_safely(binding)}", url=made["web_url"]
            )])  # fmt: skip
        if not rows:
            return Reply("This chat follows nothing yet.")
        return Reply("Each link opens once, within the hour; keep them to yourself.", rows)

    # -- buttons -----------------------------------------------------------------------------

    def confirm(self, chat_id: str, tap: ConfirmTap) -> Tapped:
        binding = self.channels.holding(chat_id, tap.room_id)
        decision: Literal["confirm", "decline"] = "confirm" if tap.answer == "y" else "decline"
        try:
            answered = self._accord().rooms.confirm(
                binding.token, tap.room_id, tap.confirmation_id, ConfirmRequest(decision=decision)
            )
        except Refused as refused:
            room = self._room(binding)
            heading = f"This cannot be done now: {escape(refused.refusal.message)}"
            reply = messages.room(room, self.base_url, heading=heading)
            return Tapped(refused.refusal.message, reply)
        said = "✅ You confirmed." if decision == "confirm" else "✖ You declined."
        room = answered["room"]
        return Tapped(said, messages.room(room, self.base_url, heading=said))

    def decide(self, chat_id: str, tap: DecisionTap) -> Tapped:
        service = self._accord().opportunities
        caller = self._party_to(chat_id, tap.opportunity_id)
        status = "accepted" if tap.answer == "a" else "rejected"
        try:
            service.decide(caller, tap.opportunity_id, DecisionInput(status=status))
        except Refused as refused:
            whole = service.get(caller, tap.opportunity_id)
            return Tapped(refused.refusal.message, messages.opportunity(whole, self.base_url))
        said = "You accepted the introduction." if status == "accepted" else "You passed."
        url = f"{self.base_url}/opportunities/{tap.opportunity_id}"
        return Tapped(said, messages.one_line(said, url))

    def answer(self, chat_id: str, tap: OptionTap, shown_in: int | None = None) -> Tapped:
        """An option tapped on message `shown_in`: answered with the binding that message was
        sent for, as a reply is (a chat may hold several principals)."""
        sent = self.channels.question_message(chat_id, shown_in) if shown_in is not None else None
        sent_for = None
        tapped = (tap.opportunity_id, tap.question_id)
        if sent is not None and (sent.opportunity_id, sent.question_id) == tapped:
            sent_for = sent.binding_id  # a message showing another question names no one here
        binding = self._asking(chat_id, sent_for)

        def option(question: JSONBody | None) -> str:
            options = (question or {}).get("options") or []
            if question is None or not 0 <= tap.option < len(options):
                raise refuse(RefusalCode.NOT_FOUND, "Your agent asked no such question.")
            return str(options[tap.option])

        notice, reply, _ = self._answer(binding, tap.opportunity_id, tap.question_id, option)
        return Tapped(notice, reply)

    # -- replies -----------------------------------------------------------------------------

    def record(self, chat_id: str, message_id: int, asks: Asked) -> None:
        """Remember which question a message sent to the chat shows (see `answer_in_words`)."""
        self.channels.record_question(
            chat_id, message_id, asks.binding_id, asks.opportunity_id, asks.question_id
        )

    def answer_in_words(self, chat_id: str, replied_to: int, text: str | None) -> Replied:
        """A reply to a question's message: its text answers that question, as the web page's
        form does.

        Which question is known from the message replied to, never from what the person
        types: Telegram names that message (`reply_to_message`, its id within this chat), and
        the bot recorded each question message's id when Telegram answered the send
        (`record`). The record is in the store, so a restart forgets nothing, and an id is
        only looked up within the chat it was sent to. A reply to any other message answers
        nothing. The credential that answers is the binding the question was sent for, or
        the chat's principal binding once that one ended (the person linked again); the
        service checks it, as it does a tap's."""
        sent = self.channels.question_message(chat_id, replied_to)
        if sent is None:
            return Replied(Reply(messages.NOT_A_QUESTION))
        if not text:
            return Replied(Reply(messages.TEXT_ONLY))
        url = f"{self.base_url}/opportunities/{sent.opportunity_id}"
        try:
            binding = self._asking(chat_id, sent.binding_id)
        except Refused as refused:
            return Replied(messages.one_line(escape(refused.refusal.message), url))
        _, reply, settled = self._answer(
            binding, sent.opportunity_id, sent.question_id, lambda _question: text
        )
        return Replied(reply, settled)

    def _party_to(self, chat_id: str, opportunity_id: str) -> PrincipalCaller:
        """Which of the chat's principals decides an introduction: the one the service shows
        it to (a chat may hold several); else the first, whose refusal is then the answer."""
        service = self._accord().opportunities
        for binding in self.channels.held(chat_id):
            if not isinstance(binding.caller, PrincipalCaller):
                continue
            try:
                caller = self._principal(binding)  # a replaced key opens nothing
                service.get(caller, opportunity_id)
            except Refused:
                continue
            return caller
        return self._principal(self.channels.holding_principal(chat_id))

    def _asking(self, chat_id: str, sent_for: str | None) -> Binding:
        """Who answers a question's message: the binding it was sent for while the chat holds
        it, else the chat's principal binding (a message not recorded, or the person linked
        again)."""
        for binding in self.channels.held(chat_id):
            if binding.id == sent_for:
                return binding
        return self.channels.holding_principal(chat_id)

    def _answer(
        self,
        binding: Binding,
        opportunity_id: str,
        question_id: str,
        choose: Callable[[JSONBody | None], str],
    ) -> tuple[str, Reply, bool]:
        """One answer through the service with the binding's credential: the notice, what the
        chat is told, and whether the question is no longer open. `choose` makes the answer
        from the question as the credential sees it (None: it sees no such question)."""
        url = f"{self.base_url}/opportunities/{opportunity_id}"
        question: JSONBody | None = None
        try:
            caller = self._principal(binding)
            service = self._accord().opportunities
            listed = service.questions(caller, opportunity_id)["questions"]
            question = next((q for q in listed if q["question_id"] == question_id), None)
            chosen = choose(question)
            service.answer(caller, opportunity_id, question_id, AnswerRequest(answer=chosen))
        except Refused as refused:
            text = escape(refused.refusal.message)
            settled = question is not None and question["status"] != "open"
            if question is not None and settled:  # stale: the question as it stands now
                text += f"\n{escape(messages.question_now(question))}"
            return refused.refusal.message, messages.one_line(text, url), settled
        said = f"You answered: {chosen}"
        return said, messages.one_line(escape(said), url), True

    # -- notifications -----------------------------------------------------------------------

    def notification(self, binding: Binding, kind: str, event: JSONBody) -> list[Reply]:
        """What the chat is told of one event of its audience (nothing for most)."""
        if kind == "envelope":
            if isinstance(binding.caller, SessionCaller):
                found = messages.session_event(
                    event.get("type", ""), binding.caller.negotiation_id, self.base_url
                )
                return [found] if found else []
            return []
        kind = event.get("type", "")
        match binding.caller:
            case SeatCaller(negotiation_id=room_id):
                if kind == "confirmation_needed":
                    asked = self._accord().rooms.pending(binding.token, room_id)["confirmations"]
                    room = self._room(binding)
                    return [
                        messages.confirmation(room, one)
                        for one in asked
                        if one["id"] == event.get("confirmation_id")
                    ]
                if kind in messages.ROOM_EVENTS:
                    return [messages.room_event(event, self._room(binding), self.base_url)]
            case PrincipalCaller():
                return self._principal_notification(binding, kind, event)
        return []

    def _principal_notification(self, binding: Binding, kind: str, event: JSONBody) -> list[Reply]:
        if kind.startswith("adviser."):
            found = messages.adviser_event(event, self.base_url)
            return [found] if found else []
        caller = self._principal(binding)
        service = self._accord().opportunities
        if kind == "opportunity.changed" and event.get("status") == "pending":
            whole = service.get(caller, event["opportunity_id"])
            if whole["opportunity"]["status"] == "pending":
                return [messages.opportunity(whole, self.base_url)]
        if kind == "questions.asked":
            opportunity_id = event["opportunity_id"]
            ids = event.get("question_ids")
            found = service.open_questions(caller, opportunity_id)["questions"]
            return [
                messages.question(binding.id, opportunity_id, q, self.base_url)
                for q in found
                if ids is None or q["question_id"] in ids
            ]
        return []

    # -- the credential's own views ---------------------------------------------------------------

    def _room(self, binding: Binding) -> JSONBody:
        assert isinstance(binding.caller, SeatCaller)
        return self._accord().rooms.show(binding.token, binding.caller.negotiation_id)

    def _principal(self, binding: Binding) -> PrincipalCaller:
        """The principal as its key resolves now (a replaced key opens nothing)."""
        caller = self._accord().doors.identify(binding.token)
        if not isinstance(caller, PrincipalCaller):
            raise refuse(RefusalCode.UNAUTHENTICATED, "This link no longer opens anything.")
        return caller
