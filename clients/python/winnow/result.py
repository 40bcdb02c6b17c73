"""The answer to a scrape: the data in the schema's shape, and how far each value can be trusted."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict

# How far a value can be trusted: each status with what it means, in one line (the API docs' "Field status" says more).
STATUS_MEANINGS: Dict[str, str] = {
    "found": "The page shows this value where it was read, from a source reliable across sites.",
    "derived": "Converted from the page as the field's name asks, or produced by the model for the task.",
    "unverified": "Not confirmed: the page does not show it where it was read, or its source is less reliable.",
    "absent": "null: the page does not state it (it names nothing of this field).",
    "not-found": "null: no value was read, but the page may state one (a model may find it).",
    "conflict": "Readings differ (page parts, engines, or a listing and a record's page); evidence has the other.",
    "truncated": "Part of the page that may hold it was not read, or a list has fewer records than the page.",
    "needs-model": "null: the task asks for it and only an AI model produces it; none is configured.",
}


def describe_status(status: str) -> str:
    """What a status means, in one line; a newer server's status this client does not know is said to be one."""
    return STATUS_MEANINGS.get(status, f"A status this client does not know ({status}): see the API docs.")


class ScrapeOptions(TypedDict, total=False):
    """A scrape's ``options``, all optional: ``render`` ("auto", the default; "static", no JavaScript; "browser"),
    ``timeout_ms`` (loading the page, 1 to 120000), ``wait_for`` (a CSS selector; implies the browser), with evidence
    ``screenshot`` and ``formats`` (``["json", "markdown"]`` adds ``markdown``, the page's main content), and for a
    whole listing ``pages`` (listing pages to read, the first included, following each page's own next link on the same
    site; at most the server's MAX_LISTING_PAGES) and ``details`` (each record's own page too, for the fields the
    listing left null)."""

    render: Literal["auto", "static", "browser"]
    timeout_ms: int
    wait_for: str
    screenshot: bool
    formats: List[Literal["json", "markdown"]]
    pages: int
    details: bool


class PagesRead(TypedDict):
    """The pages a whole listing read (the Winnow-Pages header): listing pages, records' own pages, pages of either kind
    that failed, and pages a model read (the rest were answered by learned templates or the builtin engine alone; 0
    from a server that does not say)."""

    listing: int
    details: int
    failed: int
    model: int


class _WarningRequired(TypedDict):
    code: str


class ScrapeWarning(_WarningRequired, total=False):
    """Something the extractor (or the renderer) noticed ("content-truncated", "ungrounded", "needs-model",
    "render-incomplete", ...); ``path`` is the JSON pointer of the value concerned, when there is one; ``message``
    is in evidence answers only (the Winnow-Warnings header carries the codes)."""

    message: str
    path: str


class ScrapeResult(Dict[str, Any]):
    """The data in the schema's shape (a dict, equal to the plain answer), with what the response said about it.

    ``status``: each field's status by JSON pointer ("/price", and "/ingredients/0" for a value inside a field
    whose values differ): "found", "derived", "unverified", "absent", "not-found", "conflict", "truncated" or
    "needs-model" (:func:`describe_status` says what each means).
    ``warnings``: the extractor's. Without ``evidence`` both come from the response's headers, which list at most
    32 members each: ``omitted`` counts those left out (the fields not listed are then left out of ``status``).
    ``request_id`` (x-request-id), ``engine`` ("llm", "builtin" or "template"), ``render_path`` ("static" or
    "browser"), ``tokens`` (``{"input", "output"}``: the model's tokens, both 0 when no model was asked) and ``pages``
    (with the ``pages`` or ``details`` options: ``{"listing", "details", "failed", "model"}``, the pages read) are None when the
    response did not say.
    """

    def __init__(
        self,
        data: Dict[str, Any],
        *,
        status: Dict[str, str],
        warnings: List[ScrapeWarning],
        omitted: int = 0,
        request_id: Optional[str] = None,
        engine: Optional[str] = None,
        render_path: Optional[str] = None,
        tokens: Optional[Dict[str, int]] = None,
        pages: Optional[PagesRead] = None,
    ) -> None:
        super().__init__(data)
        self.status = status
        self.warnings = warnings
        self.omitted = omitted
        self.request_id = request_id
        self.engine = engine
        self.render_path = render_path
        self.tokens = tokens
        self.pages = pages


class _Limits(TypedDict):
    plan: str
    requests_per_minute: int
    max_concurrent_scrapes: int


class _AccountRequired(TypedDict):
    account_id: str
    key_id: str
    limits: _Limits
    webhook_secret: str


class Account(_AccountRequired, total=False):
    """The key's account, as ``GET /account`` answers: with the secret that signs its webhook deliveries, and while a
    replaced secret still signs them too, when that ends (ISO 8601)."""

    webhook_secret_previous_expires_at: str
