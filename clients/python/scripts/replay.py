#!/usr/bin/env python3
"""Replays logged agent trajectories (JSONL, ``/work/shared/data/trajectories`` format) through the
Python client, the same way ``scripts/replay/replay.ts`` does with the TypeScript client: one
session per trajectory, one run with the task as ``input_summary``, each message as
``agent.message.logged``, each tool call through ``with_tool`` returning its logged result (or
raising its logged error). Then it waits until the service has stored everything and reads the
counts back from ``GET /v1/stats/events`` for this replay's agent versions.

    python clients/python/scripts/replay.py --url http://127.0.0.1:7400 --api-key KEY FILE.jsonl...

Prints one JSON line: ``{"trajectories", "events_sent", "events_stored", "duplicates", "missing",
"decisions", "stopped", "agentVersionIds", "client"}``; exits 0 when nothing is missing or duplicated.
Files are read in place, line by line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
import time
import urllib.request
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Dict, Iterator, List, Optional, Set

from agentwarden import (
    ApprovalDeniedError,
    ApprovalTimeoutError,
    GuardrailBlockedError,
    GuardrailUnavailableError,
    WardenClient,
    uuid7,
)


class LoggedToolError(Exception):
    """The error a trajectory logged for a tool call (recorded as ``agent.tool.failed``)."""


def read_trajectories(path: str) -> Iterator[Dict[str, Any]]:
    """Streams the trajectories of a JSONL file; raises naming the line when one is not JSON."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}:{n}: not a JSON trajectory: {e}") from e


def agent_key_of(agent: str) -> str:
    """``claude-3-5-sonnet-20241022 @ AgentDojo`` → ``claude-3-5-sonnet-20241022-agentdojo``."""
    key = re.sub(r"[^a-z0-9._:/-]+", "-", agent.lower()).strip("-")
    return (key or "agent")[:128]


def replay_one(
    t: Dict[str, Any], o: argparse.Namespace, replay_id: str, stopped: Dict[str, int], lock: threading.Lock
) -> Dict[str, Any]:
    client = WardenClient(
        base_url=o.url,
        api_key=o.api_key,
        agent={"key": agent_key_of(t["agent"]), "name": t["agent"][:200]},
        version={
            "version": f"replay-{replay_id}",
            "metadata": {"replayId": replay_id, "source": t["trajectory_id"].split("/")[0]},
        },
        mode=o.mode,
        flush_interval_ms=1000,
        fail_mode="open",
    )
    try:
        client.ready()
        client.start_session(
            input_summary=t["task"], attributes={"trajectoryId": t["trajectory_id"], "domain": t.get("domain")}
        )
        try:
            with client.with_run(t["trajectory_id"], input_summary=t["task"]):
                for step in t["steps"]:
                    if step["kind"] == "message":
                        client.track_message(step["role"], step.get("content") or "")
                        continue
                    try:
                        with client.with_tool(
                            step.get("tool") or "<empty-function-name>", arguments=step.get("arguments") or {}
                        ) as call:
                            if step.get("error"):
                                raise LoggedToolError(step["error"])
                            call.result = step.get("result")
                    except LoggedToolError:
                        pass  # part of the trajectory: recorded as agent.tool.failed, then go on
                    except (
                        GuardrailBlockedError,
                        ApprovalDeniedError,
                        ApprovalTimeoutError,
                        GuardrailUnavailableError,
                    ) as e:
                        reason = {
                            GuardrailBlockedError: "blocked",
                            ApprovalDeniedError: "approval_denied",
                            ApprovalTimeoutError: "approval_expired",
                            GuardrailUnavailableError: "guard_unavailable",
                        }[type(e)]
                        with lock:
                            stopped[reason] = stopped.get(reason, 0) + 1
        except Exception:
            pass
        client.end_session("completed")
    finally:
        client.shutdown()
    stats = client.stats()
    return {"sent": stats.sent, "agentVersionId": client.agent_version_id, "stats": stats}


def fetch_stats(url: str, api_key: str, versions: List[str]) -> Dict[str, Any]:
    req = urllib.request.Request(
        f"{url}/v1/stats/events?agentVersionId={','.join(versions)}", headers={"Authorization": f"Bearer {api_key}"}
    )
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


def settled(s: Dict[str, Any], sent: int) -> bool:
    """Everything projected: every accepted event, and an evaluation row for every evaluated event."""
    evaluations = sum(s["decisions"].values())
    return s["events"] >= sent and evaluations >= s["byType"].get("agent.guardrail.evaluated", 0)


def replay_files(o: argparse.Namespace) -> Dict[str, Any]:
    replay_id = uuid7()
    stopped: Dict[str, int] = {}
    lock = threading.Lock()
    versions: Set[str] = set()
    totals = {"sent": 0, "dropped": 0, "failed": 0, "rejected": 0, "retries": 0}
    trajectories = 0

    def done(r: Dict[str, Any]) -> None:
        nonlocal trajectories
        if r["agentVersionId"]:
            versions.add(r["agentVersionId"])
        s = r["stats"]
        totals["sent"] += s.sent
        totals["dropped"] += s.dropped
        totals["failed"] += s.failed
        totals["rejected"] += s.rejected
        totals["retries"] += s.retries
        trajectories += 1

    started = 0
    with ThreadPoolExecutor(max_workers=o.concurrency) as pool:
        in_flight: Set[Future] = set()
        for path in o.files:
            for t in read_trajectories(path):
                if o.limit is not None and started >= o.limit:
                    break
                started += 1
                in_flight.add(pool.submit(replay_one, t, o, replay_id, stopped, lock))
                if len(in_flight) >= o.concurrency:
                    finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                    for f in finished:
                        done(f.result())
        for f in in_flight:
            done(f.result())

    ids = sorted(versions)
    stats_url = (o.api_url or o.url).rstrip("/")
    deadline = time.monotonic() + o.settle_timeout
    stats = fetch_stats(stats_url, o.api_key, ids)
    while not settled(stats, totals["sent"]) and time.monotonic() < deadline:
        time.sleep(0.25)
        stats = fetch_stats(stats_url, o.api_key, ids)
    return {
        "trajectories": trajectories,
        "events_sent": totals["sent"],
        "events_stored": stats["events"],
        "duplicates": stats["duplicates"],
        "missing": max(0, totals["sent"] - stats["events"]),
        "decisions": stats["decisions"],
        "stopped": stopped,
        "agentVersionIds": ids,
        "client": {k: totals[k] for k in ("dropped", "failed", "rejected", "retries")},
    }


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description="Replays trajectory files through the Python client.")
    p.add_argument("files", nargs="+", metavar="FILE.jsonl")
    p.add_argument("--url", default=os.environ.get("WARDEN_BASE_URL", "http://127.0.0.1:7400"), help="service base URL")
    p.add_argument("--api-key", default=os.environ.get("WARDEN_API_KEY"), help="API key (default $WARDEN_API_KEY)")
    p.add_argument("--api-url", help="where to read the counts back (stack mode: the api service; default --url)")
    p.add_argument("--mode", choices=("monitor", "enforce"), default="monitor")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--limit", type=int)
    p.add_argument(
        "--settle-timeout", type=float, default=120.0, help="longest wait for the service to store everything, s"
    )
    o = p.parse_args(argv)
    if not o.api_key:
        p.error("an API key is required: --api-key KEY or WARDEN_API_KEY")
    o.url = o.url.rstrip("/")
    summary = replay_files(o)
    sys.stdout.write(json.dumps(summary) + "\n")
    return 0 if summary["missing"] == 0 and summary["duplicates"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
