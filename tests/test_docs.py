"""The README is held to the code: every refusal code and every setting is documented."""

import re
from pathlib import Path

import pytest

from accord.core.refusals import RefusalCode
from accord.core.statuses import STATUS_BY_CODE

README = (Path(__file__).parent.parent / "README.md").read_text()
FLAGS = (
    "--data-dir", "--database-url", "--host", "--port", "--public-url", "--sweep-interval",
    "--invite-ttl", "--idle-ttl", "--key-file", "--arbiter-id", "--retention-days",
    "--ucp-namespace", "--rate-limit", "--server", "--max-body-bytes", "--header-timeout",
    "--body-timeout", "--keep-alive-timeout", "--ranking", "--mutual-threshold", "--pending-ttl",
)  # fmt: skip


@pytest.mark.parametrize("code", list(RefusalCode), ids=str)
def test_every_refusal_code_is_documented_with_its_status(code: RefusalCode) -> None:
    assert re.search(rf"\| `{code}` \| {STATUS_BY_CODE[code]} \|", README), code


@pytest.mark.parametrize("flag", FLAGS)
def test_every_setting_is_documented(flag: str) -> None:
    variable = "ACCORD_" + flag.removeprefix("--").replace("-", "_").upper()
    assert f"`{flag}`" in README
    assert f"`{variable}`" in README
