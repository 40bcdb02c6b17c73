"""The answer to a scrape with ``evidence=True``: the data, and why each value is what it is."""

from __future__ import annotations

from typing import Any, Dict, TypedDict


class _EvidenceRequired(TypedDict):
    source: str
    confidence: float
    grounded: bool


class Evidence(_EvidenceRequired, total=False):
    """Where a value was read.

    ``source`` is one of "json-ld", "microdata", "meta", "heading", "byline",
    "label", "layout", "template" or "model"; ``text`` is the page text it was
    read from (absent for a value the model derived); ``selector`` is a CSS
    selector of the element, when it came from the page's markup;
    ``confidence`` is 0 to 1; ``grounded`` says whether the value is on the page.
    """

    text: str
    selector: str


class ScrapeWithEvidence(TypedDict):
    """``data`` in the schema's shape; ``evidence`` by JSON pointer ("/price", "/ingredients/0")."""

    data: Dict[str, Any]
    evidence: Dict[str, Evidence]
