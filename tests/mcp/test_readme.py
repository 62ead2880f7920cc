"""The README's MCP example runs as written, against a real server."""

import contextlib
import io
import re
from pathlib import Path

from tests.conftest import LiveServer

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_the_readme_mcp_example_runs_as_it_says(server: LiveServer) -> None:
    section = README.split("## MCP: tools for AI agents", 1)[1].split("\n## ", 1)[0]
    example = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert example is not None
    code = example.group(1).replace("http://127.0.0.1:8000", server.url)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    lines = printed.getvalue().splitlines()
    assert lines[0] == f"False {server.url}/claim"
    assert lines[1] == "awaiting_owner"
    assert lines[2].startswith('True {"error": {"code": "unauthenticated"')
