"""Printing rooms for people at a terminal. Text the other party wrote is made safe first:
markup, escape sequences and bidi controls show as text instead of acting on the terminal."""

import json
from collections.abc import Mapping
from typing import Any, Final

from rich.table import Table
from rich.text import Text

from accord.cli.output import clean, out
from accord.protocols.rooms.words import format_limit, format_value

SHOWN_MOVES: Final = 10


def styled(text: object, style: str = "") -> Text:
    return Text(clean(text), style=style)


def show_line(text: Text) -> None:
    """One line, never wrapped: tokens, URLs and hashes must survive copy and paste."""
    out.print(text, soft_wrap=True)


def _label(schema: Mapping[str, Any], name: str) -> str:
    spec = schema.get(name)
    return str(spec.get("label", name)) if isinstance(spec, dict) else name


def terms_inline(schema: Mapping[str, Any], terms: Mapping[str, Any]) -> str:
    return ", ".join(
        f"{_label(schema, name)} {format_value(schema.get(name), value)}"
        for name, value in terms.items()
    )


def _short(subject_hash: object) -> str:
    text = str(subject_hash)
    return text[:19] + "…" if len(text) > 20 else text


def _turn(room: Mapping[str, Any]) -> str:
    if room.get("turn") is None:
        return "no one's turn"
    return "your turn" if room.get("your_turn") else f"their turn ({room['turn']})"


def print_room(room: Mapping[str, Any]) -> None:
    """The room for a person: who, where it stands, the table, approvals, the last moves."""
    schema: Mapping[str, Any] = room.get("subject_schema") or {}
    title = Text.assemble(styled(room.get("name", ""), "bold"))
    if room.get("title"):
        title.append(" · ").append(styled(room["title"]))
    show_line(title)
    show_line(
        styled(
            f"room {room.get('room_id')} · you are the {room.get('seat')} · "
            f"{room.get('state')} · {_turn(room)}"
        )
    )
    times = [f"{k.replace('_', ' ')} {room[k]}" for k in ("deadline", "expires_at") if room.get(k)]
    if times:
        show_line(styled(" · ".join(times)))
    if room.get("circling"):
        show_line(
            styled(
                "circling: the last four moves brought no new terms; try something new", "yellow"
            )
        )
    compatible = room.get("limits_compatible")
    if compatible is False:
        fields = ", ".join(room.get("incompatible_fields") or [])
        show_line(styled(f"limits: the two sides' limits cannot meet on {fields}", "yellow"))
    elif compatible is True:
        show_line(styled("limits: the two sides' limits can meet"))
    pending = room.get("pending_confirmation")
    if pending:
        show_line(
            styled(
                f"waiting for your confirmation: {pending.get('type')} ({pending.get('id')}); "
                f"run `accord rooms confirm {room.get('room_id')} --confirm` or --decline",
                "bold yellow",
            )
        )
    _print_table(room, schema)
    _print_limits(schema, room.get("your_limits") or {})
    _print_moves(room, schema)
    if room.get("receipt_url"):
        show_line(styled(f"receipt: {room['receipt_url']}"))


def _print_table(room: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    table = room.get("table")
    if not table:
        show_line(styled("no terms on the table yet", "dim"))
        return
    outside = set(room.get("outside_your_limits") or [])
    show_line(styled(f"terms on the table, proposed by {table.get('proposed_by')}:", "bold"))
    grid = Table()
    grid.add_column("field")
    grid.add_column("value")
    grid.add_column("")
    for name, value in (table.get("terms") or {}).items():
        note = styled("outside your limits", "red") if name in outside else styled("")
        grid.add_row(
            styled(_label(schema, name)), styled(format_value(schema.get(name), value)), note
        )
    out.print(grid)
    show_line(styled(f"subject_hash {table.get('subject_hash')}", "dim"))
    approvals = [a.get("seat") for a in room.get("approvals") or []]
    show_line(
        styled("approved by " + ", ".join(map(str, approvals)) if approvals else "no approvals")
    )


def _print_limits(schema: Mapping[str, Any], limits: Mapping[str, Any]) -> None:
    if not limits:
        return
    described = "; ".join(
        f"{_label(schema, n)} {format_limit(schema.get(n), v)}" for n, v in limits.items()
    )
    show_line(styled(f"your limits (private): {described}", "dim"))


def _move_details(move: Mapping[str, Any], schema: Mapping[str, Any]) -> str:
    parts = []
    if isinstance(move.get("terms"), dict):
        parts.append(terms_inline(schema, move["terms"]))
    if move.get("subject_hash") and move.get("type") == "approve":
        parts.append(_short(move["subject_hash"]))
    if move.get("message"):
        parts.append(f"“{move['message']}”")
    if move.get("deadline"):
        parts.append(f"deadline {move['deadline']}")
    return " · ".join(parts)


def _print_moves(room: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    moves = list(room.get("moves") or [])[-SHOWN_MOVES:]
    if not moves:
        return
    total = room.get("moves_total", len(moves))
    show_line(styled(f"last moves ({len(moves)} of {total}):", "bold"))
    grid = Table()
    for column in ("seq", "seat", "move", "details", "at"):
        grid.add_column(column)
    for move in moves:
        grid.add_row(
            *(styled(move.get(k, "")) for k in ("seq", "seat", "type")),
            styled(_move_details(move, schema)),
            styled(move.get("at", "")),
        )
    out.print(grid)


def print_opening(schema: Mapping[str, Any], opening: Mapping[str, Any]) -> None:
    limits = opening.get("limits") or {}
    described = "; ".join(
        f"{_label(schema, n)} {format_limit(schema.get(n), v)}" for n, v in limits.items()
    )
    show_line(styled("your limits opening (keep it: it proves your limits later)", "bold"))
    show_line(styled(f"  nonce   {opening.get('nonce')}"))
    show_line(styled(f"  limits  {described or 'none'}"))
    show_line(styled(f"  as JSON {json.dumps(opening, ensure_ascii=False, sort_keys=True)}", "dim"))
