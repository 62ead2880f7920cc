"""Names of tenants and principals: handles given on the command line, so 1 to 64 letters,
digits, `.`, `_` or `-`, starting with a letter or digit, easy to type and to quote in a shell."""

from typing import Final

from accord.core.refusals import RefusalCode, refuse

MAX_NAME: Final = 64


def check_name(name: str, *, noun: str) -> None:
    if (
        not 1 <= len(name) <= MAX_NAME
        or not name.isascii()
        or not name[0].isalnum()
        or not all(c.isalnum() or c in "._-" for c in name)
    ):
        raise refuse(
            RefusalCode.INVALID_REQUEST,
            f"Name the {noun} with 1 to 64 letters, digits, '.', '_' or '-', starting with a "
            "letter or digit.",
            fields={"name": "1 to 64 of [A-Za-z0-9._-], starting with a letter or digit"},
        )
