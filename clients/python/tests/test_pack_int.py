"""Integration (issue 16 item 5): the Python client installs from its wheel. ``python -m build``
makes the sdist and, from it, the wheel; the wheel is installed with pip into a new virtual
environment (no index: the client needs nothing but the standard library); the README's quick
start (the first ```python block under "Quick start") runs there as written, by that environment's
plain ``python``, against the standalone service on a fresh PostgreSQL database; then the session,
the guarded tool call and its guardrail evaluation the quick start made are read back through the
API."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import time
import zipfile
from email.parser import Parser
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, TypeVar

import pytest

from standalone import Standalone
from test_readme_int import quick_start_blocks
from test_standalone_int import service  # noqa: F401  (the module-scoped standalone fixture)

pytestmark = pytest.mark.integration

PY_ROOT = Path(__file__).resolve().parents[1]
README = PY_ROOT / "README.md"
#: What the quick start does (checked against the README, so the two cannot drift).
AGENT_KEY = "billing-assistant"
TOOL = "stripe.refund"
INPUT_SUMMARY = "Please refund order 4412"

T = TypeVar("T")


def user_env(**extra: str) -> Dict[str, str]:
    """The environment of a user's shell: none of the developer's WARDEN_*, PYTHON* or PIP_* variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WARDEN_", "PYTHON", "PIP_"))}
    env.pop("VIRTUAL_ENV", None)
    env.update(extra)
    return env


def sh(args: List[str], cwd: Path, timeout: float = 300, env: Optional[Dict[str, str]] = None) -> str:
    """Runs ``args``; returns stdout, fails the test with both streams when it exits non-zero."""
    out = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env or user_env())
    assert out.returncode == 0, f"{args} exited {out.returncode}:\n{out.stdout[-4000:]}\n{out.stderr[-4000:]}"
    return out.stdout


def wait_for(check: Callable[[], Optional[T]], timeout: float = 30) -> T:
    """Polls ``check`` every 0.2 s until it returns something other than None (fails after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value is not None:
            return value
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    """The sdist and the wheel ``python -m build`` makes of this checkout."""
    out = tmp_path_factory.mktemp("dist")
    # The test environment's interpreter, which has `build` (the `test` extra).
    sh([sys.executable, "-m", "build", "--outdir", str(out), str(PY_ROOT)], cwd=out)
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


@pytest.fixture(scope="module")
def venv_python(dists: Dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The interpreter of a new virtual environment with only the wheel installed."""
    home = tmp_path_factory.mktemp("project")
    sh([sys.executable, "-m", "venv", str(home / "venv")], cwd=home)
    python = home / "venv" / "bin" / "python"
    sh(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
            str(dists["wheel"]),
        ],
        cwd=home,
    )
    yield python


def test_the_wheel_and_the_sdist_carry_the_package_its_data_and_its_metadata(dists: Dict[str, Path]):
    wheel = dists["wheel"]
    # Pure Python, any interpreter 3.x; the version is pyproject's.
    assert wheel.name.startswith("agentwarden-") and wheel.name.endswith("-py3-none-any.whl"), wheel.name
    version = wheel.name.split("-")[1]
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        metadata = Parser().parsestr(z.read(f"agentwarden-{version}.dist-info/METADATA").decode())
    assert {"agentwarden/__init__.py", "agentwarden/instruction_rules.json", "agentwarden/py.typed"} <= names
    assert not [n for n in names if n.startswith("tests/")]
    assert (metadata["Name"], metadata["Version"]) == ("agentwarden", version)
    assert metadata["Requires-Python"] == ">=3.9"
    assert metadata["License-Expression"] == "Apache-2.0"
    # Standard library only at run time: every requirement belongs to an extra.
    assert all("extra ==" in r for r in metadata.get_all("Requires-Dist") or [])
    with tarfile.open(dists["sdist"]) as t:
        members = set(t.getnames())
    assert {
        f"agentwarden-{version}/pyproject.toml",
        f"agentwarden-{version}/README.md",
        f"agentwarden-{version}/src/agentwarden/instruction_rules.json",
    } <= members


