"""The answer to a scrape with ``evidence=True``: the data, and why each value is what it is."""

from __future__ import annotations

from typing import Any, Dict, List, TypedDict

from .result import ScrapeResult, ScrapeWarning


class _AlternativeRequired(TypedDict):
    value: Any
    source: str
    grounded: bool


class Alternative(_AlternativeRequired, total=False):
    """A value one engine read where another's was kept: ``value`` in the field's shape, where it was read, ``text``
    (the page text it was read from, when there is one) and whether it is on the page."""

    text: str


class _EvidenceRequired(TypedDict):
    source: str
    confidence: float
    grounded: bool
    status: str


class Evidence(_EvidenceRequired, total=False):
    """Where a value was read.

    ``source`` is one of "json-ld", "microdata", "meta", "heading", "byline",
    "label", "layout", "template" or "model"; ``text`` is the page text it was
    read from (absent for a value the model derived); ``selector`` is a CSS
    selector of the element, when it came from the page's markup;
    ``confidence`` is 0 to 1; ``grounded`` says whether the value is on the page;
    ``status`` is how far the value can be trusted (see ``ScrapeWithEvidence``);
    ``alternative``, only where the builtin engine and the model read different
    values (status "conflict"), is the value not kept.
    """

    text: str
    selector: str
    alternative: Alternative


class _ScrapeWithEvidenceRequired(TypedDict):
    """``data`` in the schema's shape; ``evidence`` by JSON pointer ("/price", "/ingredients/0").

    ``status`` holds every field's status by pointer (and a value's inside a field whose values differ), one of
    :data:`STATUS_MEANINGS`'s ("found", "derived", "unverified", "absent", "not-found", "conflict", "truncated",
    "needs-model"; :func:`describe_status` says what each means). ``warnings`` are the extractor's, with their
    messages. ``data`` is a :class:`ScrapeResult` (its ``request_id`` and ``engine`` say how it was made).
    """

    data: ScrapeResult
    evidence: Dict[str, Evidence]
    status: Dict[str, str]
    warnings: List[ScrapeWarning]


class ScrapeWithEvidence(_ScrapeWithEvidenceRequired, total=False):
    """With ``options={"screenshot": True}`` too: ``screenshot``, a JPEG of the page's top with the evidence's
    elements outlined, as a ``data:image/jpeg;base64,`` URL."""

    screenshot: str
    #: With ``options={"formats": ["json", "markdown"]}``: the page's main content as markdown, links absolute.
    markdown: str
