"""`accord serve` settles the garbage collector once its app has started: what startup built is
frozen out of the collector's sight and young objects are collected less often."""

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from accord.serve import YOUNG_COLLECTION_THRESHOLD, from_environment


@pytest.fixture
def collector() -> Iterator[None]:
    """The test process's own collector, as it was."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_the_served_app_settles_the_collector_after_startup(
    collector: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACCORD_DATA_DIR", str(tmp_path / "data"))
    app = from_environment()
    assert gc.get_freeze_count() == 0
    with TestClient(app) as client:
        assert gc.get_freeze_count() > 10_000  # the modules, schemas and services of startup
        assert gc.get_threshold()[0] == YOUNG_COLLECTION_THRESHOLD
        assert client.get("/healthz").json()["status"] == "ok"
