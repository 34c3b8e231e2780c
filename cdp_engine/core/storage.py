"""Storage state: a context's logins as JSON, in the shape of Playwright's `storage_state`.

    {"cookies": [{"name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"}],
     "origins": [{"origin": "https://example.com", "localStorage": [{"name", "value"}],
                  "sessionStorage": [{"name", "value"}]}]}

Playwright's own files load here as they are (its `origins[].localStorage`; IndexedDB is not read); the
`sessionStorage` list is this engine's addition (Playwright leaves it out): it is saved from the context's
open tabs and put back by an init script in each new document of that origin, for keys the page has not
set. Everything is checked before anything changes: a malformed file or dict is a StorageStateError
that names the file and the entry. Saved files are written owner-only (0600): they hold live logins.

This module is the format (parse, convert, write) and the scripts; BrowserContext.storage_state() and
Browser.new_context(storage_state=...) drive the pages.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..errors import StorageStateError
from .network import Decision, Fail, Fulfill, PausedRequest

SAME_SITE = ("Strict", "Lax", "None")
# The page each origin is opened on to read or write its storage: answered locally, so nothing is fetched.
BLANK_DOCUMENT = Fulfill(200, {"Content-Type": "text/html"}, b"<!doctype html><title></title>")
READ_SCRIPT = """(() => {
  const pairs = (s) => { const out = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); out.push({name: k, value: s.getItem(k)}); } return out; };
  let local = [], session = [];
  try { local = pairs(localStorage); } catch (e) {}
  try { session = pairs(sessionStorage); } catch (e) {}
  return {origin: location.origin, localStorage: local, sessionStorage: session};
})()"""

Source = str | os.PathLike[str] | Mapping[str, Any]


def origin_of(url: str) -> str | None:
    """The http(s) origin of a URL (scheme://host[:port]), None for any other scheme."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1].lower()}"


def blank_documents(request: PausedRequest) -> Decision:
    """The route of the page that visits origins: every document answered locally, everything else refused."""
    return BLANK_DOCUMENT if request.resource_type == "Document" else Fail("BlockedByClient")


def load(source: Source) -> dict[str, Any]:
    """A storage state from a file path or a dict, checked and normalised; StorageStateError says what is wrong."""
    if isinstance(source, Mapping):
        where = "storage_state"
        data: Any = dict(source)
    else:
        where = f"storage_state {os.fspath(source)}"
        try:
            raw = Path(source).expanduser().read_bytes()
        except OSError as exc:
            raise StorageStateError(f"{where}: cannot read it ({exc.strerror or exc})") from None
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise StorageStateError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise StorageStateError(f"{where}: must be a JSON object with 'cookies' and 'origins'")
    unknown = set(data) - {"cookies", "origins"}
    if unknown:
        raise StorageStateError(f"{where}: unknown key(s) {', '.join(sorted(map(str, unknown)))} (expected cookies, origins)")
    cookies = data.get("cookies", [])
    origins = data.get("origins", [])
    if not isinstance(cookies, list) or not isinstance(origins, list):
        raise StorageStateError(f"{where}: 'cookies' and 'origins' must be lists")
    return {
        "cookies": [_cookie(where, n, c) for n, c in enumerate(cookies)],
        "origins": [_origin(where, n, o) for n, o in enumerate(origins)],
    }


def _cookie(where: str, n: int, cookie: Any) -> dict[str, Any]:
    at = f"{where}: cookies[{n}]"
    if not isinstance(cookie, dict):
        raise StorageStateError(f"{at} must be an object")
    for key in ("name", "value"):
        if not isinstance(cookie.get(key), str):
            raise StorageStateError(f"{at}: '{key}' must be a string")
    out: dict[str, Any] = {"name": cookie["name"], "value": cookie["value"]}
    if isinstance(cookie.get("url"), str) and "domain" not in cookie:
        out["url"] = cookie["url"]
    elif isinstance(cookie.get("domain"), str) and cookie["domain"]:
        out["domain"] = cookie["domain"]
        path = cookie.get("path", "/")
        if not isinstance(path, str) or not path.startswith("/"):
            raise StorageStateError(f"{at}: 'path' must be a string starting with /")
        out["path"] = path
    else:
        raise StorageStateError(f"{at}: needs a 'domain' (and 'path') or a 'url'")
    expires = cookie.get("expires", -1)
    if isinstance(expires, bool) or not isinstance(expires, int | float):
        raise StorageStateError(f"{at}: 'expires' must be a number (seconds since 1970; -1: a session cookie)")
    out["expires"] = expires
    for key in ("httpOnly", "secure"):
        value = cookie.get(key, False)
        if not isinstance(value, bool):
            raise StorageStateError(f"{at}: '{key}' must be true or false")
        out[key] = value
    same_site = cookie.get("sameSite", "Lax")
    if same_site not in SAME_SITE:
        raise StorageStateError(f"{at}: 'sameSite' must be one of {', '.join(SAME_SITE)}")
    out["sameSite"] = same_site
    return out


def _origin(where: str, n: int, entry: Any) -> dict[str, Any]:
    at = f"{where}: origins[{n}]"
    if not isinstance(entry, dict) or not isinstance(entry.get("origin"), str):
        raise StorageStateError(f"{at} must be an object with an 'origin'")
    origin = origin_of(entry["origin"])
    if origin is None or origin != entry["origin"].rstrip("/").lower():
        raise StorageStateError(f"{at}: 'origin' must be an http(s) origin like https://example.com, not {entry['origin']!r}")
    out: dict[str, Any] = {"origin": origin}
    for key in ("localStorage", "sessionStorage"):
        items = entry.get(key, [])
        if not isinstance(items, list) or not all(
            isinstance(i, dict) and isinstance(i.get("name"), str) and isinstance(i.get("value"), str) for i in items
        ):
            raise StorageStateError(f"{at}: '{key}' must be a list of {{name, value}} strings")
        out[key] = [{"name": i["name"], "value": i["value"]} for i in items]
    return out


def saved_cookie(cookie: Mapping[str, Any]) -> dict[str, Any]:
    """A Network.Cookie as the file keeps it (Playwright's fields; expires -1 for a session cookie)."""
    return {
        "name": cookie["name"],
        "value": cookie["value"],
        "domain": cookie["domain"],
        "path": cookie.get("path", "/"),
        "expires": -1 if cookie.get("session") else cookie.get("expires", -1),
        "httpOnly": bool(cookie.get("httpOnly")),
        "secure": bool(cookie.get("secure")),
        "sameSite": cookie.get("sameSite") or "Lax",  # unset is Lax in Chromium, as Playwright writes it
    }


def cookie_params(cookies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The checked cookies as Storage.setCookies' CookieParam objects (a session cookie has no expires)."""
    params = []
    for cookie in cookies:
        param = {k: v for k, v in cookie.items() if k != "expires"}
        if cookie["expires"] > 0:
            param["expires"] = cookie["expires"]
        params.append(param)
    return params


def write_script(entry: Mapping[str, Any]) -> str:
    """Script that puts an origin's localStorage items back (run on a page of that origin)."""
    items = orjson.dumps(entry.get("localStorage", [])).decode()
    return f"(() => {{ for (const i of {items}) localStorage.setItem(i.name, i.value); return true; }})()"


def session_storage_script(origins: list[dict[str, Any]]) -> str | None:
    """Init script restoring sessionStorage: in each document of a saved origin, the saved keys it lacks."""
    saved = {o["origin"]: o["sessionStorage"] for o in origins if o.get("sessionStorage")}
    if not saved:
        return None
    return (
        f"(() => {{ const saved = {orjson.dumps(saved).decode()}; let items; "
        "try { items = saved[location.origin]; if (!items) return; "
        "for (const i of items) if (sessionStorage.getItem(i.name) === null) sessionStorage.setItem(i.name, i.value); "
        "} catch (e) {} })()"
    )


def save(state: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write the state as JSON readable by this user only (0600), replacing the file in one step."""
    target = Path(path).expanduser()
    data = orjson.dumps(state, option=orjson.OPT_INDENT_2) + b"\n"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)  # created 0600
    except OSError as exc:
        raise StorageStateError(f"storage_state {target}: cannot write it ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise StorageStateError(f"storage_state {target}: cannot write it ({exc.strerror or exc})") from None
