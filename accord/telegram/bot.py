"""The bot's handlers (interfaces.md, Telegram): commands and button taps, each one call of
`Chat` in a thread. Private chats only; in a group, a link code gets the one answer and the
bot does nothing else.

The callback data names the thing; the right to act is the chat's binding, which the
application layer checks (a tap from a chat not linked to the room is refused there). So does
a reply to a question's message: the bot recorded which question that message shows when it
sent it (`Chat.answer_in_words`), and for whom, so that a reply or an option tapped there is
that principal's answer in a chat linked to several."""

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from html import escape
from typing import Any, Final, TypeVar

from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.base import BaseSession
from aiogram.enums import ChatType, ParseMode
from aiogram.exceptions import TelegramBadRequest
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import CallbackQuery, Message

from accord.core.refusals import Refused
from accord.telegram import messages
from accord.telegram.chat import Chat, Tapped
from accord.telegram.messages import (
    INVALID_LINK,
    ConfirmTap,
    DecisionTap,
    OptionTap,
    Reply,
    UnlinkTap,
)

T = TypeVar("T")
NOTICE_LIMIT: Final = 200  # answerCallbackQuery's text


def make_bot(token: str, session: BaseSession | None = None) -> Bot:
    """HTML messages without link previews (`session` replaces the HTTP client in tests)."""
    default = DefaultBotProperties(parse_mode=ParseMode.HTML, link_preview_is_disabled=True)
    if session is None:
        return Bot(token, default=default)
    return Bot(token, default=default, session=session)


async def _tapped(query: CallbackQuery, tapped: Tapped) -> None:
    """The notice on the button, and the message edited to say the outcome, buttons gone."""
    await query.answer(tapped.notice[:NOTICE_LIMIT])
    if isinstance(query.message, Message):
        with contextlib.suppress(TelegramBadRequest):  # "not modified": it says so already
            await query.message.edit_text(tapped.reply.text, reply_markup=tapped.reply.markup)


def build_dispatcher(chat: Chat) -> Dispatcher:
    dispatcher = Dispatcher()
    dispatcher.include_router(_groups())
    dispatcher.include_router(_private(chat))
    return dispatcher


def _groups() -> Router:
    """Anything but a private chat: a code is refused as any unusable code is."""
    router = Router(name="groups")
    router.message.filter(F.chat.type != ChatType.PRIVATE)
    router.callback_query.filter(F.message.chat.type != ChatType.PRIVATE)

    @router.message(CommandStart())
    async def start(message: Message, command: CommandObject) -> None:
        await message.answer(INVALID_LINK if command.args else messages.PRIVATE_ONLY)

    return router


def _private(chat: Chat) -> Router:
    router = Router(name="private")
    router.message.filter(F.chat.type == ChatType.PRIVATE)

    async def run(fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    def chat_id(message: Message) -> str:
        return str(message.chat.id)

    async def say(message: Message, replies: Sequence[Reply]) -> None:
        """Each reply; a question's message is recorded once Telegram names it."""
        for reply in replies:
            sent = await message.answer(reply.text, reply_markup=reply.markup)
            if reply.asks is not None:
                await run(chat.record, chat_id(message), sent.message_id, reply.asks)

    @router.message(CommandStart(deep_link=True))
    async def start_with_code(message: Message, command: CommandObject) -> None:
        try:
            replies = await run(chat.link, chat_id(message), command.args or "")
        except Refused:
            await message.answer(INVALID_LINK)
            return
        await say(message, replies)

    @router.message(CommandStart())
    async def start(message: Message) -> None:
        await message.answer(messages.HELP)

    @router.message(Command("help"))
    async def help_(message: Message) -> None:
        await message.answer(messages.HELP)

    @router.message(Command("rooms"))
    async def rooms(message: Message) -> None:
        await say(message, [await run(chat.rooms, chat_id(message))])

    @router.message(Command("pending"))
    async def pending(message: Message) -> None:
        await say(message, await run(chat.pending, chat_id(message)))

    @router.message(Command("web"))
    async def web(message: Message) -> None:
        await say(message, [await run(chat.web, chat_id(message))])

    @router.message(Command("unlink"))
    async def unlink(message: Message) -> None:
        await say(message, [await run(chat.unlink_choices, chat_id(message))])

    @router.message(F.reply_to_message)
    async def replied(message: Message) -> None:
        """A reply, perhaps to one of the agent's questions: its text answers it."""
        question = message.reply_to_message
        assert question is not None
        try:
            outcome = await run(
                chat.answer_in_words, chat_id(message), question.message_id, message.text
            )
        except Refused as refused:
            await message.reply(escape(refused.refusal.message))
            return
        await message.reply(outcome.reply.text, reply_markup=outcome.reply.markup)
        if outcome.settled:  # its option buttons no longer apply
            with contextlib.suppress(TelegramBadRequest):  # "not modified", or too old to edit
                await question.edit_reply_markup(reply_markup=outcome.reply.markup)

    @router.message()
    async def anything_else(message: Message) -> None:
        await message.answer(messages.NOT_UNDERSTOOD)

    def tapped_in(query: CallbackQuery) -> str:
        return str(query.message.chat.id if query.message else query.from_user.id)

    async def tap(query: CallbackQuery, act: Callable[[str, Any], Tapped], data: Any) -> None:
        try:
            tapped = await run(act, tapped_in(query), data)
        except Refused as refused:
            tapped = Tapped(refused.refusal.message, Reply(escape(refused.refusal.message)))
        await _tapped(query, tapped)

    @router.callback_query(ConfirmTap.filter())
    async def confirm(query: CallbackQuery, callback_data: ConfirmTap) -> None:
        await tap(query, chat.confirm, callback_data)

    @router.callback_query(DecisionTap.filter())
    async def decide(query: CallbackQuery, callback_data: DecisionTap) -> None:
        await tap(query, chat.decide, callback_data)

    @router.callback_query(OptionTap.filter())
    async def answer(query: CallbackQuery, callback_data: OptionTap) -> None:
        """As the principal the tapped question's message was sent for (`Chat.answer`)."""
        shown_in = query.message.message_id if query.message else None
        await tap(query, lambda cid, data: chat.answer(cid, data, shown_in), callback_data)

    @router.callback_query(UnlinkTap.filter())
    async def unlink_one(query: CallbackQuery, callback_data: UnlinkTap) -> None:
        await tap(query, lambda cid, data: chat.unlink(cid, data.binding_id), callback_data)

    @router.callback_query()
    async def unknown(query: CallbackQuery) -> None:
        await query.answer("This button no longer does anything.")

    return router
