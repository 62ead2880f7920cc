"""--rate-limit: requests per minute per credential, refused with 429 and Retry-After."""

from accord.app.settings import Settings
from tests.conftest import FakeClock, serve_in_thread

SCHEMA = {"n": {"type": "int"}}


def test_a_credential_over_its_rate_is_refused_and_others_are_not(
    settings: Settings, clock: FakeClock
) -> None:
    limited = settings.model_copy(update=dict(rate_limit=3))
    with serve_in_thread(limited, clock) as live, live.client() as anyone:
        opened = anyone.post("/v1/rooms", json={"subject_schema": SCHEMA}).json()
        room_id = opened["room"]["room_id"]
        with (
            live.client(opened["seat_token"]) as agent,
            live.client(opened["owner_token"]) as owner,
        ):
            answers = [agent.get(f"/v1/rooms/{room_id}") for _ in range(4)]
            assert [a.status_code for a in answers] == [200, 200, 200, 429]
            refused = answers[-1]
            assert refused.json()["error"]["code"] == "rate_limited"
            assert int(refused.headers["Retry-After"]) >= 1
            assert refused.json()["error"]["retry_after"] >= 1
            assert owner.get(f"/v1/rooms/{room_id}").status_code == 200


def test_no_limit_by_default(server) -> None:
    with server.client() as anyone:
        statuses = {anyone.get("/healthz").status_code for _ in range(30)}
    assert statuses == {200}
