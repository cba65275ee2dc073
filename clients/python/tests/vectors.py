"""The contract's JSON test vectors (``libs/contracts/vectors``, generated from the zod schemas)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Dict

VECTORS_DIR = Path(__file__).resolve().parents[3] / "libs" / "contracts" / "vectors"


@functools.lru_cache(maxsize=None)
def load_vectors() -> Dict[str, Dict[str, Any]]:
    """Every vector file, by name (``identify-request``, ``guard-decision``, ...)."""
    files = sorted(VECTORS_DIR.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"no vectors in {VECTORS_DIR}; run npx tsx libs/contracts/scripts/generate-vectors.ts")
    return {f.stem: json.loads(f.read_text("utf-8")) for f in files}


def vector(name: str) -> Dict[str, Any]:
    return load_vectors()[name]


def examples(name: str) -> Dict[str, Dict[str, Any]]:
    """The examples of a vector, by example name."""
    return {e["name"]: e for e in vector(name)["examples"]}


@functools.lru_cache(maxsize=None)
def request_validator(name: str) -> Any:
    """A JSON Schema (draft 2020-12) validator for the body of a vector (uses ``jsonschema``)."""
    from jsonschema import Draft202012Validator

    schema = vector(name)["schema"]
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
