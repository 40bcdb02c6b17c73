"""Exceptions raised by the Winnow client, one class per kind of failure."""

from __future__ import annotations

import builtins
from typing import Any, Dict, List, Optional

TYPE_PREFIX = "https://winnow.dev/problems/"


class WinnowError(Exception):
    """Every failure the client raises.

    ``problem`` is the RFC 9457 problem document when the API answered with one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        type: str,
        retryable: bool,
        request_id: Optional[str] = None,
        problem: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        #: HTTP status, or 0 when no response arrived.
        self.status = status
        #: Problem type slug, e.g. "invalid-schema"; "timeout" or "network-error" client-side.
        self.type = type
        self.retryable = retryable
        self.request_id = request_id
        self.problem = problem


class AuthenticationError(WinnowError):
    """401: the API key is missing, malformed, unknown or was replaced by a refresh."""


class RateLimitError(WinnowError):
    """429: too many requests or scrapes in flight for this key."""

    def __init__(self, message: str, *, retry_after: Optional[float] = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        #: Seconds to wait before retrying, from the Retry-After header.
        self.retry_after = retry_after


class InvalidRequestError(WinnowError):
    """4xx: the request itself is wrong (body, schema, URL, size, content type)."""

    @property
    def details(self) -> List[Dict[str, str]]:
        """What is wrong and where: a list of {"path", "description"}."""
        return list((self.problem or {}).get("errors") or [])


class TargetError(WinnowError):
    """502: the target site failed (unreachable, HTTP error, not a web page, too large)."""

    @property
    def target_status(self) -> Optional[int]:
        """The site's own HTTP status, when it answered with an error."""
        return (self.problem or {}).get("target_status")


class ModelError(WinnowError):
    """502/503: the model failed or is unavailable."""


class TimeoutError(WinnowError, builtins.TimeoutError):
    """504, or the client's own timeout: the page or the whole request took too long."""


class ServerError(WinnowError):
    """5xx: Winnow itself is overloaded or failing."""


class ConnectionError(WinnowError, builtins.ConnectionError):
    """No response at all: connection refused, reset, DNS failure."""


def error_from_problem(
    problem: Dict[str, Any], status: int, request_id: Optional[str], retry_after: Optional[float]
) -> WinnowError:
    """The exception for a problem document: by type where known, else by status."""
    raw_type = str(problem.get("type") or f"http-{status}")
    slug = raw_type[len(TYPE_PREFIX):] if raw_type.startswith(TYPE_PREFIX) else raw_type
    title = problem.get("title") or f"HTTP {status}"
    detail = problem.get("detail")
    message = f"{title}: {detail}" if detail else str(title)
    retryable = problem.get("retryable")
    kwargs: Dict[str, Any] = dict(
        status=status,
        type=slug,
        retryable=bool(retryable) if retryable is not None else status in (429, 503),
        request_id=problem.get("request_id") or request_id,
        problem=problem,
    )
    if status == 401:
        return AuthenticationError(message, **kwargs)
    if status == 429:
        return RateLimitError(message, retry_after=retry_after, **kwargs)
    if slug.startswith("model-"):
        return ModelError(message, **kwargs)
    if status == 504:
        return TimeoutError(message, **kwargs)
    if slug.startswith("target-") or slug in ("page-too-large", "unsupported-content"):
        return TargetError(message, **kwargs)
    if 400 <= status < 500:
        return InvalidRequestError(message, **kwargs)
    return ServerError(message, **kwargs)
