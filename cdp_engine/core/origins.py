"""Origin patterns: the entries of allowed and blocked origins lists, and the origin a URL has.

The rule that uses them is NavigationPolicy's (policies.py, the one home of the navigation rule); this
module only spells and compares origins.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["DEFAULT_PORTS", "FORBIDDEN_HOST_CHARS", "HOST_SCHEMES", "OriginPattern", "parse_origins", "url_origin"]

# Schemes whose URL is only meaningful with a host: `http:foo` or `https:///x` is refused as invalid; only
# these have an origin the allowed and blocked lists speak of.
HOST_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})
# Characters no host may hold (the URL standard's forbidden host code points that survive parsing);
# Chromium refuses such a URL as invalid.
FORBIDDEN_HOST_CHARS = frozenset("<>^|%/\x7f") | {chr(c) for c in range(32)}

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}


@dataclass(frozen=True)
class OriginPattern:
    """One entry of an allowed or blocked origins list, as playwright-mcp and agent-browser spell them:

    - `https://example.com[:8443]`: exactly that origin (the scheme's default port when none is given);
    - `example.com[:8080]`: that host over any scheme (and only that port when one is given);
    - `*.example.com` (or `https://*.example.com`): every subdomain of example.com, not example.com itself;
    - `*`: every origin. A port of `*` is any port.
    """

    text: str
    scheme: str | None  # None: any scheme
    host: str  # lower-case ASCII (IDNA); "*" for any host; "*.suffix" for subdomains
    port: int | None  # None: any port

    @classmethod
    def parse(cls, text: str) -> OriginPattern:
        """The pattern `text` spells; ValueError saying what is wrong (the caller names its option)."""
        raw = text.strip()
        if not raw:
            raise ValueError("an empty origin")
        if raw == "*":
            return cls(raw, None, "*", None)
        scheme: str | None = None
        rest = raw
        if "://" in raw:
            scheme, _, rest = raw.partition("://")
            scheme = scheme.lower()
            if not re.fullmatch(r"[a-z][a-z0-9+.-]*", scheme) or scheme not in HOST_SCHEMES:
                raise ValueError(f"{raw!r} is not an origin: {scheme!r} is not a scheme with hosts (http, https, ws, wss)")
        rest = rest.rstrip("/")
        if any(c in rest for c in "/?#@ \t"):
            raise ValueError(f"{raw!r} is not an origin (scheme://host[:port], host[:port] or *.domain, no path)")
        host, port_text = rest, ""
        if rest.startswith("["):
            address, _, after = rest[1:].partition("]")
            host = f"[{address.lower()}]"
            if after and not after.startswith(":"):
                raise ValueError(f"{raw!r} is not an origin")
            port_text = after[1:]
            try:
                ipaddress.IPv6Address(address)
            except ValueError:
                raise ValueError(f"{raw!r} is not an origin: [{address}] is not an IPv6 address") from None
        elif ":" in rest:
            host, _, port_text = rest.rpartition(":")
        port: int | None = None
        if port_text and port_text != "*":
            if not port_text.isdigit() or not 0 < int(port_text) < 65536:
                raise ValueError(f"{raw!r} is not an origin: {port_text!r} is not a port")
            port = int(port_text)
        elif not port_text and scheme is not None:
            port = DEFAULT_PORTS.get(scheme)
        if not host.startswith("["):
            host = _origin_host(host, raw)
        return cls(raw, scheme, host, port)

    def matches(self, scheme: str, host: str, port: int | None) -> bool:
        """Whether a URL of this scheme, normalised host and effective port falls under the pattern."""
        if self.scheme is not None and self.scheme != scheme:
            return False
        if self.port is not None and self.port != port:
            return False
        if self.host == "*":
            return True
        if self.host.startswith("*."):
            return host.endswith(self.host[1:])
        return host == self.host


def _origin_host(host: str, raw: str) -> str:
    """A pattern's host, lower-case ASCII as URLs carry it; ValueError for what no host can be."""
    wildcard = host.startswith("*.")
    name = host[2:] if wildcard else host
    if not name or "*" in name or not FORBIDDEN_HOST_CHARS.isdisjoint(name) or name.startswith("."):
        raise ValueError(f"{raw!r} is not an origin: {host!r} is not a host name")
    try:
        ascii_name = name.encode("idna").decode("ascii") if not name.isascii() else name.lower()
    except UnicodeError:
        raise ValueError(f"{raw!r} is not an origin: {host!r} is not a host name") from None
    return ("*." if wildcard else "") + ascii_name.lower().rstrip(".")


def url_origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, effective port) of a URL that has an origin with a host; None for about:, data:,
    file: and the other schemes origins do not govern. blob: and view-source: are read for the URL inside."""
    text = url.strip()
    for _ in range(3):
        lowered = text[:12].lower()
        if lowered.startswith("blob:"):
            text = text[5:]
        elif lowered.startswith("view-source:"):
            text = text[12:]
        else:
            break
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in HOST_SCHEMES or not parts.hostname:
        return None
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    elif not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    return scheme, host, port if port is not None else DEFAULT_PORTS.get(scheme)


def parse_origins(entries: Iterable[str] | str) -> tuple[OriginPattern, ...]:
    """Origin patterns from a list, or from one text separated by semicolons, commas or spaces."""
    if isinstance(entries, str):
        entries = re.split(r"[;,\s]+", entries)
    return tuple(OriginPattern.parse(e) for e in entries if e.strip())
