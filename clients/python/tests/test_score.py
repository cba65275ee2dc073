"""``score(...)`` on the sync and asyncio clients and on a run (docs/architecture.md#scores): the
``agent.score.recorded`` events it sends (checked against the contract by the fake service), and
input that cannot be a score is logged and not sent."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

import pytest

from agentwarden import AsyncWardenClient, WardenClient, uuid7
from fake_warden import FakeWarden

pytestmark = pytest.mark.unit

MakeClient = Callable[..., WardenClient]


def test_scores_the_run_inside_with_run_and_the_session_outside(fake: FakeWarden, make_client: MakeClient):
    client = make_client()
    with client.with_run("book") as run:
        run.score("reward", 0.5, comment="half the seats")
        client.score("tone", "polite", source="evaluator")
    event_id = client.score("task_succeeded", False, source="human")
    client.flush()
    assert fake.contract_violations == []
    scores = fake.events_of_type("agent.score.recorded")
    assert [(e.get("runId"), e["data"]) for e in scores] == [
        (
            run.run_id,
            {"name": "reward", "value": 0.5, "dataType": "numeric", "source": "rule", "comment": "half the seats"},
        ),
        (run.run_id, {"name": "tone", "value": "polite", "dataType": "categorical", "source": "evaluator"}),
        (None, {"name": "task_succeeded", "value": False, "dataType": "boolean", "source": "human"}),
    ]
    assert scores[2]["id"] == event_id


def test_keeps_a_score_id_and_cuts_to_the_contract_limits(fake: FakeWarden, make_client: MakeClient):
    client = make_client()
    score_id = uuid7()
    client.score("n" * 300, "v" * 300, comment="c" * 3000, score_id=score_id)
    client.score("count", 3)
    client.flush()
    assert fake.contract_violations == []
    first, second = fake.events_of_type("agent.score.recorded")
    assert first["data"]["scoreId"] == score_id
    assert [len(first["data"][k]) for k in ("name", "value", "comment")] == [200, 200, 2000]
    assert second["data"] == {"name": "count", "value": 3, "dataType": "numeric", "source": "rule"}


@pytest.mark.parametrize(
    "name,value,options",
    [
        ("reward", float("nan"), {}),
        ("reward", float("inf"), {}),
        ("", 1, {}),
        ("label", "", {}),
        ("x", {"nested": True}, {}),
        ("x", None, {}),
        ("x", 1, {"source": "oracle"}),
        ("x", 1, {"score_id": "not-a-uuid"}),
    ],
)
def test_input_that_cannot_be_a_score_is_logged_and_not_sent(
    fake: FakeWarden, make_client: MakeClient, log_records: Any, name: Any, value: Any, options: Any
):
    client = make_client()
    assert client.score(name, value, **options) == ""
    client.flush()
    assert fake.events_of_type("agent.score.recorded") == []
    assert "warden score not recorded" in log_records.messages(logging.ERROR)


def test_the_async_client_scores_too(fake: FakeWarden):
    async def main() -> None:
        async with AsyncWardenClient(base_url=fake.url, api_key="test-key", agent="async-agent") as client:
            async with client.with_run("answer") as run:
                run.score("reward", 1)
            client.score("task_succeeded", True)
            await client.flush()

    asyncio.run(main())
    assert fake.contract_violations == []
    assert [e["data"]["name"] for e in fake.events_of_type("agent.score.recorded")] == ["reward", "task_succeeded"]
