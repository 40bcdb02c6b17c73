"""Official Python client for the Winnow web data extraction API.

    from winnow import Winnow, WinnowError, describe_status

    client = Winnow(api_key="...")  # or set WINNOW_API_KEY
    data = client.scrape("https://shop.example/item", {"product_name": "string", "price_usd": "number"})
    print(data["price_usd"], data.status["/price_usd"], describe_status(data.status["/price_usd"]))
"""

from ._client import AsyncWinnow, Winnow, __version__
from .batch import WinnowBatch
from .evidence import Alternative, Evidence, ScrapeWithEvidence
from .result import STATUS_MEANINGS, Account, PagesRead, ScrapeOptions, ScrapeResult, ScrapeWarning, describe_status
from .errors import (
    AuthenticationError,
    ConnectionError,
    InvalidRequestError,
    ModelError,
    RateLimitError,
    ServerError,
    TargetError,
    TimeoutError,
    WinnowError,
)
from .webhooks import WEBHOOK_SIGNATURE_HEADER, verify_webhook_signature

__all__ = [
    "Account",
    "Alternative",
    "AsyncWinnow",
    "AuthenticationError",
    "ConnectionError",
    "Evidence",
    "InvalidRequestError",
    "ModelError",
    "PagesRead",
    "RateLimitError",
    "ScrapeOptions",
    "ScrapeResult",
    "ScrapeWarning",
    "ScrapeWithEvidence",
    "STATUS_MEANINGS",
    "ServerError",
    "TargetError",
    "TimeoutError",
    "Winnow",
    "WEBHOOK_SIGNATURE_HEADER",
    "WinnowBatch",
    "WinnowError",
    "__version__",
    "describe_status",
    "verify_webhook_signature",
]
