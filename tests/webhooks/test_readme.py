"""The README's webhook example runs as written, against a real server started as it says
(`--webhook-allow-private`)."""

import contextlib
import io
import re
from pathlib import Path

from tests.conftest import LiveServer

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_the_readme_webhook_example_runs_as_it_says(hooked: LiveServer) -> None:
    section = README.split("## Webhooks", 1)[1].split("\n## ", 1)[0]
    assert "accord serve --webhook-allow-private" in section
    example = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert example is not None
    code = example.group(1).replace("http://127.0.0.1:8000", hooked.url)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})
    assert printed.getvalue().splitlines() == ["envelope.room.joined", "True"]
