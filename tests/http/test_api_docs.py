"""`/docs` and `/redoc` work offline: every script, style sheet and icon they load, and the
document they show, is served by Accord itself."""

from html.parser import HTMLParser

import httpx
import pytest

PAGES = {
    "/docs": {"/openapi.json", "swagger-ui-bundle.js", "swagger-ui.css"},
    "/redoc": {"/openapi.json", "redoc.standalone.js"},
}
KINDS = {".js": "javascript", ".css": "text/css", ".png": "image/png", ".json": "json"}


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "spec-url") and value:
                self.urls.add(value)


def references(page: str) -> set[str]:
    parser = _References()
    parser.feed(page)
    for line in page.splitlines():  # Swagger UI names its document in a script: url: '…'
        if line.strip().startswith("url:"):
            parser.urls.add(line.split("'")[1])
    return parser.urls


@pytest.mark.parametrize("page", sorted(PAGES))
def test_a_docs_page_loads_only_what_the_server_serves(client: httpx.Client, page: str) -> None:
    got = client.get(page)
    assert got.status_code == 200
    assert got.headers["content-type"].startswith("text/html")
    urls = references(got.text)
    assert all(any(url.endswith(name) for url in urls) for name in PAGES[page]), urls
    assert "http://" not in got.text and "https://" not in got.text
    for url in urls:
        assert url.startswith("/") and not url.startswith("//"), url
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.content) > 1000, url
        kind = next(k for suffix, k in KINDS.items() if url.endswith(suffix))
        assert kind in asset.headers["content-type"], (url, asset.headers["content-type"])
