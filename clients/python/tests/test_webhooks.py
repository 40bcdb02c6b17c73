"""Webhook signatures as the gateway makes them (HMAC-SHA256 over ``<t>.<body>``), checked by the client."""

from __future__ import annotations

import hashlib
import hmac
import unittest

from winnow import verify_webhook_signature

SECRET = "whsec_test"
BODY = '{"id":"job:0","type":"page"}'
NOW = 1_800_000_000


def sign(t: int, body: str = BODY, key: str = SECRET) -> str:
    return f"t={t},v1=" + hmac.new(key.encode(), f"{t}.{body}".encode(), hashlib.sha256).hexdigest()


class VerifyWebhookSignatureTest(unittest.TestCase):
    def test_accepts_the_body_it_was_signed_over(self) -> None:
        self.assertTrue(verify_webhook_signature(BODY, sign(NOW), SECRET, now=NOW))
        self.assertTrue(verify_webhook_signature(BODY.encode(), sign(NOW), SECRET, now=NOW))

    def test_refuses_tampering_other_secrets_old_timestamps_and_malformed_headers(self) -> None:
        self.assertFalse(verify_webhook_signature(BODY + " ", sign(NOW), SECRET, now=NOW))
        self.assertFalse(verify_webhook_signature(BODY, sign(NOW, key="other"), SECRET, now=NOW))
        self.assertFalse(verify_webhook_signature(BODY, sign(NOW - 301), SECRET, now=NOW))
        self.assertFalse(verify_webhook_signature(BODY, sign(NOW + 301), SECRET, now=NOW))
        self.assertTrue(verify_webhook_signature(BODY, sign(NOW - 600), SECRET, now=NOW, tolerance_seconds=900))
        for header in ["", "t=abc,v1=00", "v1=" + "0" * 64, f"t={NOW}", f"t={NOW},v1=zz"]:
            self.assertFalse(verify_webhook_signature(BODY, header, SECRET, now=NOW))

    def test_answers_false_never_raises_for_a_missing_or_non_ascii_header(self) -> None:
        for header in [None, 42, f"t={'١' * 10},v1=" + "0" * 64, f"t={NOW},v1=" + "é" * 64, "t=\ud800,v1=00"]:
            self.assertFalse(verify_webhook_signature(BODY, header, SECRET, now=NOW))  # type: ignore[arg-type]
        self.assertFalse(verify_webhook_signature("\ud800", sign(NOW), SECRET, now=NOW))

    def test_accepts_several_v1_signatures_when_one_is_by_its_secret(self) -> None:
        def mac(key: str) -> str:
            return sign(NOW, key=key).split(",v1=")[1]

        rotated = f"t={NOW},v1={mac('whsec_new')},v1={mac(SECRET)}"
        self.assertTrue(verify_webhook_signature(BODY, rotated, SECRET, now=NOW))
        self.assertTrue(verify_webhook_signature(BODY, rotated, "whsec_new", now=NOW))
        self.assertFalse(verify_webhook_signature(BODY, rotated, "whsec_other", now=NOW))


if __name__ == "__main__":
    unittest.main()
