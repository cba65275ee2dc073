"""AsyncWardenClient: the same operations with ``await`` / ``async with``; the event loop never blocks."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, Iterator, List

import pytest

from agentwarden import AsyncWardenClient, GuardrailBlockedError, is_uuid7
from fake_warden import API_KEY, ApprovalPlan, FakeWarden

pytestmark = pytest.mark.unit


@pytest.fixture
def make_async(fake: FakeWarden) -> Iterator[Any]:
    made: List[AsyncWardenClient] = []

    def make(**options: Any) -> AsyncWardenClient:
        merged = dict(
            base_url=fake.url,
            api_key=API_KEY,
            agent="async-agent",
            retry_base_delay_ms=1,
            retry_max_delay_ms=5,
            flush_interval_ms=60_000,
        )
        merged.update(options)
        c = AsyncWardenClient(**merged)
        made.append(c)
        return c

    yield make
    for c in made:
        asyncio.run(c.shutdown(timeout=2))


def test_runs_tools_and_tracks_with_await(fake: FakeWarden, make_async: Any):
    fake.decide = lambda body: "block" if body["tool"]["name"] == "rm" else "allow"

    async def main() -> Dict[str, Any]:
        client = make_async(mode="enforce")
        await client.ready(timeout=5)
        async with client.with_run("answer", input_summary="q") as run:
            client.track_message("user", "hi")
            async with client.with_tool("search", arguments={"q": "x"}) as call:
                await asyncio.sleep(0.01)
                call.result = ["hit"]
            with pytest.raises(GuardrailBlockedError):
                async with client.with_tool("rm"):
                    raise AssertionError("must not run")
            run.output_summary = "done"
        decision = await client.guard(tool="rm")
        return {"run": run, "decision": decision, "flush": await client.flush()}

    out = asyncio.run(main())
    assert out["decision"].policy_decision == "block"
    types = [e["type"] for e in fake.events]
    assert types == [
        "agent.session.started",
        "agent.run.started",
        "agent.message.logged",
        "agent.guardrail.evaluated",
        "agent.tool.started",
        "agent.tool.completed",
        "agent.guardrail.evaluated",
        "agent.run.completed",
    ]
    assert all(e.get("runId") == out["run"].run_id for e in fake.events[1:])
    assert fake.contract_violations == []


def test_concurrent_tasks_keep_their_own_runs_and_the_loop_is_not_blocked(fake: FakeWarden, make_async: Any):
    fake.evaluate_delay_s = 0.2

    async def task(client: AsyncWardenClient, i: int) -> str:
        async with client.with_run(f"task-{i}") as run:
            async with client.with_tool("slow"):
                pass
            return run.run_id

    async def main() -> Any:
        client = make_async()
        await client.ready(timeout=5)
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        t = asyncio.ensure_future(ticker())
        t0 = time.monotonic()
        run_ids = await asyncio.gather(*(task(client, i) for i in range(5)))
        elapsed = time.monotonic() - t0
        t.cancel()
        return run_ids, elapsed, ticks

    run_ids, elapsed, ticks = asyncio.run(main())
    assert elapsed < 0.9  # the five guard calls ran side by side (one after the other: >= 1 s)
    assert ticks >= 10  # the loop kept running meanwhile
    for rid in run_ids:
        tool_events = [e for e in fake.events if e["type"].startswith("agent.tool.") and e.get("runId") == rid]
        assert len(tool_events) == 2


def test_decorates_async_functions(fake: FakeWarden, make_async: Any):
    client = make_async()

    @client.with_tool("lookup")
    async def lookup(email: str, limit: int = 3) -> Dict[str, Any]:
        await asyncio.sleep(0)
        return {"email": email, "limit": limit}

    @client.with_run
    async def handle(email: str) -> Any:
        return await lookup(email, limit=5)

    assert asyncio.run(handle("a@b.c")) == {"email": "a@b.c", "limit": 5}
    asyncio.run(client.flush())
    started = fake.events_of_type("agent.tool.started")[0]
    assert started["data"]["arguments"] == {"email": "a@b.c", "limit": 5}
    assert fake.events_of_type("agent.tool.completed")[0]["data"]["result"] == {"email": "a@b.c", "limit": 5}
    assert fake.events_of_type("agent.run.started")[0]["data"]["name"].endswith("handle")


def test_cancelling_a_task_waiting_for_an_approval_stops_the_wait(fake: FakeWarden, make_async: Any):
    fake.decide = lambda body: "require_approval"
    fake.approval_plan = ApprovalPlan(status="pending")

    async def main() -> None:
        client = make_async(mode="enforce")
        await client.ready(timeout=5)

        async def waits() -> None:
            async with client.with_tool("refund"):
                raise AssertionError("must not run")

        t = asyncio.ensure_future(waits())
        await asyncio.sleep(0.3)
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t

    asyncio.run(main())
    assert fake.events_of_type("agent.tool.started") == []


def test_disabled_async_client(fake: FakeWarden):
    async def main() -> Any:
        async with AsyncWardenClient(enabled=False) as client:
            await client.ready()
            async with client.with_tool("t") as call:
                call.result = 1
            return client.track("x"), await client.flush()

    event_id, result = asyncio.run(main())
    assert is_uuid7(event_id) and result.sent == 0 and fake.requests == []
