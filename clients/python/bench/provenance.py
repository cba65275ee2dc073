#!/usr/bin/env python3
"""Client-side cost of provenance (docs/provenance.md): what recording a tool result and computing
the provenance of a guarded call's arguments cost, once a run has seen 10,000 events.

A synthetic run (no data from the shared trajectories): one user request, then tool calls whose
results are ~1.5 KB texts with account numbers, addresses and prose, and user / tool messages; a
third of the 10,000 events are tool results (the others are the tool calls' started and evaluated
events and assistant turns, which record nothing). The store is at its bounds by then (512
sources, 1 MiB of tool text). Measured on the tracker itself: the HTTP round trip of the guard is
not included.

    clients/python/.venv/bin/python clients/python/bench/provenance.py [--events 10000] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from agentwarden import uuid7  # noqa: E402
from agentwarden._provenance import ProvenanceTracker  # noqa: E402
from agentwarden._serialize import to_json_object  # noqa: E402

WORDS = [
    "".join(random.Random(i).choice(string.ascii_lowercase) for _ in range(random.Random(-i).randint(2, 9)))
    for i in range(3000)
]


def tool_result(rng: random.Random) -> Dict[str, Any]:
    """A ~1.5 KB tool result: a few records with ids, an account, an address, and prose."""
    rows = []
    for _ in range(4):
        prose = " ".join(rng.choice(WORDS) for _ in range(45))
        rows.append(
            {
                "id": rng.randint(1, 10**6),
                "account": f"XX{rng.randint(10, 99)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}",
                "contact": f"{rng.choice(WORDS)}.{rng.choice(WORDS)}@{rng.choice(WORDS)}.example",
                "amount": round(rng.uniform(1, 5000), 2),
                "note": prose,
            }
        )
    return {"rows": rows}


def summary(samples_s: List[float]) -> Dict[str, float]:
    us = sorted(x * 1e6 for x in samples_s)
    return {
        "n": len(us),
        "mean_us": round(statistics.fmean(us), 1),
        "p50_us": round(us[len(us) // 2], 1),
        "p99_us": round(us[min(len(us) - 1, int(len(us) * 0.99))], 1),
    }


def timed(fn: Callable[[], Any], n: int) -> Dict[str, float]:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return summary(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    a = parser.parse_args()

    rng = random.Random(7)
    tracker = ProvenanceTracker()
    session, run = uuid7(), uuid7()
    tracker.open_run(run, None)
    tracker.add_trusted(session, run, "Pay the March invoice to XX42 1234 5678 9012 and tell ana.lee@corp.example")
    results = [tool_result(rng) for _ in range(200)]
    t0 = time.perf_counter()
    for i in range(a.events // 3):
        tracker.add_tool(session, run, results[i % len(results)], "get_records", uuid7())
    fill_s = time.perf_counter() - t0

    last = results[-1]["rows"][0]
    typical = to_json_object(
        {
            "recipient": last["account"].replace(" ", ""),  # from a tool result: tainted
            "amount": last["amount"],
            "subject": "March invoice",
            "cc": "ana.lee@corp.example",  # the user's
        }
    )
    long_body = to_json_object(
        {"body": " ".join(rng.choice(WORDS) for _ in range(120)) + " see doc-4471/a and x@y.example"}
    )
    # 64 long leaves of 16 identifier-like tokens each (1,088 segments), under the 64 KiB of JSON
    # above which the client replaces arguments by a preview.
    worst = to_json_object(
        {f"k{i}": " ".join(f"tok{rng.randint(10**5, 10**6)}/{j}" for j in range(80))[:900] for i in range(64)}
    )
    assert len(json.dumps(worst)) < 64 * 1024 and "truncated" not in worst

    prov = tracker.provenance(session, run, typical)
    figures: Dict[str, Any] = {
        "events": a.events,
        "tool_sources_recorded": a.events // 3,
        "fill_mean_us_per_tool_result": round(fill_s / (a.events // 3) * 1e6, 1),
        "typical_origins": {x["path"]: x["origin"] for x in prov["arguments"]},
        "provenance_typical_4_leaves": timed(lambda: tracker.provenance(session, run, typical), a.samples),
        "provenance_long_body_leaf": timed(lambda: tracker.provenance(session, run, long_body), a.samples),
        "provenance_worst_64_long_leaves": timed(lambda: tracker.provenance(session, run, worst), 5),
        # Last: it changes the store (the same result recorded again and again).
        "record_tool_result_1_5kb": timed(
            lambda: tracker.add_tool(session, run, results[0], "get_records", None), a.samples
        ),
    }
    if a.json:
        print(json.dumps(figures))
        return
    for k, v in figures.items():
        print(f"{k:36} {v}")


if __name__ == "__main__":
    main()
