"""Batch jobs: many URLs, one schema, scraped by Winnow's queue within the key's plan."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence

from .errors import error_from_problem


class WinnowBatch:
    """Submit a job, wait for it with progress, iterate its results.

    ``batch_scrape`` does all three; ``submit``, ``wait``, ``results`` and
    ``cancel`` do them one by one. ``api_key`` and ``base_url`` default as for
    :class:`winnow.Winnow`. Failures raise a :class:`winnow.WinnowError` subclass.
    """

    def __init__(self, api_key: Optional[str] = None, base_url: Optional[str] = None, *, timeout: float = 60.0) -> None:
        key = api_key if api_key is not None else os.environ.get("WINNOW_API_KEY")
        if not key:
            raise ValueError("WinnowBatch: pass api_key or set the WINNOW_API_KEY environment variable")
        self._api_key = key
        self.base_url = (base_url or os.environ.get("WINNOW_BASE_URL") or "http://127.0.0.1:8080").rstrip("/")
        self.timeout = timeout

    def batch_scrape(
        self,
        urls: Sequence[str],
        schema: Mapping[str, Any],
        task_description: Optional[str] = None,
        options: Optional[Mapping[str, Any]] = None,
        *,
        webhook: Optional[Mapping[str, Any]] = None,
        on_progress: Optional[Callable[[Dict[str, Any]], None]] = None,
        interval: float = 1.0,
    ) -> List[Dict[str, Any]]:
        """Submits the job, waits for it to end and returns every result, in the order of ``urls``."""
        job = self.submit(urls, schema, task_description, options, webhook=webhook)
        self.wait(job["id"], on_progress=on_progress, interval=interval)
        return list(self.results(job["id"]))

    def submit(
        self,
        urls: Sequence[str],
        schema: Mapping[str, Any],
        task_description: Optional[str] = None,
        options: Optional[Mapping[str, Any]] = None,
        *,
        webhook: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        body: Dict[str, Any] = {"urls": list(urls), "schema": dict(schema)}
        if task_description is not None:
            body["task_description"] = task_description
        if options is not None:
            body["options"] = dict(options)
        if webhook is not None:
            body["webhook"] = dict(webhook)
        return self._call("POST", "/batch/scrape", body)

    def status(self, job_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/batch/scrape/{urllib.parse.quote(job_id)}?limit=1")

    def wait(
        self,
        job_id: str,
        *,
        on_progress: Optional[Callable[[Dict[str, Any]], None]] = None,
        interval: float = 1.0,
    ) -> Dict[str, Any]:
        """Polls until the job is no longer running; returns it as it ended."""
        while True:
            job = self.status(job_id)
            if on_progress is not None:
                on_progress(job)
            if job["status"] != "running":
                return job
            time.sleep(interval)

    def results(self, job_id: str, page_size: int = 500) -> Iterator[Dict[str, Any]]:
        """Every result of the job (``index``, ``url``, ``status``; ``data``, ``field_status`` and ``warnings``, or ``problem``), a page at a time."""
        cursor: Optional[str] = "0"
        while cursor is not None:
            page = self._call("GET", f"/batch/scrape/{urllib.parse.quote(job_id)}?cursor={cursor}&limit={page_size}")
            yield from page["results"]
            cursor = page["next_cursor"]

    def cancel(self, job_id: str) -> Dict[str, Any]:
        return self._call("DELETE", f"/batch/scrape/{urllib.parse.quote(job_id)}")

    def _call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        request = urllib.request.Request(
            self.base_url + path,
            data=None if body is None else json.dumps(body).encode("utf-8"),
            method=method,
            headers={"content-type": "application/json", "accept": "application/json", "x-api-key": self._api_key},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as http_error:
            with http_error:
                text = http_error.read().decode("utf-8", "replace")
                try:
                    problem = json.loads(text)
                except ValueError:
                    problem = {"type": f"http-{http_error.code}", "title": f"HTTP {http_error.code}", "status": http_error.code, "detail": text[:500]}
                retry_after = http_error.headers.get("retry-after")
                raise error_from_problem(
                    problem,
                    http_error.code,
                    http_error.headers.get("x-request-id"),
                    float(retry_after) if retry_after and retry_after.isdigit() else None,
                ) from None
