"""What the bot says, from the application layer's views: HTML with every value escaped, and the
buttons. Pure: a view in, a `Reply` out.

Terms are shown field by field, each one outside the person's limits marked, never a limit's
value. Counterparty text (a move's message, a statement) is quoted as data."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any, Final, Literal

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from accord.protocols.rooms.words import MOVE_WORDS, format_value

OUTSIDE: Final = "⚠ outside your limits"
FINAL_ROOM: Final = frozenset({"agreed", "closed", "expired"})
INVALID_LINK: Final = "This link cannot be used; make a new one from the room page."
PRIVATE_ONLY: Final = "I work in private chats only: open a chat with me to link."
HELP: Final = (
    "I tell you when your agent needs you, and you answer here.\n\n"
    "/rooms: the rooms this chat follows\n"
    "/pending: everything waiting for your decision\n"
    "/web: a link that opens this on the web\n"
    "/unlink: stop following a room or a principal\n"
    "/help: this text\n\n"
    "To answer your agent's question in your own words, reply to its message.\n\n"
    "To link, open a link from a room's page (Connect Telegram), or run "
    "<code>accord rooms link ROOM</code>."
)
REPLY_TO_ANSWER: Final = "Reply to this message to answer in your own words."
NOT_A_QUESTION: Final = (
    "That message is not one of your agent's questions. To answer a question in your own "
    "words, reply to the question's message (❓)."
)
NOT_UNDERSTOOD: Final = (
    "I answer commands, buttons and replies to your agent's questions; /help lists them."
)
TEXT_ONLY: Final = "Answer in text: reply to the question's message with your answer."
ROOM_EVENTS: Final = frozenset(
    {
        "confirmation_needed",
        "your_turn",
        "deadline_changed",
        "limits_incompatible",
        "circling",
        "agreed",
        "closed",
        "expired",
    }
)


class ConfirmTap(CallbackData, prefix="cf"):
    """✅ or ✖ on a confirmation the agent asked for."""

    room_id: str
    confirmation_id: str
    answer: Literal["y", "n"]


class DecisionTap(CallbackData, prefix="op"):
    """Accept introduction or Pass."""

    opportunity_id: str
    answer: Literal["a", "p"]


class OptionTap(CallbackData, prefix="qa"):
    """One of a question's options."""

    opportunity_id: str
    question_id: str
    option: int


class UnlinkTap(CallbackData, prefix="ul"):
    binding_id: str


@dataclass(frozen=True)
class Asked:
    """The agent's question a message shows, recorded with the message's id once sent, so that
    a reply to that message answers it."""

    binding_id: str
    opportunity_id: str
    question_id: str


@dataclass(frozen=True)
class Reply:
    text: str
    buttons: Sequence[Sequence[InlineKeyboardButton]] = field(default=())
    asks: Asked | None = None

    @property
    def markup(self) -> InlineKeyboardMarkup | None:
        if not self.buttons:
            return None
        return InlineKeyboardMarkup(inline_keyboard=[list(row) for row in self.buttons])


def _url(text: str, url: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, url=url)


def _tap(text: str, data: CallbackData) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=data.pack())


def quote(text: str) -> str:
    return f"<blockquote>{escape(text)}</blockquote>"


# -- rooms ------------------------------------------------------------------------------------


def room_state(room: Mapping[str, Any]) -> str:
    state = room["state"]
    if state in FINAL_ROOM:
        return f"The room is {state}."
    if room.get("pending_confirmation"):
        return "Your agent asks you to confirm."
    if state == "draft":
        return "Waiting for the other side to join."
    return "Your turn." if room.get("your_turn") else "Waiting for them."


def terms_lines(
    schema: Mapping[str, Any], terms: Mapping[str, Any] | None, outside: Sequence[str]
) -> list[str]:
    """The terms field by field, in the schema's order, each outside the limits marked."""
    if not terms:
        return ["Nothing is on the table yet."]
    names = [n for n in schema if n in terms] + [n for n in terms if n not in schema]
    lines = []
    for name in names:
        value = escape(format_value(schema.get(name), terms[name]))
        mark = f"  {OUTSIDE}" if name in outside else ""
        lines.append(f"• <b>{escape(name)}</b>: {value}{mark}")
    return lines