def test_the_installed_package_is_the_wheel_and_reads_its_rules_file(venv_python: Path, tmp_path: Path):
    code = (
        "import agentwarden, agentwarden._instructions as i; "
        "print(agentwarden.__file__); print(len(i.load_rules()['rules']))"
    )
    where, rules = sh([str(venv_python), "-c", code], cwd=tmp_path).split()
    installed = Path(where).resolve()
    assert venv_python.parent.parent.resolve() in installed.parents, f"imported from {installed}"
    assert PY_ROOT not in installed.parents
    assert int(rules) > 0


def test_the_readme_quick_start_runs_as_written_and_its_session_tool_call_and_guard_check_are_stored(
    service: Standalone, venv_python: Path, tmp_path: Path  # noqa: F811
):
    blocks = quick_start_blocks(README.read_text(encoding="utf-8"))
    assert blocks, "README.md has no ```python block under '## Quick start'"
    code = blocks[0]
    for expected in (f'agent="{AGENT_KEY}"', f'"{TOOL}"', INPUT_SUMMARY, "start_session", "shutdown()"):
        assert expected in code, f"the quick start no longer holds {expected!r}"

    script = tmp_path / "agent.py"
    script.write_text(code, encoding="utf-8")
    run = subprocess.run(
        [str(venv_python), str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=user_env(WARDEN_BASE_URL=service.url, WARDEN_API_KEY=service.api_key),
    )
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    # The client logs what fails (registration, unsent events) as warnings on stderr.
    assert run.stderr == ""
    assert "refunded re_1" in run.stdout

    def sessions() -> Optional[List[Dict[str, Any]]]:
        agents = [a for a in service.get("/v1/agents")["items"] if a["key"] == AGENT_KEY]
        if not agents:
            return None
        items: List[Dict[str, Any]] = service.get(f"/v1/sessions?agentId={agents[0]['id']}&limit=10")["items"]
        return items or None

    found = wait_for(sessions)
    assert [s["inputSummary"] for s in found] == [INPUT_SUMMARY]
    session_id = found[0]["id"]

    def ended() -> Optional[Dict[str, Any]]:
        detail: Dict[str, Any] = service.get(f"/v1/sessions/{session_id}")
        types = [e["type"] for e in detail["events"]]
        return detail if "agent.session.ended" in types and "agent.tool.completed" in types else None

    detail = wait_for(ended)
    assert detail["status"] == "completed"
    events = detail["events"]
    started = [e["data"] for e in events if e["type"] == "agent.tool.started"]
    completed = [e["data"] for e in events if e["type"] == "agent.tool.completed"]
    assert [d["toolName"] for d in started] == [TOOL]
    assert started[0]["arguments"] == {"charge_id": "ch_1", "amount": 120}
    assert [d["toolName"] for d in completed] == [TOOL]
    assert completed[0]["toolCallId"] == started[0]["toolCallId"]
    assert completed[0]["result"] == {"refund_id": "re_1", "amount": 120}
    assert not [e for e in events if e["type"] == "agent.tool.failed"]

    # The guard check before the call: an evaluation of that tool call, and the client's event of it.
    evaluations = service.get(f"/v1/sessions/{session_id}/evaluations")["items"]
    assert len(evaluations) == 1
    evaluation = evaluations[0]
    assert (evaluation["toolName"], evaluation["toolCallId"], evaluation["mode"]) == (
        TOOL,
        started[0]["toolCallId"],
        "monitor",
    )
    evaluated = [e["data"] for e in events if e["type"] == "agent.guardrail.evaluated"]
    assert [(d["evaluationId"], d["toolCallId"], d["outcome"]) for d in evaluated] == [
        (evaluation["id"], started[0]["toolCallId"], "ran")
    ]
