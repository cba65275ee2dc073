"""Python 3.9 compatibility: the package must not use syntax or library features newer than 3.9.

Checked statically with vermin (https://github.com/netromdk/vermin), which knows per feature the
Python version that introduced it, so the check runs on whatever interpreter runs the tests.
"""

import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "agentwarden"


@pytest.mark.unit
def test_source_runs_on_python_3_9() -> None:
    out = subprocess.run(
        [str(Path(sys.executable).with_name("vermin")), "-t=3.9-", "--violations", "--no-tips", str(SRC)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
