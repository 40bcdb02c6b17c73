"""The Python client against the real Winnow stack, with a scripted upstream for retries and timeouts."""

from __future__ import annotations

import asyncio
import builtins
import os
import socket
import unittest
from typing import Any

from winnow import (
    AsyncWinnow,
    AuthenticationError,
    ConnectionError,
    InvalidRequestError,
    RateLimitError,
    ScrapeResult,
    ServerError,
    TargetError,
    TimeoutError,
    Winnow,
    WinnowError,
)

from .support import FixturePages, ScriptedUpstream, Stack, origin, serve

pages: Any = None
stack: Any = None
upstream: Any = None


def setUpModule() -> None:
    global pages, stack, upstream
    pages = serve(FixturePages)
    stack = Stack(egress_allow=f"127.0.0.1:{pages.server_address[1]}")
    upstream = ScriptedUpstream(stack.gateway_url)


def tearDownModule() -> None:
    upstream.close()
    stack.stop()
    pages.shutdown()
    pages.server_close()


def product_url() -> str:
    return origin(pages) + "/product"


def client(**options: Any) -> Winnow:
    """A client of the scripted upstream, with fast retries."""
    settings = {"api_key": stack.api_key, "base_url": upstream.url, "retry_base_delay": 0.01, **options}
    return Winnow(**settings)


