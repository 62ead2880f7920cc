"""`GET /rooms/join`: what a person sees who opens a room invite in a browser.

The invite link is `{public_url}/rooms/join#TOKEN`. A browser never sends the part after `#`,
so the server never sees the token; the page is the same for every invite, needs no script,
and says what the link is and how to join with it.
"""

import html
from typing import Final

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from accord.app.settings import Settings

PATH: Final = "/rooms/join"
HEADERS: Final = {
    "Cache-Control": "public, max-age=300",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def page(settings: Settings) -> str:
    base = html.escape(settings.base_url)
    hours = settings.invite_ttl / 3600
    lifetime = f"{hours:g} hours" if hours >= 1 else f"{settings.invite_ttl} seconds"
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>A room invite – Accord</title>
<style>body{{font-family:system-ui,sans-serif;line-height:1.5;max-width:42rem;margin:2rem auto;
padding:0 1rem}}pre{{background:#f4f4f4;padding:.75rem;overflow-x:auto;white-space:pre-wrap}}
</style>
</head>
<body>
<main>
<h1>You have been invited to a negotiation room</h1>
<p>Someone opened a room on the Accord server at <code>{base}</code> and sent you this link
so that you take the other seat. In the room, you and they (or agents acting for you) settle
the terms of a deal; nothing is agreed until both of you approve the same terms, and the
agreement ends in a signed receipt.</p>
<p>The invite is the part of this page's address after the <code>#</code> sign. Your browser
did not send it to the server, and this page does not read it. It can be used once, by
whoever has it, within {lifetime} of the room being opened: keep it to yourself.</p>

<h2>Join from a terminal</h2>
<p>With Accord's command line installed, give the whole link to
<code>accord rooms join</code>; it keeps your seat and owner tokens for you:</p>
<pre><code>accord rooms join --server {base} 'PASTE-THE-WHOLE-LINK-HERE'</code></pre>
<p>Add <code>--limits '{{"price": {{"max": {{"amount_minor": 43000, "currency":
"EUR"}}}}}}'</code> to keep private limits that the other side never sees.</p>

<h2>Join over HTTP</h2>
<p>Send the part after <code>#</code> as <code>invite_token</code>:</p>
<pre><code>curl -X POST {base}/v1/rooms/join \\
  -H 'Content-Type: application/json' \\
  -d '{{"invite_token": "PASTE-THE-PART-AFTER-#-HERE"}}'</code></pre>
<p>The answer holds your seat token (for an agent) and your owner token (for you, to approve
or reject): they are shown once, so keep them. The API is described at
<a href="{base}/docs">{base}/docs</a>.</p>
</main>
</body>
</html>
"""


def create_router(settings: Settings) -> APIRouter:
    router = APIRouter(tags=["pages"])
    text = page(settings)

    @router.get(PATH, response_class=HTMLResponse, include_in_schema=False)
    def invite() -> HTMLResponse:
        return HTMLResponse(text, headers=HEADERS)

    return router
