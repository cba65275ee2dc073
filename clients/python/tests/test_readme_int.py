"""Integration: ``pip install ./clients/python`` in a fresh virtual environment, then the README's
quick start works as written against the real service (the standalone service of
``test_standalone_int``, on a fresh PostgreSQL database).

The quick start's ```python blocks are taken from README.md (the fenced blocks under the
"Quick start" heading, up to the next heading of the same or a higher level), each run as a script
by the new environment's interpreter with ``WARDEN_BASE_URL`` / ``WARDEN_API_KEY`` set; then the
service is asked (``GET /v1/agents``, ``GET /v1/stats/events``) whether the quick start's agent
really sent events."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from standalone import Standalone
from test_standalone_int import service  # noqa: F401  (the module-scoped standalone fixture)

pytestmark = pytest.mark.integration

PY_ROOT = Path(__file__).resolve().parents[1]
README = PY_ROOT / "README.md"
#: The agent key the quick start uses (``agent="billing-assistant"``).
QUICK_START_AGENT = "billing-assistant"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([^\s`]*)")


def quick_start_blocks(markdown: str, heading: str = "quick start") -> List[str]:
    """The ```python blocks of the section titled ``heading`` (case-insensitive)."""
    blocks: List[str] = []
    level = 0  # level of the quick start heading once found
    fence = ""  # the opening fence while inside a code block
    lang = ""
    body: List[str] = []
    for line in markdown.splitlines():
        if fence:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                if level and lang == "python":
                    blocks.append("\n".join(body) + "\n")
                fence, body = "", []
            else:
                body.append(line)
            continue
        m = _FENCE.match(line)
        if m:
            fence, lang, body = m.group(1), m.group(2).lower(), []
            continue
        h = _HEADING.match(line)
        if h:
            if level and len(h.group(1)) <= level:
                break
            if not level and h.group(2).strip().lower() == heading:
                level = len(h.group(1))
    return blocks


def test_quick_start_blocks_are_found():
    blocks = quick_start_blocks(README.read_text(encoding="utf-8"))
    assert blocks, "README.md has no ```python block under '## Quick start'"
    assert "WardenClient" in blocks[0] and QUICK_START_AGENT in blocks[0]


def agent_events(service: Standalone, key: str) -> Tuple[int, Dict[str, int]]:
    """Events stored for every version of the agent ``key`` (0 if it is not registered)."""
    agents = [a for a in service.get("/v1/agents")["items"] if a["key"] == key]
    version_ids = [v["id"] for a in agents for v in a["versions"]]
    if not version_ids:
        return 0, {}
    stats = service.stats(*version_ids)
    assert stats["duplicates"] == 0
    return stats["events"], stats["byType"]


def test_pip_install_in_a_fresh_venv_then_the_readme_quick_start_works(
    service: Standalone, tmp_path: Path  # noqa: F811
):
    blocks = quick_start_blocks(README.read_text(encoding="utf-8"))
    assert blocks

    # A fresh virtual environment with pip, and a regular (not editable) install of the client.
    env_dir = tmp_path / "venv"
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("WARDEN_", "PYTHON", "PIP_"))}
    base_env.pop("VIRTUAL_ENV", None)
    made = subprocess.run(
        [sys.executable, "-m", "venv", str(env_dir)], capture_output=True, text=True, timeout=120, env=base_env
    )
    assert made.returncode == 0, made.stderr
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(PY_ROOT)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env=base_env,
    )
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    where = subprocess.run(
        [str(python), "-c", "import agentwarden; print(agentwarden.__file__)"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
        env=base_env,
    )
    assert where.returncode == 0, where.stderr
    installed = Path(where.stdout.strip()).resolve()
    assert env_dir.resolve() in installed.parents, f"agentwarden imported from {installed}, not the new venv"
    assert PY_ROOT / "src" not in installed.parents

    # Each quick-start block, as written, with the service in the environment.
    run_env = {**base_env, "WARDEN_BASE_URL": service.url, "WARDEN_API_KEY": service.api_key}
    for i, code in enumerate(blocks):
        before, before_types = agent_events(service, QUICK_START_AGENT)
        script = tmp_path / f"quick_start_{i}.py"
        script.write_text(code, encoding="utf-8")
        out = subprocess.run(
            [str(python), str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=run_env
        )
        assert out.returncode == 0, f"quick start block {i} failed:\n{code}\n{out.stdout}\n{out.stderr}"
        # The client logs what fails (unsent events, registration errors) as warnings on stderr.
        assert out.stderr == "", f"quick start block {i} logged:\n{out.stderr}"

        # Its events are stored for the quick start's agent (the service stores them asynchronously).
        deadline = time.monotonic() + 15
        after, after_types = agent_events(service, QUICK_START_AGENT)
        while after <= before and time.monotonic() < deadline:
            time.sleep(0.2)
            after, after_types = agent_events(service, QUICK_START_AGENT)
        assert after > before, f"no event stored for agent {QUICK_START_AGENT!r} by quick start block {i}"
        while time.monotonic() < deadline:  # until the count settles (all of the block's events)
            time.sleep(0.5)
            settled, settled_types = agent_events(service, QUICK_START_AGENT)
            if settled == after:
                break
            after, after_types = settled, settled_types
        completed = after_types.get("agent.tool.completed", 0) - before_types.get("agent.tool.completed", 0)
        assert completed >= 1, f"block {i}: {before_types} -> {after_types}"
        print(f"quick start block {i}: {after - before} events stored for {QUICK_START_AGENT!r}")

    _, by_type = agent_events(service, QUICK_START_AGENT)
    assert by_type.get("agent.tool.failed", 0) == 0
