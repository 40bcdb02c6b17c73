"""Verifying Winnow's webhook deliveries."""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from typing import Optional, Union

#: The header Winnow signs each webhook delivery with: ``t=<unix seconds>,v1=<hex HMAC-SHA256>``, with a
#: second ``,v1=`` (by the previous secret) while the account's webhook secret rotates.
WEBHOOK_SIGNATURE_HEADER = "Winnow-Signature"


def verify_webhook_signature(
    body: Union[bytes, str],
    signature: Optional[str],
    secret: str,
    *,
    tolerance_seconds: int = 300,
    now: Optional[int] = None,
) -> bool:
    """True when ``signature`` (the Winnow-Signature header) holds the account's webhook
    secret's HMAC-SHA256 of ``<t>.<body>`` as one of its ``v1=`` values (while a secret
    rotates, deliveries carry one per secret) and ``t`` is recent (against replays).
    Pass the body exactly as received, before any JSON parsing. A missing or malformed
    header is False, never an exception."""
    if not isinstance(signature, str):
        return False
    parts = [tuple(part.strip() for part in item.split("=", 1)) for item in signature.split(",") if "=" in item]
    timestamps = [value for name, value in parts if name == "t"]
    # ASCII digits only: str.isdigit() and int() also take other scripts' digits.
    if len(timestamps) != 1 or not re.fullmatch(r"[0-9]{1,12}", timestamps[0]):
        return False
    timestamp = timestamps[0]
    current = int(time.time()) if now is None else now
    if abs(current - int(timestamp)) > tolerance_seconds:
        return False
    given = [value for name, value in parts if name == "v1" and re.fullmatch(r"[0-9a-f]{64}", value)]
    try:
        raw = body.encode("utf-8") if isinstance(body, str) else body
        key = secret.encode("utf-8")
    except UnicodeEncodeError:
        return False
    expected = hmac.new(key, timestamp.encode("ascii") + b"." + raw, hashlib.sha256).hexdigest()
    # Every candidate is compared (in constant time), so the answer's timing says nothing of which matched.
    return any([hmac.compare_digest(expected, value) for value in given])