def room_text(room: Mapping[str, Any], *, heading: str | None = None) -> str:
    """The room as its owner sees it: where it stands, the deadline, the table."""
    lines = [heading] if heading else []
    title = f" · {escape(room['title'])}" if room.get("title") else ""
    lines.append(f"<b>{escape(room['name'])}</b>{title}")
    lines.append(room_state(room))
    if room.get("deadline"):
        lines.append(f"Deadline: {escape(room['deadline'])} (UTC)")
    if room.get("circling"):
        lines.append("The last moves brought no new terms: the room is circling.")
    if room.get("limits_compatible") is False:
        fields = ", ".join(room.get("incompatible_fields") or [])
        lines.append(f"Your limits and theirs cannot meet on: {escape(fields)}.")
    table = room.get("table") or {}
    if table:
        by = "you" if table.get("proposed_by") == room.get("seat") else "them"
        lines.append(f"\nOn the table (proposed by {by}):")
    lines += terms_lines(room["subject_schema"], table.get("terms"), room["outside_your_limits"])
    return "\n".join(lines)


def room_buttons(room: Mapping[str, Any], base_url: str) -> list[list[InlineKeyboardButton]]:
    page = f"{base_url}/rooms/{room['room_id']}"
    if room["state"] in FINAL_ROOM:
        return [[_url("Receipt", f"{page}/receipt")]]
    return [[_url("Open", page)]]


def room(room: Mapping[str, Any], base_url: str, *, heading: str | None = None) -> Reply:
    return Reply(room_text(room, heading=heading), room_buttons(room, base_url))


def confirmation(room_view: Mapping[str, Any], asked: Mapping[str, Any]) -> Reply:
    """What the agent asks to do, on which terms, with ✅ Confirm and ✖ Decline."""
    what = MOVE_WORDS.get(asked["type"], asked["type"])
    lines = [
        f"🔔 <b>{escape(room_view['name'])}</b>: your agent asks you to confirm. "
        f"It would {escape(_infinitive(asked['type'], what))}."
    ]
    if asked.get("message"):
        lines.append("Its message to them:" + quote(asked["message"]))
    if asked.get("terms"):
        lines.append("On these terms:")
        lines += terms_lines(
            room_view["subject_schema"], asked["terms"], asked.get("outside_your_limits") or []
        )
    data = {"room_id": room_view["room_id"], "confirmation_id": asked["id"]}
    buttons = [
        _tap("✅ Confirm", ConfirmTap(**data, answer="y")),
        _tap("✖ Decline", ConfirmTap(**data, answer="n")),
    ]
    return Reply("\n".join(lines), [buttons])


def _infinitive(move: str, said: str) -> str:
    return {
        "offer": "make this offer",
        "counter": "counter with these terms",
        "need_more_detail": "ask for more detail",
        "approve": "approve these terms",
        "reject": "reject the terms and end the room",
        "cancel": "withdraw from the room",
    }.get(move, said)


def room_event(event: Mapping[str, Any], room_view: Mapping[str, Any], base_url: str) -> Reply:
    """A room's notification (other than a confirmation): what happened, then the room."""
    kind = event["type"]
    last = (room_view.get("moves") or [None])[-1]
    heading = {
        "your_turn": "👉 Your turn.",
        "deadline_changed": "⏰ The deadline changed.",
        "limits_incompatible": "⚠ Your limits and theirs cannot meet.",
        "circling": "🔁 The room is circling: the last moves brought no new terms.",
        "agreed": "🤝 Agreed.",
        "closed": "The room is closed.",
        "expired": "⌛ The room expired.",
    }.get(kind, kind)
    if kind == "your_turn" and last and last.get("seat") != room_view.get("seat"):
        heading = f"👉 They {escape(MOVE_WORDS.get(last['type'], last['type']))}."
        if last.get("message"):
            heading += quote(last["message"])
    return room(room_view, base_url, heading=heading)


