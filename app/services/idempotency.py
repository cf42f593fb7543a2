"""An idempotency key is bound to the request it first came with.

A retry (same key, same seat, same ``expected_version``, same action) is answered
with the first result and applies nothing new. The same key with anything else is
a client bug that would otherwise lose the new action silently: it is refused with
422 ``idempotency_key_reused`` and nothing is applied.

The request's fingerprint (sha256 of the canonical JSON of seat, expected version
and action) is stored with the action, inside its saved ``result``; actions saved
before fingerprints existed match any retry (the old behaviour).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from app.services.errors import Conflict, Invalid

#: the key under which the fingerprint rides in ``actions.result``
FINGERPRINT = "request_fingerprint"


def fingerprint(seat: int | None, expected_version: int, action: dict[str, Any]) -> str:
    canonical = json.dumps(
        {"seat": seat, "expected_version": expected_version, "action": action},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def replay_of(
    prior_user_id: int | None, prior_result: dict[str, Any] | None, user_id: int, fp: str
) -> dict[str, Any]:
    """The saved answer to give a retry, or an error when the key is not this request's."""
    if prior_user_id != user_id or prior_result is None:
        raise Conflict("That idempotency key was already used for another action.")
    stored = prior_result.get(FINGERPRINT)
    if stored is not None and stored != fp:
        raise Invalid(
            "This idempotency_key was already used with a different action or "
            "expected_version; nothing was applied. Use a new key for a new action.",
            code="idempotency_key_reused",
            field="idempotency_key",
        )
    return {k: v for k, v in prior_result.items() if k != FINGERPRINT}


def stamped(result: dict[str, Any], fp: str) -> dict[str, Any]:
    """The result to store with the action, carrying the request's fingerprint."""
    return {**result, FINGERPRINT: fp}
