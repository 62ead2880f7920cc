"""What the built-in intro agent says, and the guard around it (spec/agents.md, LLM agent).

Every message is a fixed template, filled only with the seat's own statement where the other
side may read it anyway; nothing the agent was told in private (its owner's chat, answers,
briefs) and nothing the other side wrote is ever put in. The guard checks it all the same.
"""

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from accord.protocols.intro.moves import OPTION_LIMIT, QUESTION_LIMIT

GUARDED_MIN: Final = 8
"""Private texts shorter than this (a bare "Yes", "No") are ordinary words, not a secret: the
guard looks for the longer ones."""

YES: Final = "Yes, that works for me"
NO: Final = "No, it does not"
YES_WORDS: Final = frozenset({"yes", "yeah", "yep", "ok", "okay", "sure", "fine"})
NO_WORDS: Final = frozenset({"no", "nope", "not", "never"})
DESCRIBE_LIMIT: Final = 300

PROPOSE: Final = "An introduction looks worth both our time: our intents fit."
PROPOSE_OWN: Final = "An introduction looks worth both our time. What we are after: {statement}"
ACCEPT: Final = "We accept your proposal of an introduction."
COUNTER: Final = "Your proposal stands and it fits us; propose it again and we will accept."
DECLINE: Final = {
    "not_mutual": "This does not look like a match for us, so we pass for now.",
    "constraint_conflict": "Our limits and yours do not meet on a point that matters, so we "
    "pass for now.",
    "owner_declined": "This does not look like a match for us, so we pass for now.",
    "stuck": "We cannot take this further in this round, so we pass for now.",
}


def fresh(message: str, *, latest: str | None, round_: int, turn_index: int) -> str:
    """The message, or, if it is the seat's own latest one again (`repeated_message`), the same
    with the turn it is said at: a turn index is never said twice."""
    if message != latest:
        return message
    return f"{message} (round {round_}, turn {turn_index + 1})"


def proposal(statement: str | None) -> str:
    """With the seat's own statement when the other side may read it (not incognito)."""
    return PROPOSE if statement is None else PROPOSE_OWN.format(statement=statement)


def leaks(message: str, private: Iterable[str]) -> bool:
    """Whether `message` holds any private text of at least `GUARDED_MIN` characters, compared
    without case and surrounding space."""
    said = message.casefold()
    return any(
        len(text := item.strip().casefold()) >= GUARDED_MIN and text in said for item in private
    )


def guarded(message: str, fallback: str, private: Sequence[str]) -> str:
    """The message unless it leaks; then the fallback, a fixed template."""
    return fallback if leaks(message, private) else message


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def describe(constraints: Sequence[Mapping[str, Any]]) -> str:
    """The other side's limits on one key, in words, for the seat's own owner only."""
    parts = []
    for item in constraints:
        op, value = item.get("op"), item.get("value")
        match op:
            case "eq":
                parts.append(f"be {_value(value)}")
            case "in":
                listed = value if isinstance(value, list | tuple) else [value]
                parts.append(f"be one of {', '.join(_value(v) for v in listed)}")
            case "gte":
                parts.append(f"be at least {_value(value)}")
            case "lte":
                parts.append(f"be at most {_value(value)}")
            case "between" if isinstance(value, list | tuple) and len(value) == 2:
                parts.append(f"be between {_value(value[0])} and {_value(value[1])}")
            case _:
                parts.append(f"meet {_value(op)} {_value(value)}")
    text = " and ".join(parts)
    return text if len(text) <= DESCRIBE_LIMIT else text[: DESCRIBE_LIMIT - 1] + "…"


def question(key: str, constraints: Sequence[Mapping[str, Any]]) -> str:
    """One question per key and per limits: when the other side changes them, the question
    asked before no longer answers the new one."""
    text = (
        f"The other side needs {key} to {describe(constraints)}; your intent says nothing about "
        f"{key}. Does that work for you?"
    )
    return text[:QUESTION_LIMIT]


def why(key: str) -> str:
    return (
        f"Their intent sets a limit on {key} and yours sets none, so I cannot judge the fit on "
        "it without inventing your answer."
    )


def options() -> list[str]:
    return [YES[:OPTION_LIMIT], NO[:OPTION_LIMIT]]


def answer_says(answer: str) -> bool | None:
    """True for a yes, False for a no, None when the answer says neither: an option, or a
    free answer whose first word is one."""
    text = answer.strip().casefold()
    if text == YES.casefold():
        return True
    if text == NO.casefold():
        return False
    words = "".join(c if c.isalpha() else " " for c in text).split()
    first = words[0] if words else ""
    if first in YES_WORDS:
        return True
    if first in NO_WORDS:
        return False
    return None


def brief(round_: int) -> str:
    return f"New context from my owner after round {round_}; the intents now fit, so I go on."
