from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_warden import API_KEY, FakeWarden  # noqa: E402

from agentwarden import WardenClient  # noqa: E402
from agentwarden._options import ENV_VARS  # noqa: E402


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never read the developer's WARDEN_* variables."""
    for var in ENV_VARS.values():
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def fake() -> Iterator[FakeWarden]:
    f = FakeWarden().start()
    yield f
    f.stop()


FAST = dict(retry_base_delay_ms=1, retry_max_delay_ms=5, request_timeout_ms=2000, flush_interval_ms=60_000)


@pytest.fixture
def make_client(fake: FakeWarden) -> Iterator[Callable[..., WardenClient]]:
    """Makes clients against the fake with fast retries and no periodic flush; shuts them down after."""
    made: List[WardenClient] = []

    def make(**options: Any) -> WardenClient:
        merged = {**FAST, "base_url": fake.url, "api_key": API_KEY, "agent": {"key": "test-agent"}, **options}
        client = WardenClient(**merged)
        made.append(client)
        return client

    yield make
    for c in made:
        c.shutdown(timeout=2)


class ListHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: List[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def messages(self, level: int = logging.DEBUG) -> List[str]:
        return [r.msg.replace(" %s", "") for r in self.records if r.levelno >= level]


@pytest.fixture
def log_records() -> Iterator[ListHandler]:
    """Captures what the client logs (logger ``agentwarden``)."""
    handler = ListHandler()
    logger = logging.getLogger("agentwarden")
    old_level, old_propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(old_level)
    logger.propagate = old_propagate


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    """Tests in test_*_int.py are integration tests; every other test is a unit test."""
    for item in items:
        if item.get_closest_marker("integration") is None and item.get_closest_marker("unit") is None:
            is_int = Path(str(item.fspath)).name.endswith("_int.py")
            item.add_marker(pytest.mark.integration if is_int else pytest.mark.unit)