class ScrapeTest(unittest.TestCase):
    def test_returns_data_in_the_schema_shape_with_the_key_sent(self) -> None:
        data = client().scrape(product_url(), {"product_name": "string", "price_usd": "number", "tags": ["string"]})
        self.assertEqual(data, {"product_name": "Ridgeline Trail Shoe", "price_usd": 129.99, "tags": None})
        self.assertEqual(upstream.seen[-1]["x-api-key"], stack.api_key)

    def test_every_answer_carries_each_fields_status_the_warnings_the_request_id_and_the_engine(self) -> None:
        data = client().scrape(product_url(), {"product_name": "string", "price_usd": "number", "tags": ["string"]})
        # From the Winnow-Field-Status header: the page shows the JSON-LD's name and price; nothing on it names tags.
        self.assertEqual(data.status, {"/product_name": "found", "/price_usd": "found", "/tags": "absent"})
        self.assertEqual((data.warnings, data.omitted, data.engine, data.render_path), ([], 0, "builtin", "static"))
        self.assertRegex(data.request_id or "", r"^[\w-]{8,}$")
        self.assertIsInstance(data, ScrapeResult)

    def test_a_json_schemas_answer_has_the_statuses_of_its_properties_not_of_its_keywords(self) -> None:
        schema = {
            "type": "object",
            "properties": {"product_name": {"$ref": "#/$defs/Name"}, "tags": {"type": "array", "items": {"type": "string"}}},
            "$defs": {"Name": {"type": "string"}},
        }
        data = client().scrape(product_url(), schema)
        self.assertEqual(data, {"product_name": "Ridgeline Trail Shoe", "tags": None})
        self.assertEqual(data.status, {"/product_name": "found", "/tags": "absent"})

    def test_reads_the_headers_as_the_gateway_writes_them_encoded_and_bounded(self) -> None:
        # A name outside ASCII travels percent-encoded; more than 32 fields that are not found are cut, and counted.
        data = client().scrape(product_url(), {"größe": "string", "brand": "string"})
        self.assertEqual(data.status, {"/größe": "absent", "/brand": "unverified"})
        many = {f"missing_{n}": "string" for n in range(40)}
        cut = client().scrape(product_url(), many)
        self.assertEqual(cut.omitted, 8)
        self.assertEqual(cut.status, {f"/missing_{n}": "absent" for n in range(32)})

    def test_reads_a_whole_listings_pages_from_winnow_pages(self) -> None:
        data = client().scrape(product_url(), {"offers": [{"name": "string", "url": "string"}]}, options={"pages": 2})
        # The product page links to no next page: one listing page read.
        self.assertEqual(data.pages, {"listing": 1, "details": 0, "failed": 0, "model": 0})
        self.assertIsNone(client().scrape(product_url(), {"a": "string"}).pages)

    def test_a_status_header_that_is_not_an_rfc_8941_list_is_a_server_error(self) -> None:
        upstream.script.append({"status": 200, "headers": {"content-type": "application/json", "winnow-field-status": '"/a";status='}, "body": {"a": None}})
        with self.assertRaises(ServerError) as caught:
            client().scrape(product_url(), {"a": "string"})
        self.assertEqual((caught.exception.status, caught.exception.type), (200, "invalid-response"))

    def test_refuses_a_schema_that_is_not_an_object_before_sending(self) -> None:
        before = len(upstream.seen)
        for schema in (["product_name"], "product_name", None):
            with self.assertRaisesRegex(InvalidRequestError, "schema must be a dict of field names to types") as caught:
                client().scrape(product_url(), schema)  # type: ignore[arg-type]
            self.assertEqual((caught.exception.type, caught.exception.details[0]["path"]), ("invalid-schema", "/schema"))
        self.assertEqual(len(upstream.seen), before)

    def test_answers_the_keys_account(self) -> None:
        account = Winnow(api_key=stack.api_key, base_url=stack.gateway_url).account()
        self.assertEqual(sorted(account), ["account_id", "key_id", "limits", "webhook_secret"])
        self.assertTrue(account["webhook_secret"])
        self.assertIn(account["key_id"], stack.api_key)
        self.assertEqual(sorted(account["limits"]), ["max_concurrent_scrapes", "plan", "requests_per_minute"])
        with self.assertRaises(AuthenticationError):
            Winnow(api_key="wnw_not_a_real_key", base_url=stack.gateway_url).account()

    def test_returns_the_data_with_its_evidence_when_asked(self) -> None:
        answer = client().scrape(product_url(), {"product_name": "string", "price_usd": "number"}, evidence=True)
        self.assertEqual(answer["data"], {"product_name": "Ridgeline Trail Shoe", "price_usd": 129.99})
        self.assertEqual(answer["evidence"]["/product_name"]["source"], "json-ld")
        self.assertEqual(answer["evidence"]["/product_name"]["text"], "Ridgeline Trail Shoe")
        self.assertIn("129.99", answer["evidence"]["/price_usd"].get("text", ""))
        # Asked through options too, as the API spells it.
        self.assertIn("evidence", client().scrape(product_url(), {"brand": "string"}, options={"evidence": True}))

    def test_returns_each_fields_status_and_the_warnings_with_the_evidence(self) -> None:
        schema = {"product_name": "string", "colour": "string", "summary": "string"}
        answer = client().scrape(product_url(), schema, "Summarize it in one sentence.", evidence=True)
        self.assertEqual(answer["data"], {"product_name": "Ridgeline Trail Shoe", "colour": None, "summary": None})
        # Free text from JSON-LD is not a proven source on the corpus; a task without a model needs one.
        self.assertEqual(answer["status"], {"/product_name": "found", "/colour": "absent", "/summary": "needs-model"})
        self.assertEqual(answer["evidence"]["/product_name"]["status"], "found")
        self.assertEqual([(w["code"], w.get("path")) for w in answer["warnings"]], [("needs-model", "/summary")])
        self.assertEqual((answer["data"].status, answer["data"].engine), (answer["status"], "builtin"))

    def test_returns_a_screenshot_beside_the_evidence(self) -> None:
        answer = client().scrape(product_url(), {"product_name": "string"}, options={"screenshot": True}, evidence=True)
        self.assertEqual(answer["data"], {"product_name": "Ridgeline Trail Shoe"})
        self.assertTrue(answer.get("screenshot", "").startswith("data:image/jpeg;base64,/9j/"))

    def test_returns_the_markdown_beside_the_evidence_when_formats_asks(self) -> None:
        answer = client().scrape(
            product_url(), {"product_name": "string"}, options={"formats": ["json", "markdown"]}, evidence=True
        )
        self.assertEqual(answer["data"], {"product_name": "Ridgeline Trail Shoe"})
        self.assertIn("Ridgeline Trail Shoe", answer.get("markdown", ""))

    def test_reads_the_key_from_the_environment(self) -> None:
        os.environ["WINNOW_API_KEY"] = stack.api_key
        try:
            self.assertEqual(Winnow(base_url=stack.gateway_url).scrape(product_url(), {"brand": "string"}), {"brand": "Northpeak"})
        finally:
            del os.environ["WINNOW_API_KEY"]
        with self.assertRaisesRegex(ValueError, "WINNOW_API_KEY"):
            Winnow(base_url=stack.gateway_url)

    def test_async_client(self) -> None:
        async_client = AsyncWinnow(api_key=stack.api_key, base_url=stack.gateway_url)
        self.assertEqual(asyncio.run(async_client.scrape(product_url(), {"brand": "string"})), {"brand": "Northpeak"})
        self.assertEqual(asyncio.run(async_client.account())["key_id"], Winnow(api_key=stack.api_key, base_url=stack.gateway_url).account()["key_id"])


