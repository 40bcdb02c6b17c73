"""Verifying Winnow's webhook deliveries."""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from typing import Optional, Union

#: The header Winnow signs each webhook delivery with: ``t=<unix seconds>,v1=<hex HMAC-SHA256>``.
WEBHOOK_SIGNATURE_HEADER = "Winnow-Signature"


def verify_webhook_signature(
    body: Union[bytes, str],
    signature: str,
    secret: str,
    *,
    tolerance_seconds: int = 300,
    now: Optional[int] = None,
) -> bool:
    """True when ``signature`` (the Winnow-Signature header) is the account's webhook
    secret's HMAC-SHA256 of ``<t>.<body>`` and ``t`` is recent (against replays).
    Pass the body exactly as received, before any JSON parsing."""
    parts = dict(part.strip().split("=", 1) for part in signature.split(",") if "=" in part)
    timestamp, given = parts.get("t", ""), parts.get("v1", "")
    if not timestamp.isdigit() or not re.fullmatch(r"[0-9a-f]{64}", given):
        return False
    current = int(time.time()) if now is None else now
    if abs(current - int(timestamp)) > tolerance_seconds:
        return False
    raw = body.encode("utf-8") if isinstance(body, str) else body
    expected = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, given)
