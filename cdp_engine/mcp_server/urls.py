"""URL normalisation for browser_navigate: what an agent types becomes what a browser loads.

Order (upstream `canonicalize_browser_url`, with the explicit-scheme check its docs promise):
1. `://` present -> unchanged;
2. `localhost`, `localhost:PORT…`, `localhost/…` -> `http://`;
3. host is a bare IPv4 address (optional `:port`) -> `http://`;
4. an explicit `scheme:` whose remainder is not a port (`data:`, `about:`, `javascript:`, `mailto:`) -> unchanged;
5. a dot anywhere (`example.com`, `example.com:8443/x`) -> `https://`;
6. otherwise unchanged (the browser then reports it as invalid).
"""

from __future__ import annotations

import re

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):(.*)$", re.DOTALL)
_PORT_REST = re.compile(r"^\d+(?:[/?#].*)?$", re.DOTALL)


def _is_ipv4_host(host: str) -> bool:
    name, _, port = host.partition(":")
    if port and not port.isdigit():
        return False
    parts = name.split(".")
    return len(parts) == 4 and all(p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts)


def normalize_url(url: str) -> str:
    url = url.strip()
    if "://" in url:
        return url
    if url == "localhost" or url.startswith(("localhost:", "localhost/", "localhost?", "localhost#")):
        return "http://" + url
    host = re.split(r"[/?#]", url, maxsplit=1)[0]
    if _is_ipv4_host(host):
        return "http://" + url
    match = _SCHEME.match(url)
    if match and not _PORT_REST.match(match.group(2)):
        return url
    if "." in url:
        return "https://" + url
    return url
