"""The real service for the integration tests: a fresh PostgreSQL database (created on the server of
``DATABASE_URL``, dropped after) and the standalone service (``node --import tsx
services/standalone/src/main.ts``) started on it as a child process, stopped with SIGTERM."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[3]


def database_url() -> str:
    """``DATABASE_URL``, else the one in ``<repo>/.infra/env`` (written by ``infra/services.sh up``)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    env_file = Path(os.environ.get("WARDEN_INFRA_DIR", REPO / ".infra")) / "env"
    if env_file.exists():
        for line in env_file.read_text().splitlines():
            line = line.strip().removeprefix("export ").strip()
            if line.startswith("DATABASE_URL="):
                return line.split("=", 1)[1].strip().strip("'\"")
    raise RuntimeError(
        "integration tests need PostgreSQL: set DATABASE_URL or run `bash infra/services.sh up` "
        f"(then `source .infra/env`); {env_file} not found"
    )


def psql(url: str, sql: str) -> str:
    """Runs ``sql`` with psql and returns its unaligned output."""
    out = subprocess.run(
        ["psql", url, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-At", "-c", sql],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out.stdout.strip()


class ScratchDatabase:
    """``warden_pytest_<random>`` on the server of ``DATABASE_URL``; the service migrates it."""

    def __init__(self) -> None:
        self.admin_url = database_url()
        self.name = f"warden_pytest_{secrets.token_hex(6)}"
        parts = urlsplit(self.admin_url)
        self.url = urlunsplit(parts._replace(path=f"/{self.name}"))

    def create(self) -> "ScratchDatabase":
        psql(self.admin_url, f"CREATE DATABASE {self.name}")
        return self

    def drop(self) -> None:
        psql(self.admin_url, f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


class Standalone:
    """The standalone service as a child process; ``url`` and ``project_id`` once ready."""

    def __init__(self, *, database_url: str, data_dir: Path, api_key: str) -> None:
        self.env = {
            **os.environ,
            "PORT": "0",
            "WARDEN_DATA_DIR": str(data_dir),
            "WARDEN_INIT_API_KEY": api_key,
            "DATABASE_URL": database_url,
            "LOG_LEVEL": "info",
        }
        self.api_key = api_key
        self.lines: List[str] = []
        self.url = ""
        self.project_id = ""
        self.proc: Optional[subprocess.Popen] = None
        self._ready = threading.Event()
        self._reader: Optional[threading.Thread] = None

    def start(self, timeout: float = 120) -> "Standalone":
        # `node --import tsx` (not the tsx CLI): the pid is the service itself, so SIGTERM reaches it.
        self.proc = subprocess.Popen(
            ["node", "--import", "tsx", "services/standalone/src/main.ts"],
            cwd=REPO,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self._reader = threading.Thread(target=self._read, name="standalone-stdout", daemon=True)
        self._reader.start()
        if not self._ready.wait(timeout):
            self.stop()
            raise RuntimeError("standalone not ready in time:\n" + "\n".join(self.lines[-30:]))
        if not self.url:
            raise RuntimeError("standalone exited before it was ready:\n" + "\n".join(self.lines[-30:]))
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if not self._ready.is_set() and '"agent warden ready"' in line:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if record.get("msg") == "agent warden ready":
                    self.url = record["url"]
                    self.project_id = record.get("projectId", "")
                    self._ready.set()
        self._ready.set()  # exited

    def stop(self, timeout: float = 30) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self._reader is not None:
            self._reader.join(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def get(self, path: str) -> Any:
        req = urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {self.api_key}"})
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.loads(res.read())

    def post(self, path: str, body: Any) -> Any:
        """POSTs ``body`` as JSON with the service's key; returns the decoded answer."""
        req = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.loads(res.read())

    def stats(self, *agent_version_ids: str) -> Dict[str, Any]:
        return self.get("/v1/stats/events?agentVersionId=" + ",".join(agent_version_ids))

    def wait_for_stats(self, agent_version_ids: List[str], events: int, timeout: float = 30) -> Dict[str, Any]:
        """The stats once ``events`` events are stored (or the last read after ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        stats = self.stats(*agent_version_ids)
        while stats["events"] < events and time.monotonic() < deadline:
            time.sleep(0.2)
            stats = self.stats(*agent_version_ids)
        return stats