# -- intro opportunities ----------------------------------------------------------------------


def opportunity(found: Mapping[str, Any], base_url: str) -> Reply:
    """An introduction waiting for the person's decision: the other side as far as disclosed."""
    opp = found["opportunity"]
    other = found.get("counterparty") or {}
    lines = ["🤝 <b>An introduction waits for your decision.</b>"]
    lines.append("Your agents agree it is worth both your time.")
    if other.get("statement"):
        lines.append("They say:" + quote(str(other["statement"])))
    identity = other.get("identity") or {}
    if identity.get("name"):
        lines.append(f"Who: {escape(str(identity['name']))}")
    buttons = []
    if opp["status"] == "pending" and opp["decisions"]["yours"] is None:
        opp_id = opp["opportunity_id"]
        buttons.append(
            [
                _tap("Accept introduction", DecisionTap(opportunity_id=opp_id, answer="a")),
                _tap("Pass", DecisionTap(opportunity_id=opp_id, answer="p")),
            ]
        )
    buttons.append([_url("Open", f"{base_url}/opportunities/{opp['opportunity_id']}")])
    return Reply("\n".join(lines), buttons)


def question(
    binding_id: str, opportunity_id: str, asked: Mapping[str, Any], base_url: str
) -> Reply:
    """A question from the person's agent: its options as buttons, a reply to the message in
    the person's own words, or an answer on the web."""
    lines = ["❓ <b>Your agent asks:</b>" + quote(asked["question"])]
    if asked.get("why"):
        lines.append("Why it asks:" + quote(asked["why"]))
    lines.append(f"<i>{REPLY_TO_ANSWER}</i>")
    question_id = asked["question_id"]
    rows = [
        [_tap(option, OptionTap(opportunity_id=opportunity_id, question_id=question_id, option=n))]
        for n, option in enumerate(asked.get("options") or [])
    ]
    rows.append([_url("Answer on the web", f"{base_url}/opportunities/{opportunity_id}")])
    return Reply("\n".join(lines), rows, Asked(binding_id, opportunity_id, question_id))


def question_now(question: Mapping[str, Any]) -> str:
    """Where an agent's question stands, for a button that no longer applies."""
    if question.get("answer") is not None:
        return f"It was answered: {question['answer']}"
    return f"It is {question.get('status', 'closed')}."


# -- one-liners -------------------------------------------------------------------------------


def one_line(text: str, url: str) -> Reply:
    return Reply(text, [[_url("Open", url)]])


def adviser_event(event: Mapping[str, Any], base_url: str) -> Reply | None:
    url = f"{base_url}/adviser/cases/{event['case_id']}"
    match event["type"]:
        case "adviser.question":
            return one_line("📝 Your adviser has a question for you.", url)
        case "adviser.deal_review":
            return one_line("📝 Your adviser reviewed a deal.", url)
        case "adviser.material_change":
            return one_line("📝 Something material changed in your case.", url)
    return None


def session_event(event_type: str, session_id: str, base_url: str) -> Reply | None:
    url = f"{base_url}/sessions/{session_id}"
    match event_type:
        case "session.agree":
            return one_line("🤝 Your purchase was agreed.", url)
        case "session.close":
            return one_line("The purchase session closed without a deal.", url)
    return None


# -- the chat's own ---------------------------------------------------------------------------


def linked(what: str) -> str:
    return f"{escape(what)} is linked; confirmations come here."


def unlink_choices(held: Sequence[tuple[str, str]]) -> Reply:
    """A button per linked seat or principal: `(binding_id, what it is)`."""
    if not held:
        return Reply("This chat follows nothing.")
    rows = [[_tap(f"Unlink {what}", UnlinkTap(binding_id=bid))] for bid, what in held]
    return Reply("Which one should this chat stop following?", rows)