class ErrorTest(unittest.TestCase):
    def test_wrong_key_is_an_authentication_error(self) -> None:
        with self.assertRaises(AuthenticationError) as caught:
            client(api_key="wnw_not_a_real_key").scrape(product_url(), {"a": "string"})
        self.assertEqual((caught.exception.status, caught.exception.type, caught.exception.retryable), (401, "unauthorized", False))
        self.assertTrue(caught.exception.request_id)
        self.assertIsInstance(caught.exception, WinnowError)

    def test_bad_schema_and_url_are_invalid_requests_with_details(self) -> None:
        with self.assertRaises(InvalidRequestError) as caught:
            client().scrape(product_url(), {"price": "money"})
        self.assertEqual(caught.exception.details[0]["path"], "/schema/price")
        with self.assertRaises(InvalidRequestError) as caught:
            client().scrape("ftp://files.example/x", {"a": "string"})
        self.assertEqual((caught.exception.status, caught.exception.type), (422, "url-not-allowed"))

    def test_target_failure_carries_the_sites_status(self) -> None:
        with self.assertRaises(TargetError) as caught:
            client().scrape(origin(pages) + "/gone", {"a": "string"})
        self.assertEqual(caught.exception.target_status, 404)

    def test_nothing_listening_is_a_connection_error(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with self.assertRaises(ConnectionError) as caught:
            Winnow(api_key="k", base_url=f"http://127.0.0.1:{port}", max_retries=1, retry_base_delay=0.001).scrape(product_url(), {"a": "string"})
        self.assertIsInstance(caught.exception, builtins.ConnectionError)


class RetryTest(unittest.TestCase):
    def test_retries_after_429_and_503_then_succeeds(self) -> None:
        before = len(upstream.seen)
        upstream.script.extend([{"status": 429, "headers": {"retry-after": "0"}}, {"status": 503}])
        self.assertEqual(client().scrape(product_url(), {"brand": "string"}), {"brand": "Northpeak"})
        self.assertEqual(len(upstream.seen) - before, 3)

    def test_retries_after_a_dropped_connection(self) -> None:
        upstream.script.append("drop")
        self.assertEqual(client().scrape(product_url(), {"brand": "string"}), {"brand": "Northpeak"})

    def test_gives_up_after_max_retries_with_the_last_error(self) -> None:
        upstream.script.extend([{"status": 429, "headers": {"retry-after": "0"}}, {"status": 429, "headers": {"retry-after": "0"}}])
        with self.assertRaises(RateLimitError) as caught:
            client(max_retries=1).scrape(product_url(), {"brand": "string"})
        self.assertEqual(caught.exception.retry_after, 0)
        upstream.script.append({"status": 503})
        with self.assertRaises(ServerError) as down:
            client(max_retries=0).scrape(product_url(), {"brand": "string"})
        self.assertTrue(down.exception.retryable)

    def test_does_not_retry_what_cannot_succeed(self) -> None:
        before = len(upstream.seen)
        with self.assertRaises(AuthenticationError):
            client(api_key="wnw_bad").scrape(product_url(), {"a": "string"})
        self.assertEqual(len(upstream.seen) - before, 1)
        # A 503 that says it is not retryable: a renderer without a browser stays without one.
        no_browser = {"type": "https://winnow.dev/problems/browser-unavailable", "title": "No browser", "status": 503, "retryable": False}
        upstream.script.append({"status": 503, "body": no_browser})
        with self.assertRaises(ServerError) as caught:
            client().scrape(product_url(), {"a": "string"})
        self.assertEqual((caught.exception.type, caught.exception.retryable), ("browser-unavailable", False))
        self.assertEqual(len(upstream.seen) - before, 2)

    def test_times_out(self) -> None:
        upstream.script.append("hang")
        with self.assertRaises(TimeoutError) as caught:
            client(timeout=0.5).scrape(product_url(), {"a": "string"})
        self.assertIsInstance(caught.exception, builtins.TimeoutError)


if __name__ == "__main__":
    unittest.main()
