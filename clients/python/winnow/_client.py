"""The Winnow API client: sends the key, raises typed exceptions, retries what may succeed."""

from __future__ import annotations

import asyncio
import builtins
import email.utils
import json
import os
import random
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Dict, Literal, Mapping, Optional, Tuple, Union, overload

from .errors import ConnectionError, InvalidRequestError, ServerError, TimeoutError, WinnowError, error_from_problem
from .evidence import ScrapeWithEvidence
from .result import Account, ScrapeOptions, ScrapeResult
from .status_headers import read_pages_header, read_status_headers

__version__ = "0.1.0"

_MAX_BACKOFF = 8.0
_RETRIABLE_STATUSES = (429, 503)
# socket.timeout is its own class before Python 3.10; winnow.TimeoutError shadows the builtin here.
_SOCKET_TIMEOUTS = (socket.timeout, builtins.TimeoutError)


class Winnow:
    """A client for the Winnow API.

    ``api_key`` defaults to the WINNOW_API_KEY environment variable and
    ``base_url`` to WINNOW_BASE_URL, else http://127.0.0.1:8080. ``timeout`` is
    the longest one scrape may take in seconds, retries included. Failures
    raise a :class:`winnow.WinnowError` subclass.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        timeout: float = 120.0,
        max_retries: int = 2,
        retry_base_delay: float = 0.5,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("WINNOW_API_KEY")
        if not key:
            raise ValueError("Winnow: pass api_key or set the WINNOW_API_KEY environment variable")
        self._api_key = key
        self.base_url = (base_url or os.environ.get("WINNOW_BASE_URL") or "http://127.0.0.1:8080").rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay

    # The answer's type follows ``evidence``: the data alone, or the data with its evidence.
    @overload
    def scrape(self, url: str, schema: Mapping[str, Any], task_description: Optional[str] = ..., options: Optional[ScrapeOptions] = ..., *, timeout: Optional[float] = ..., evidence: Literal[False] = ...) -> ScrapeResult: ...
    @overload
    def scrape(self, url: str, schema: Mapping[str, Any], task_description: Optional[str] = ..., options: Optional[ScrapeOptions] = ..., *, timeout: Optional[float] = ..., evidence: Literal[True]) -> ScrapeWithEvidence: ...

    def scrape(
        self,
        url: str,
        schema: Mapping[str, Any],
        task_description: Optional[str] = None,
        options: Optional[ScrapeOptions] = None,
        *,
        timeout: Optional[float] = None,
        evidence: bool = False,
    ) -> Union[ScrapeResult, ScrapeWithEvidence]:
        """Extracts data in the schema's shape from the page at ``url``: a :class:`ScrapeResult`, a dict with each
        field's ``status``, the ``warnings``, the ``request_id`` and the ``engine`` as attributes.

        ``options``: a :class:`ScrapeOptions` (``render``, ``timeout_ms``, ``wait_for``, with evidence ``screenshot``
        and ``formats``, and for a whole listing ``pages`` and ``details``; the answer's ``pages`` then says what was
        read). With ``evidence=True`` the answer is ``{"data": ...,
        "evidence": {pointer: Evidence}, "status": ..., "warnings": ...}``.
        """
        if not isinstance(schema, Mapping):
            raise InvalidRequestError(
                f"schema must be a dict of field names to types, such as {{\"price_usd\": \"number\"}}, not {type(schema).__name__}",
                status=0,
                type="invalid-schema",
                retryable=False,
                problem={"errors": [{"path": "/schema", "description": f"expected an object, got {type(schema).__name__}"}]},
            )
        body: Dict[str, Any] = {"url": url, "schema": dict(schema)}
        if task_description is not None:
            body["task_description"] = task_description
        if options is not None or evidence:
            body["options"] = {**dict(options or {}), **({"evidence": True} if evidence else {})}
        answer, headers = self._call("POST", "/scrape", body, self.timeout if timeout is None else timeout)
        tokens_in, tokens_out = headers.get("x-winnow-tokens-in"), headers.get("x-winnow-tokens-out")
        about: Dict[str, Any] = {
            "request_id": headers.get("x-request-id"),
            "engine": headers.get("x-winnow-engine"),
            "render_path": headers.get("x-winnow-render-path"),
            "tokens": {"input": int(tokens_in), "output": int(tokens_out)} if tokens_in and tokens_out else None,
        }
        try:
            about["pages"] = read_pages_header(headers)
        except ValueError as unreadable:
            raise _invalid_response(f"a Winnow-Pages header that is not an RFC 8941 dictionary: {unreadable}", about) from unreadable
        if evidence:
            # The envelope states every status and warning in full.
            data = ScrapeResult(answer["data"], status=answer["status"], warnings=answer["warnings"], **about)
            envelope = ScrapeWithEvidence(data=data, evidence=answer["evidence"], status=answer["status"], warnings=answer["warnings"])
            for extra in ("screenshot", "markdown"):
                if extra in answer:
                    envelope[extra] = answer[extra]
            return envelope
        try:
            # The answer's keys are the schema's fields (a JSON Schema's properties, not its keywords).
            status, warnings, omitted = read_status_headers(headers, answer.keys() if isinstance(answer, dict) else ())
        except ValueError as unreadable:
            raise _invalid_response(f"field status headers that are not RFC 8941 lists: {unreadable}", about) from unreadable
        return ScrapeResult(answer, status=status, warnings=warnings, omitted=omitted, **about)

    def account(self, *, timeout: Optional[float] = None) -> Account:
        """The key's account and limits: a cheap way to check a key (it counts against the key's requests per minute)."""
        answer, _ = self._call("GET", "/account", None, self.timeout if timeout is None else timeout)
        account = Account(
            account_id=answer["account_id"], key_id=answer["key_id"], limits=answer["limits"], webhook_secret=answer["webhook_secret"]
        )
        if "webhook_secret_previous_expires_at" in answer:
            account["webhook_secret_previous_expires_at"] = answer["webhook_secret_previous_expires_at"]
        return account

    def _call(self, method: str, path: str, body: Optional[Dict[str, Any]], timeout: float) -> Tuple[Any, Mapping[str, str]]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        deadline = time.monotonic() + timeout
        attempt = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no answer within {timeout} s", status=0, type="timeout", retryable=True)
            retry_after: Optional[float] = None
            try:
                return self._send(method, path, data, remaining)
            except _HttpFailure as failure:
                error, retry_after = failure.error, failure.retry_after
            except ConnectionError as connection_error:
                error = connection_error
            # A 503 that says it is not retryable (browser-unavailable) will not change on a retry.
            retriable = isinstance(error, ConnectionError) or (error.retryable and error.status in _RETRIABLE_STATUSES)
            delay = retry_after if retry_after is not None else self._backoff(attempt)
            if not retriable or attempt >= self.max_retries or time.monotonic() + delay >= deadline:
                raise error
            time.sleep(delay)
            attempt += 1

    def _send(self, method: str, path: str, data: Optional[bytes], timeout: float) -> Tuple[Any, Mapping[str, str]]:
        request = urllib.request.Request(
            self.base_url + path,
            data=data,
            method=method,
            headers={
                **({} if data is None else {"content-type": "application/json"}),
                "accept": "application/json",
                "x-api-key": self._api_key,
                "user-agent": f"winnow-python/{__version__}",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                text = response.read().decode("utf-8")
                headers = {name.lower(): value for name, value in response.headers.items()}
                request_id = headers.get("x-request-id")
        except urllib.error.HTTPError as http_error:
            with http_error:
                raise _HttpFailure.from_response(http_error) from None
        except _SOCKET_TIMEOUTS as timed_out:
            raise TimeoutError(f"no answer within {timeout:.1f} s", status=0, type="timeout", retryable=True) from timed_out
        except (urllib.error.URLError, OSError) as network_error:
            reason = getattr(network_error, "reason", network_error)
            if isinstance(reason, _SOCKET_TIMEOUTS):
                raise TimeoutError(f"no answer within {timeout:.1f} s", status=0, type="timeout", retryable=True) from network_error
            raise ConnectionError(
                f"could not reach {self.base_url}: {reason}", status=0, type="network-error", retryable=True
            ) from network_error
        try:
            result = json.loads(text)
        except ValueError as not_json:
            raise ServerError(
                "the API answered 200 with a body that is not JSON",
                status=200,
                type="invalid-response",
                retryable=False,
                request_id=request_id,
            ) from not_json
        return result, headers

    def _backoff(self, attempt: int) -> float:
        """Full jitter: a random wait up to base * 2**attempt, capped."""
        return random.uniform(0, min(_MAX_BACKOFF, self.retry_base_delay * (2**attempt)))


class AsyncWinnow:
    """The same client for asyncio code: each call runs the blocking client in a worker thread.

    Cancelling the awaiting task stops waiting at once; the HTTP call itself
    ends at its timeout.
    """

    def __init__(self, api_key: Optional[str] = None, base_url: Optional[str] = None, **options: Any) -> None:
        self._client = Winnow(api_key, base_url, **options)

    @property
    def base_url(self) -> str:
        return self._client.base_url

    async def scrape(
        self,
        url: str,
        schema: Mapping[str, Any],
        task_description: Optional[str] = None,
        options: Optional[ScrapeOptions] = None,
        *,
        timeout: Optional[float] = None,
        evidence: bool = False,
    ) -> Union[ScrapeResult, ScrapeWithEvidence]:
        """See :meth:`Winnow.scrape`."""
        return await asyncio.to_thread(self._client.scrape, url, schema, task_description, options, timeout=timeout, evidence=evidence)  # type: ignore[call-overload]


    async def account(self, *, timeout: Optional[float] = None) -> Account:
        """See :meth:`Winnow.account`."""
        return await asyncio.to_thread(self._client.account, timeout=timeout)


def _invalid_response(what: str, about: Dict[str, Any]) -> ServerError:
    """A 200 whose headers this client cannot read."""
    return ServerError(
        f"the API answered 200 with {what}",
        status=200,
        type="invalid-response",
        retryable=False,
        request_id=about["request_id"],
    )


class _HttpFailure(Exception):
    """An error answer, with the Retry-After it carried (internal to the retry loop)."""

    def __init__(self, error: WinnowError, retry_after: Optional[float]) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after

    @classmethod
    def from_response(cls, response: urllib.error.HTTPError) -> "_HttpFailure":
        text = response.read().decode("utf-8", "replace")
        retry_after = _parse_retry_after(response.headers.get("retry-after"))
        try:
            problem = json.loads(text)
            if not isinstance(problem, dict):
                raise ValueError("not an object")
        except ValueError:
            # Not a problem document (a proxy in between, say): keep what there is.
            problem = {"type": f"http-{response.code}", "title": f"HTTP {response.code}", "status": response.code, "detail": text[:500]}
        error = error_from_problem(problem, response.code, response.headers.get("x-request-id"), retry_after)
        return cls(error, retry_after)


def _parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After as seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())

