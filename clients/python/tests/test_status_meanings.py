"""Each status's one-line meaning, as the client gives it to show beside a value (test/field-status-meanings.test.ts
keeps the list in step with the gateway's)."""

from __future__ import annotations

import unittest

from winnow import STATUS_MEANINGS, describe_status


class DescribeStatusTest(unittest.TestCase):
    def test_says_what_each_status_means_in_one_line(self) -> None:
        self.assertIn("not-found", STATUS_MEANINGS)
        for status, meaning in STATUS_MEANINGS.items():
            self.assertEqual(describe_status(status), meaning)
        self.assertRegex(describe_status("not-found"), r"^null: .*page may state one")

    def test_says_a_status_a_newer_server_sends_is_one_this_client_does_not_know(self) -> None:
        for status in ["retracted", "__class__"]:
            self.assertEqual(
                describe_status(status), f"A status this client does not know ({status}): see the API docs."
            )


if __name__ == "__main__":
    unittest.main()
