#!/usr/bin/env python3
"""Client overhead: what one ``track`` call and one ``with_tool`` (monitor mode) cost the agent,
for the Python client and, side by side, the TypeScript client (``overhead_ts.ts``).

Both clients talk to the same local stub of the service (this file with ``--serve``, run as its
own process): it answers every endpoint at once with a fixed, valid body, so what is measured is
the client's own cost plus, for ``with_tool``, one HTTP round trip to a local server. The bare
round trip (a keep-alive POST of the same guard request, no client) is measured too, per
language, so the client's share can be read off.

    clients/python/.venv/bin/python clients/python/bench/overhead.py            # both clients
    clients/python/.venv/bin/python clients/python/bench/overhead.py --no-ts    # Python only
    ... --json                                                                  # raw figures

Run from the repository root (the TypeScript part runs ``npx tsx clients/python/bench/overhead_ts.ts``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
API_KEY = "bench-key"
AGENT_ID = "0190a5f1-0000-4000-8000-000000000001"
VERSION_ID = "0190a5f1-0000-4000-8000-000000000002"

# -- the stub service ----------------------------------------------------------------------------

IDENTIFY = json.dumps(
    {"agentId": AGENT_ID, "agentVersionId": VERSION_ID, "projectId": "p", "version": "bench", "created": False}
).encode()
DECISION = json.dumps(
    {
        "evaluationId": "01970f3a-2000-7000-8000-000000000001",
        "mode": "monitor",
        "policyDecision": "allow",
        "effectiveDecision": "allow",
        "matchedGuardrails": [],
        "wouldBlock": False,
        "wouldRequireApproval": False,
        "evaluatedAt": "2026-11-21T15:18:04.123Z",
    }
).encode()


class StubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path == "/v1/events":
            accepted = raw.count(b'"sequence":')
            self._answer(202, b'{"accepted":%d,"rejected":[]}' % accepted)
        elif self.path == "/v1/guardrails/evaluate":
            self._answer(200, DECISION)
        elif self.path == "/v1/agents/identify":
            self._answer(200, IDENTIFY)
        else:
            self._answer(404, b'{"type":"x","title":"Not Found","status":404,"code":"not_found"}')

    def do_PUT(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self._answer(200, b'{"agentVersionId":"%s","capabilities":[]}' % VERSION_ID.encode())


def serve() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StubHandler)
    server.daemon_threads = True
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


# -- measurements --------------------------------------------------------------------------------


def summary(samples_ns: List[int]) -> Dict[str, float]:
    s = sorted(samples_ns)
    pick = lambda q: s[min(len(s) - 1, int(q * len(s)))] / 1000  # noqa: E731
    return {
        "n": len(s),
        "mean_us": round(statistics.fmean(s) / 1000, 2),
        "p50_us": round(pick(0.50), 2),
        "p99_us": round(pick(0.99), 2),
    }


def bench_python(url: str, n_track: int, n_tool: int) -> Dict[str, Any]:
    sys.path.insert(0, str(HERE.parent / "src"))
    from agentwarden import WardenClient

    out: Dict[str, Any] = {}
    payload = lambda i: {"key": "order:4412", "n": i, "tags": ["a", "b"]}  # noqa: E731

    # track(): caller-side cost, with the daemon thread sending batches meanwhile.
    for label, enabled in (("track", True), ("track_disabled", False)):
        c = WardenClient(enabled=enabled, base_url=url, api_key=API_KEY, agent="bench", max_queue_size=1_000_000)
        c.ready()
        for i in range(2000):  # warm-up
            c.track("warm", payload(i))
        c.flush()
        samples = []
        t_all = time.perf_counter_ns()
        for i in range(n_track):
            t0 = time.perf_counter_ns()
            c.track("cache.hit", payload(i))
            samples.append(time.perf_counter_ns() - t0)
        total = time.perf_counter_ns() - t_all
        t_flush = time.perf_counter()
        res = c.flush()
        flush_ms = (time.perf_counter() - t_flush) * 1000
        out[label] = {
            **summary(samples),
            "throughput_per_s": round(n_track / (total / 1e9)),
            "final_flush_ms": round(flush_ms, 1),
        }
        stats = c.stats()
        out[label]["dropped"] = stats.dropped
        c.shutdown()
        del res

    # with_tool in monitor mode: guard round trip + tool.started/completed + guardrail.evaluated.
    c = WardenClient(base_url=url, api_key=API_KEY, agent="bench", mode="monitor", max_queue_size=1_000_000)
    c.ready()
    for variant, guard, n in (("with_tool_monitor", True, n_tool), ("with_tool_no_guard", False, n_track)):
        for i in range(200):
            with c.with_tool("search", arguments={"q": i}, guard=guard) as call:
                call.result = {"hits": i}
        samples = []
        for i in range(n):
            t0 = time.perf_counter_ns()
            with c.with_tool("search", arguments={"q": i}, guard=guard) as call:
                call.result = {"hits": i}
            samples.append(time.perf_counter_ns() - t0)
        out[variant] = summary(samples)
        c.flush()
    c.shutdown()

    # The bare round trip: one keep-alive POST of a guard request, no client.
    host, port = url.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port))
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as the client does
    body = json.dumps(
        {
            "agentId": AGENT_ID,
            "agentVersionId": VERSION_ID,
            "sessionId": "01970f3a-1000-7000-8000-000000000001",
            "toolCallId": "01970f3a-1000-7000-8000-000000000003",
            "mode": "monitor",
            "tool": {"name": "search"},
            "action": {"name": "search"},
            "arguments": {"q": 1},
            "dryRun": False,
        }
    ).encode()
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    samples = []
    for i in range(200 + n_tool):
        t0 = time.perf_counter_ns()
        conn.request("POST", "/v1/guardrails/evaluate", body=body, headers=headers)
        json.loads(conn.getresponse().read())
        if i >= 200:
            samples.append(time.perf_counter_ns() - t0)
    out["bare_round_trip"] = summary(samples)
    conn.close()
    out["runtime"] = f"Python {platform.python_version()}"
    return out


def bench_ts(url: str, n_track: int, n_tool: int) -> Dict[str, Any]:
    out = subprocess.run(
        ["npx", "tsx", str(HERE / "overhead_ts.ts"), "--url", url, "--track", str(n_track), "--tool", str(n_tool)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if out.returncode != 0:
        raise RuntimeError(f"overhead_ts.ts failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(results: Dict[str, Dict[str, Any]]) -> str:
    rows = [
        ("`track()` (caller thread, background sending on)", "track", "trackp"),
        ("`track()` on a disabled client (floor)", "track_disabled", ""),
        ("`with_tool` monitor, guard on (1 round trip)", "with_tool_monitor", ""),
        ("`with_tool` with `guard=False` (events only)", "with_tool_no_guard", ""),
        ("bare keep-alive POST to the stub (no client)", "bare_round_trip", ""),
    ]
    langs = list(results)
    head = "| operation | " + " | ".join(f"{results[l]['runtime']} p50 / p99 / mean (µs)" for l in langs) + " |"
    sep = "|---|" + "---|" * len(langs)
    lines = [head, sep]
    for label, key, _ in rows:
        cells = []
        for l in langs:
            r = results[l].get(key)
            cells.append("—" if r is None else f"{r['p50_us']} / {r['p99_us']} / {r['mean_us']}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    for l in langs:
        t = results[l].get("track")
        if t:
            lines.append("")
            lines.append(
                f"{results[l]['runtime']}: {t['n']} `track()` calls at {t['throughput_per_s']:,} calls/s in the caller; "
                f"final flush of what was left {t['final_flush_ms']} ms; dropped {t['dropped']}."
            )
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--serve", action="store_true", help="run the stub service (prints its URL)")
    p.add_argument("--track", type=int, default=20_000, help="track() calls measured")
    p.add_argument("--tool", type=int, default=2_000, help="with_tool calls (guard on) measured")
    p.add_argument("--no-ts", action="store_true", help="skip the TypeScript client")
    p.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    o = p.parse_args()
    if o.serve:
        serve()
        return 0
    stub = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert stub.stdout is not None
        url = stub.stdout.readline().strip()
        results: Dict[str, Dict[str, Any]] = {"python": bench_python(url, o.track, o.tool)}
        if not o.no_ts:
            results["typescript"] = bench_ts(url, o.track, o.tool)
    finally:
        stub.terminate()
        stub.wait(10)
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"
    if o.json:
        print(json.dumps({"machine": machine, "results": results}, indent=2))
    else:
        print(f"machine: {machine}; stub: {url} (Python http.server, own process)\n")
        print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
