"""Each value's status and the extractor's warnings as a plain answer carries them.

The gateway sends them in the Winnow-Field-Status and Winnow-Warnings response
headers, RFC 8941 lists: ``"/summary";status=needs-model, "/price";status=unverified``
and ``content-truncated, ungrounded;path="/price"``. This reads the part of RFC 8941
those headers use (a list of string or token items with parameters whose values
are tokens, strings, integers or booleans); anything else raises ``ValueError``.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, TypeVar, Union

from .result import PagesRead, ScrapeWarning

T = TypeVar("T")

BareItem = Union[str, int, bool, "Token"]
Member = Tuple[BareItem, Dict[str, BareItem]]


class Token(str):
    """An sf-token (``needs-model``), told apart from an sf-string (``"/summary"``)."""


_TOKEN = re.compile(r"[A-Za-z*][A-Za-z0-9:/!#$%&'*+\-.^_`|~]*")
_KEY = re.compile(r"[a-z*][a-z0-9_\-.*]*")
_INTEGER = re.compile(r"-?[0-9]{1,15}")


def _each_member(header: str, what: str, read: Callable[["_Parser"], T]) -> Iterator[T]:
    """The comma-separated members of an RFC 8941 list or dictionary (sections 4.2.1 and 4.2.2), each read by ``read``."""
    parser = _Parser(header.strip(" "))
    while parser.rest:
        yield read(parser)
        parser.skip_ows()
        if not parser.rest:
            break
        parser.expect(",")
        parser.skip_ows()
        if not parser.rest:
            raise ValueError(f"a {what} may not end with a comma")


def parse_list(header: str) -> List[Member]:
    """An RFC 8941 list of items with parameters (section 4.2.1); ValueError when it is not one."""
    return list(_each_member(header, "list", lambda parser: (parser.bare_item(), parser.parameters())))


def _dictionary_member(parser: "_Parser") -> Tuple[str, Member]:
    key = parser.match(_KEY)
    if key is None:
        raise ValueError(f"not a dictionary key at {parser.at} in {parser.text!r}")
    if parser.rest.startswith("="):
        parser.at += 1
        return key, (parser.bare_item(), parser.parameters())
    return key, (True, parser.parameters())


def parse_dictionary(header: str) -> Dict[str, Member]:
    """An RFC 8941 dictionary of items with parameters (section 4.2.2); ValueError when it is not one."""
    return dict(_each_member(header, "dictionary", _dictionary_member))


def read_pages_header(headers: Mapping[str, str]) -> Optional[PagesRead]:
    """Winnow-Pages (``listing=12, details=136, failed=1, model=3``) as counts; None when the response has none."""
    header = headers.get("winnow-pages")
    if header is None:
        return None
    members = parse_dictionary(header)

    def count(name: str) -> int:
        value = members.get(name, (0, {}))[0]
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return {"listing": count("listing"), "details": count("details"), "failed": count("failed"), "model": count("model")}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    @property
    def rest(self) -> str:
        return self.text[self.at :]

    def skip_ows(self) -> None:
        while self.rest[:1] in (" ", "\t"):
            self.at += 1

    def expect(self, char: str) -> None:
        if not self.rest.startswith(char):
            raise ValueError(f"expected {char!r} at {self.at} in {self.text!r}")
        self.at += 1

    def match(self, pattern: "re.Pattern[str]") -> Optional[str]:
        found = pattern.match(self.text, self.at)
        if not found:
            return None
        self.at = found.end()
        return found.group(0)

    def bare_item(self) -> BareItem:
        if self.rest.startswith('"'):
            return self.string()
        if self.rest.startswith("?"):
            self.at += 1
            value = self.rest[:1]
            if value not in ("0", "1"):
                raise ValueError(f"not a boolean at {self.at} in {self.text!r}")
            self.at += 1
            return value == "1"
        integer = self.match(_INTEGER)
        if integer is not None:
            return int(integer)
        token = self.match(_TOKEN)
        if token is not None:
            return Token(token)
        raise ValueError(f"not an item at {self.at} in {self.text!r}")

    def string(self) -> str:
        self.expect('"')
        chars: List[str] = []
        while self.rest:
            char = self.rest[0]
            self.at += 1
            if char == '"':
                return "".join(chars)
            if char == "\\":
                escaped = self.rest[:1]
                if escaped not in ('"', "\\"):
                    raise ValueError(f"a bad escape at {self.at} in {self.text!r}")
                self.at += 1
                chars.append(escaped)
            elif " " <= char <= "~":
                chars.append(char)
            else:
                raise ValueError(f"a character a string may not hold at {self.at} in {self.text!r}")
        raise ValueError(f"an unterminated string in {self.text!r}")

    def parameters(self) -> Dict[str, BareItem]:
        params: Dict[str, BareItem] = {}
        while self.rest.startswith(";"):
            self.at += 1
            self.skip_ows()
            key = self.match(_KEY)
            if key is None:
                raise ValueError(f"not a parameter key at {self.at} in {self.text!r}")
            if self.rest.startswith("="):
                self.at += 1
                params[key] = self.bare_item()
            else:
                params[key] = True
        return params


def read_status_headers(
    headers: Mapping[str, str], fields: Iterable[str]
) -> Tuple[Dict[str, str], List[ScrapeWarning], int]:
    """The headers as statuses by JSON pointer, warnings, and how many members the bounded headers left out.

    A field of the schema the header does not list is "found", unless the
    header was cut (a last member ``*;omitted=n``): then only the listed ones are known.
    """
    listed, listed_omitted = _members(headers.get("winnow-field-status"))
    raised, raised_omitted = _members(headers.get("winnow-warnings"))
    status: Dict[str, str] = {}
    if listed_omitted == 0:
        status.update({"/" + field.replace("~", "~0").replace("/", "~1"): "found" for field in fields})
    for pointer, params in listed:
        status[_pointer(pointer)] = _token(params.get("status"), "a status")
    warnings: List[ScrapeWarning] = []
    for code, params in raised:
        warning = ScrapeWarning(code=_token(code, "a warning code"))
        if "path" in params:
            warning["path"] = _pointer(params["path"])
        warnings.append(warning)
    return status, warnings, listed_omitted + raised_omitted


def _members(header: Optional[str]) -> Tuple[List[Member], int]:
    members = parse_list(header) if header else []
    if members and isinstance(members[-1][0], Token) and members[-1][0] == "*":
        omitted = members[-1][1].get("omitted")
        return members[:-1], omitted if isinstance(omitted, int) and not isinstance(omitted, bool) else 0
    return members, 0


def _pointer(value: object) -> str:
    """A JSON pointer sent as an sf-string, its characters outside printable ASCII percent-encoded (RFC 6901 §6)."""
    if not isinstance(value, str) or isinstance(value, Token):
        raise ValueError(f"expected a JSON pointer as a string, got {value!r}")
    return urllib.parse.unquote(value)


def _token(value: object, what: str) -> str:
    if not isinstance(value, Token):
        raise ValueError(f"expected {what} as a token, got {value!r}")
    return str(value)
