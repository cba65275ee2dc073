"""Seeds a fresh service for the fuzz run (scripts/fuzz/run.sh) and prints a schemathesis.toml.

Without data every operation on an id (`/v1/sessions/{sessionId}`, `/v1/policies/{policyId}`, ...)
answers 404 to random UUIDs and its logic is never reached. This makes one of each through the API
(an agent and version, a session with a run, a tool call and messages, a require_approval policy,
a pending approval, a second API key) and binds the path parameters to them, so schemathesis
fuzzes the bodies and queries of those operations against real rows.

Usage: python seed.py <base url> <api key>  (stdout: the TOML; errors: exit 1 with the answer)
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
import uuid


def uuid7() -> str:
    """A UUIDv7 (RFC 9562 §5.7): 48-bit Unix ms timestamp, version 7, variant 10, random rest."""
    ms = int(time.time() * 1000)
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms << 80) | (0x7 << 76) | ((rand >> 68) & 0xFFF) << 64 | (0b10 << 62) | (rand & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))


def call(base: str, key: str, method: str, path: str, body: object | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {key}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.loads(res.read() or b"null")
    except urllib.error.HTTPError as err:
        sys.exit(f"seed: {method} {path} → {err.code}: {err.read().decode(errors='replace')}")


def main() -> None:
    base, key = sys.argv[1], sys.argv[2]
    ident = call(base, key, "POST", "/v1/agents/identify", {"agent": {"key": "fuzz-agent"}, "version": {"version": "1"}})
    agent_id, version_id = ident["agentId"], ident["agentVersionId"]
    policy = call(
        base,
        key,
        "POST",
        "/v1/policies",
        {
            "name": "fuzz: approve payments",
            "decision": "require_approval",
            "match": {"field": "tool.name", "op": "eq", "value": "send_money"},
        },
    )
    session_id, run_id, tool_call_id = uuid7(), uuid7(), uuid7()
    check = {
        "agentId": agent_id,
        "agentVersionId": version_id,
        "sessionId": session_id,
        "runId": run_id,
        "toolCallId": tool_call_id,
        "mode": "enforce",
        "tool": {"name": "send_money"},
        "arguments": {"amount": 5},
    }
    # The gateway's policy store reloads after the write (at once in standalone, within its poll at worst).
    for _ in range(100):
        decision = call(base, key, "POST", "/v1/guardrails/evaluate", check)
        if "approval" in decision:
            break
        time.sleep(0.1)
    else:
        sys.exit(f"seed: the policy never applied: {decision}")
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    payloads = [
        ("agent.session.started", None, {"inputSummary": "fuzz seed"}),
        ("agent.run.started", run_id, {"name": "main"}),
        ("agent.tool.started", run_id, {"toolCallId": tool_call_id, "toolName": "send_money", "arguments": {"amount": 5}}),
        ("agent.message.logged", run_id, {"role": "assistant", "content": "paying"}),
        ("agent.tool.completed", run_id, {"toolCallId": tool_call_id, "toolName": "send_money", "durationMs": 3}),
        ("agent.run.completed", run_id, {"status": "succeeded"}),
        ("agent.session.ended", None, {"status": "completed"}),
    ]
    events = []
    for i, (kind, run, data) in enumerate(payloads, start=1):
        e = {"id": uuid7(), "type": kind, "time": now, "sessionId": session_id, "agentId": agent_id}
        e.update({"agentVersionId": version_id, "sequence": i, "data": data})
        if run:
            e["runId"] = run
        events.append(e)
    stored = call(base, key, "POST", "/v1/events", {"events": events})
    if stored.get("accepted") != len(events):
        sys.exit(f"seed: events not all accepted: {stored}")
    spare_key = call(base, key, "POST", "/v1/api-keys", {"name": "fuzz spare", "scopes": ["read"]})
    users = call(base, key, "GET", "/v1/users")
    # Nothing listens on port 9 (discard): its deliveries fail and are retried, as a dead receiver's are.
    webhook = call(base, key, "POST", "/v1/webhooks", {"url": "http://127.0.0.1:9/fuzz", "eventTypes": ["guard.blocked"]})
    bindings = {
        "path.agentId": agent_id,
        "path.agentVersionId": version_id,
        "path.sessionId": session_id,
        "path.policyId": policy["id"],
        "path.approvalId": decision["approval"]["id"],
        "path.keyId": spare_key["id"],
        "path.userId": users["items"][0]["id"],
        "path.webhookId": webhook["id"],
    }
    print("[parameters]")
    for name, value in bindings.items():
        print(f'"{name}" = "{value}"')


if __name__ == "__main__":
    main()
