"""Safety policies, one object each, that every surface consults instead of keeping its own rule.

- `NavigationPolicy`: which URL schemes a navigation may reach (checked on the parsed URL), which
  origins it may or may not reach (allowed and blocked origins, enforced on redirects and popups too
  by the context's request guard, core/network.py), and which URLs no browser would load anyway
  (longer than MAX_URL_CHARS, an invalid IPv4 or IPv6 or a forbidden host, an about: page other than
  about:blank), refused at validation rather than by the browser.
- `FilePolicy`: which folders uploads may read, the one folder a surface may write (screenshots,
  PDFs, logs, saved downloads) and the folder persistent browser profiles are made in; paths are
  resolved through symlinks and `..` first.
- `ResultBound`: the largest result a surface hands back.
- `Policies`: the three together, with each surface's defaults as named constructors.

A refusal is a `PolicyError` whose `rule` names the rule; each surface maps it to its own error
vocabulary. The per-surface defaults and how to change them are in docs/policies.md.
"""

from __future__ import annotations

import ipaddress
import os
import re
import string
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal
from urllib.parse import unquote_to_bytes, urlsplit

from ..errors import CDPEngineError
from ..util.schema import encodes
from ..util.text_windows import MAX_RESULT_CHARS, MIN_RESULT_CHARS, RESULT_CHARS
from .origins import FORBIDDEN_HOST_CHARS, HOST_SCHEMES, OriginPattern, parse_origins, url_origin

__all__ = [
    "HOST_SCHEMES",
    "INDEX_SCHEMES",
    "MAX_RESULT_CHARS",
    "MAX_URL_CHARS",
    "MCP_MAX_RESULT_BYTES",
    "MCP_MIN_RESULT_BYTES",
    "MIN_RESULT_CHARS",
    "RESULT_CHARS",
    "SERVER_SCHEMES",
    "TOOLSET_TEXT_CAP",
    "WEB_SCHEMES",
    "FilePolicy",
    "NavigationPolicy",
    "OriginPattern",
    "Policies",
    "PolicyError",
    "ResultBound",
    "origin_policy",
    "parse_origins",
]

WEB_SCHEMES = frozenset({"http", "https"})
# Servers (MCP, HTTP service): the web plus the harmless about: (about:blank) and data: documents.
SERVER_SCHEMES = frozenset({"http", "https", "about", "data"})
# The in-process element index: what its navigate action has always reached.
INDEX_SCHEMES = frozenset({"http", "https", "file", "about", "data"})
TOOLSET_TEXT_CAP = 50_000  # characters of page text / script output the browser toolset returns
MCP_MAX_RESULT_BYTES = 1_048_576  # BROWSER_MCP_MAX_RESULT_BYTES default: the UTF-8 JSON envelope
MCP_MIN_RESULT_BYTES = 4096
MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255  # NAME_MAX of Linux, macOS and Windows file systems: a longer name is no file name
# Characters IDNA maps to nothing (soft hyphen, zero-width ones, variation selectors, BOM): a host of
# only these is empty.
_IDNA_IGNORED = dict.fromkeys(
    [0xAD, 0x34F, 0x1806, 0x180B, 0x180C, 0x180D, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, *range(0xFE00, 0xFE10)]
)
MAX_URL_CHARS = 2 * 1024 * 1024  # Chromium's own limit (url::kMaxURLChars): a longer URL is no URL to it
_PORT_SUFFIX = re.compile(r"(?::[0-9]*)?")  # what may follow an IPv6 host's ']' (urlsplit checks the number)


class PolicyError(CDPEngineError):
    """A policy refused a navigation or a file; `rule` names the rule (e.g. 'navigation.scheme')."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


# ----- navigation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NavigationPolicy:
    """The URL schemes a navigation may reach; everything else (chrome:, devtools:, javascript:,
    view-source:, chrome-extension:, file: unless listed, ...) is refused.

    `allowed_origins` (none: every origin) and `blocked_origins` (checked first) narrow the web schemes
    further, as playwright-mcp's --allowed-origins / --blocked-origins do; see OriginPattern for the
    spelling. They govern URLs with a host (http, https, ws, wss; blob: and view-source: by the URL
    inside); about:, data: and file: are the schemes' business. `allow_hint` and `origin_hint` say,
    in a refusal, how the user of this surface changes it.
    """

    schemes: frozenset[str] = WEB_SCHEMES
    allow_hint: str = "pass NavigationPolicy(schemes=...)"
    allowed_origins: tuple[str, ...] = ()
    blocked_origins: tuple[str, ...] = ()
    origin_hint: str = "pass NavigationPolicy(allowed_origins=..., blocked_origins=...)"
    _allowed: tuple[OriginPattern, ...] = field(default=(), init=False, repr=False, compare=False)
    _blocked: tuple[OriginPattern, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "schemes", frozenset(s.lower().rstrip(":") for s in self.schemes))
        allowed, blocked = parse_origins(self.allowed_origins), parse_origins(self.blocked_origins)
        object.__setattr__(self, "allowed_origins", tuple(p.text for p in allowed))
        object.__setattr__(self, "blocked_origins", tuple(p.text for p in blocked))
        object.__setattr__(self, "_allowed", allowed)
        object.__setattr__(self, "_blocked", blocked)

    @property
    def guards_origins(self) -> bool:
        """True when origins are restricted: then redirects and popups are checked request by request."""
        return bool(self._allowed or self._blocked)

    @property
    def request_guard(self) -> NavigationPolicy | None:
        """This policy for a context's request guard when it restricts origins; None (no guard) otherwise."""
        return self if self.guards_origins else None

    def with_origins(self, allowed: Iterable[str] = (), blocked: Iterable[str] = ()) -> NavigationPolicy:
        """This policy with these allowed and blocked origins (replacing the ones it had)."""
        return replace(self, allowed_origins=tuple(allowed), blocked_origins=tuple(blocked))

    def check_origin(self, url: str) -> str:
        """`url` unchanged when its origin may be reached; PolicyError ('navigation.blocked_origin' or
        'navigation.origin_not_allowed') otherwise. The request guard calls this for every document request."""
        if not (self._allowed or self._blocked):
            return url
        origin = url_origin(url)
        if origin is None:
            return url
        shown = _shown(url)
        for pattern in self._blocked:
            if pattern.matches(*origin):
                raise PolicyError(
                    "navigation.blocked_origin",
                    f"navigation to {shown} is not allowed: its origin matches the blocked origin "
                    f"{pattern.text!r} (policy: blocked origins {'; '.join(self.blocked_origins)}; {self.origin_hint})",
                )
        if self._allowed and not any(pattern.matches(*origin) for pattern in self._allowed):
            raise PolicyError(
                "navigation.origin_not_allowed",
                f"navigation to {shown} is not allowed: its origin is not an allowed origin "
                f"(policy: allowed origins {'; '.join(self.allowed_origins)}; {self.origin_hint})",
            )
        return url

    def allowing(self, schemes: Iterable[str]) -> NavigationPolicy:
        """This policy with more schemes allowed."""
        return replace(self, schemes=self.schemes | {s.lower().rstrip(":") for s in schemes})

    def allows(self, url: str) -> bool:
        try:
            self.check(url)
        except PolicyError:
            return False
        return True

    def check(self, url: str) -> str:
        """`url` unchanged when the policy allows it; PolicyError naming the rule otherwise.

        The URL is parsed the way browsers do (leading spaces and controls, tabs and newlines
        dropped), never prefix-matched, so `JAVASCRIPT:`, ` javascript:` or `java\\tscript:` are
        all the javascript: scheme. A view-source: URL must also be allowed for what it shows.
        URLs Chromium would refuse or block are refused here, saying why (see docs/policies.md):
        longer than MAX_URL_CHARS ('navigation.length'), a host that is no valid IPv4 address, has a
        forbidden character or is a bracketed host Chromium refuses (a zone id as in `[fe80::1%25eth0]`,
        `[v1.x]`, text after the `]`) ('navigation.url'), about: other than about:blank ('navigation.about').
        """
        if len(url) > MAX_URL_CHARS:
            raise PolicyError(
                "navigation.length",
                f"navigation to a URL of {len(url):,} characters is not allowed: URLs longer than "
                f"{MAX_URL_CHARS:,} characters are refused (Chromium's own limit)",
            )
        shown = _shown(url)
        if not encodes(url):  # a lone surrogate: no URL (and no CDP message) can carry it
            raise PolicyError("navigation.url", f"{shown} is not a valid URL: it holds a lone surrogate")
        try:
            parts = urlsplit(url.strip())
            _ = parts.port  # a port out of range is no URL
        except ValueError:
            raise PolicyError("navigation.url", f"{shown} is not a valid URL") from None
        scheme = parts.scheme.lower()
        if not scheme:
            raise PolicyError(
                "navigation.url", f"navigation to {shown} is not allowed: it is not an absolute URL ({self._rule()})"
            )
        if scheme not in self.schemes:
            raise PolicyError(
                "navigation.scheme", f"navigation to {scheme}: URLs is not allowed ({self._rule()})"
            )
        if scheme in HOST_SCHEMES:
            if not parts.netloc:
                raise PolicyError("navigation.url", f"navigation to {shown} is not allowed: the URL has no host")
            hostport = parts.netloc.rpartition("@")[2]
            if "[" in hostport or "]" in hostport:
                fault = _ipv6_fault(hostport)
                if fault is not None:
                    raise PolicyError("navigation.url", f"{shown} is not a valid URL: {fault}")
            else:
                host = _host(parts.hostname or "")
                if host == "":  # http://:80/, http://user@/, a host of only ignored characters
                    raise PolicyError("navigation.url", f"navigation to {shown} is not allowed: the URL has no host")
                if host is None or not FORBIDDEN_HOST_CHARS.isdisjoint(host):
                    raise PolicyError(
                        "navigation.url", f"{shown} is not a valid URL: its host has a forbidden character"
                    )
                if _bad_ipv4(host):
                    raise PolicyError(
                        "navigation.url", f"{shown} is not a valid URL: {host!r} is not a valid IPv4 address"
                    )
        if scheme == "about" and parts.path.lower() != "blank":
            raise PolicyError(
                "navigation.about",
                f"navigation to {shown} is not allowed: of the about: URLs only about:blank is "
                "(Chromium blocks the others, landing on about:blank#blocked)",
            )
        if scheme == "view-source":
            self.check(url.strip()[len("view-source:") :])
        return self.check_origin(url)

    def _rule(self) -> str:
        return f"policy: allowed schemes {', '.join(sorted(self.schemes))}; {self.allow_hint} to allow more"


def _shown(url: str) -> str:
    """The URL for a message: quoted, and cut short so a refusal never echoes megabytes."""
    return repr(url) if len(url) <= 200 else repr(url[:200]) + f"... ({len(url):,} characters)"


def _host(hostname: str) -> str | None:
    """A domain as the browser reads it (the URL standard's host parser, closely enough): percent-decoded,
    NFKC-normalised (fullwidth digits and dots), characters IDNA ignores dropped; None when the decoded
    bytes are no UTF-8."""
    try:
        text = unquote_to_bytes(hostname).decode("utf-8")
    except UnicodeDecodeError:
        return None
    text = unicodedata.normalize("NFKC", text).translate(_IDNA_IGNORED)
    return "".join("." if c in "\u3002\uff0e\uff61" else c for c in text).lower()


def _ipv6_fault(hostport: str) -> str | None:
    """What makes a host written with brackets (and the port after it) no IPv6 address Chromium takes, or
    None. urlsplit is laxer than the URL standard and Chromium: it keeps a zone id (`[fe80::1%25eth0]`),
    IPvFuture (`[v1.x]`) and text after the `]` (`[::1]x`), and reads `x[::1]` as the host `::1`."""
    if not hostport.startswith("["):
        return "its host has a '[' or ']' outside an IPv6 address"
    address, _, rest = hostport[1:].partition("]")
    rest = rest.partition("\\")[0]  # a backslash ends the host of a web URL, as a slash does
    if "%" in address:
        return f"[{address}] has a zone id (the part from '%'), which no URL may hold"
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        return f"[{address}] is not a valid IPv6 address"
    if not _PORT_SUFFIX.fullmatch(rest):
        return f"{rest!r} follows the IPv6 address [{address}] where only ':' and a port may"
    return None


def _bad_ipv4(host: str) -> bool:
    """A host whose last label is a number must be an IPv4 address (the URL standard's host parser,
    which Chromium follows: 1.2.3 and 0x7f.1 are addresses; 256.256.256.256 and 1.2.3.4.5 are no URL)."""
    labels = host.split(".")
    if len(labels) > 1 and labels[-1] == "":
        labels.pop()
    last = labels[-1]
    hex_last = last[:2] in ("0x", "0X") and all(c in string.hexdigits for c in last[2:])
    if not last or not ((last.isascii() and last.isdigit()) or hex_last):
        return False  # a domain name
    if len(labels) > 4:
        return True
    numbers = []
    for label in labels:
        digits, radix = label, 10
        if label[:2] in ("0x", "0X"):
            digits, radix = label[2:], 16
        elif len(label) > 1 and label.startswith("0"):
            digits, radix = label[1:], 8
        if not label or not digits.isascii():
            return True
        try:
            numbers.append(int(digits, radix) if digits else 0)
        except ValueError:
            return True
    return any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers))


def origin_policy(
    allowed: Iterable[str],
    blocked: Iterable[str],
    hint: str = "pass launch(allowed_origins=..., blocked_origins=...)",
) -> NavigationPolicy | None:
    """A browser's or context's origin rule (launch(), connect(), the harness): None when neither list has an
    entry (no request guard at all); an invalid entry is a ValueError naming it."""
    allowed, blocked = tuple(allowed), tuple(blocked)
    if not allowed and not blocked:
        return None
    return NavigationPolicy(allowed_origins=allowed, blocked_origins=blocked, origin_hint=hint)


# ----- files -----------------------------------------------------------------------------------


def resolve(path: str | os.PathLike[str], base: Path | None = None) -> Path:
    """The real path: `~` expanded, relative to `base` (else the working directory), symlinks and
    `..` resolved, so a check sees where the file really is."""
    expanded = Path(os.path.expanduser(os.fspath(path)))
    if base is not None and not expanded.is_absolute():
        expanded = base / expanded
    return Path(os.path.realpath(expanded))


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


@dataclass(frozen=True)
class _Folder:
    """A folder a surface writes into, in the words of its refusals: rules `files.no_<rule>` (none
    configured) and `files.outside_<rule>` (the real target is elsewhere, or is the folder itself)."""

    rule: str
    noun: str
    doing: str
    done: str


_OUTPUT = _Folder("output_dir", "output folder", "writing files", "files are written")
_PROFILES = _Folder("profile_root", "profile folder", "making a persistent profile", "persistent profiles are made")


@dataclass(frozen=True)
class FilePolicy:
    """Which folders uploads may read (`upload_roots`) and the one folder writes go to (`output_dir`).

    `profile_root` is the folder persistent browser profiles (user-data directories) are made in:
    a profile is a write an agent chooses, so it gets the output folder's rules in a folder of its own.

    All are resolved (symlinks, `..`) when the policy is made, and every path is resolved the
    same way before it is checked. No upload roots: every upload is refused. No output folder:
    every write is refused. No profile folder: every persistent profile is refused. `*_hint` say,
    in a refusal, how the user of this surface allows more.
    """

    upload_roots: tuple[Path, ...] = ()
    output_dir: Path | None = None
    upload_hint: str = "pass FilePolicy(upload_roots=[...])"
    output_hint: str = "pass FilePolicy(output_dir=...)"
    # Folders no upload root may be, contain or sit inside (the browser's downloads folder: a page
    # could otherwise download a file and have it uploaded back under another name).
    never_read: tuple[Path, ...] = field(default=())
    # Single files an upload may read wherever they are (an application's allowlist of documents).
    upload_files: tuple[Path, ...] = field(default=())
    # Uploads not checked at all (see unrestricted()): "local" resolves each path here, "remote" sends it as given.
    upload_anywhere: Literal["local", "remote"] | None = None
    profile_root: Path | None = None
    profile_hint: str = "pass FilePolicy(profile_root=...)"

    def __post_init__(self) -> None:
        roots = tuple(resolve(r) for r in self.upload_roots)
        object.__setattr__(self, "upload_roots", roots)
        object.__setattr__(self, "upload_files", tuple(resolve(f) for f in self.upload_files))
        if self.output_dir is not None:
            object.__setattr__(self, "output_dir", resolve(self.output_dir))
        if self.profile_root is not None:
            object.__setattr__(self, "profile_root", resolve(self.profile_root))
        for folder in (resolve(f) for f in self.never_read):
            for root in roots:
                if _inside(root, folder) or _inside(folder, root):
                    raise ValueError(
                        "an upload root may not be, contain or sit inside the browser's downloads folder"
                    )

    @classmethod
    def unrestricted(cls, *, local: bool = True) -> FilePolicy:
        """Uploads may read any path, and nothing is written: for a caller that runs its own tasks and
        names their files itself (the harness), never for paths an agent chooses. `local`: the browser
        runs on this machine, so each path is resolved here (symlinks, `..`, relative to the working
        directory); False: the browser is remote and the paths name files on its host, sent as given."""
        return cls(
            upload_hint="FilePolicy.unrestricted() checks no uploads",
            output_hint="FilePolicy.unrestricted() allows no writes",
            upload_anywhere="local" if local else "remote",
        )

    def listing(self, files: Iterable[str | os.PathLike[str]]) -> FilePolicy:
        """This policy, also allowing these single files."""
        return replace(self, upload_files=(*self.upload_files, *(Path(f) for f in files)))

    def excluding(self, folder: str | os.PathLike[str]) -> FilePolicy:
        """This policy, checked now to keep `folder` (e.g. the browser's downloads folder) unreadable."""
        return replace(self, never_read=(*self.never_read, Path(folder)))

    def _valid(self, path: str | os.PathLike[str]) -> str:
        text = os.fspath(path)
        if not text or "\x00" in text or len(text) > MAX_PATH_CHARS:
            raise PolicyError("files.invalid_path", f"{text[:100]!r} is not a valid path")
        if not encodes(text):  # a lone surrogate (from a JSON escape): no file name a tool is given has one
            raise PolicyError("files.invalid_path", f"{text[:100]!r} is not a valid path: it holds a lone surrogate")
        return text

    def upload_path(self, path: str | os.PathLike[str]) -> Path:
        """The real path of a file an upload may read; PolicyError naming the rule otherwise."""
        text = self._valid(path)
        if self.upload_anywhere == "remote":
            return Path(text)
        real = resolve(text)
        if self.upload_anywhere == "local":
            return real
        if real in self.upload_files and real.is_file():
            return real
        if not self.upload_roots:
            raise PolicyError(
                "files.no_upload_roots", f"uploads are not allowed: no upload folders are configured ({self.upload_hint})"
            )
        if not any(_inside(real, root) for root in self.upload_roots):
            raise PolicyError(
                "files.outside_upload_roots",
                f"{text!r} is outside the allowed upload folders "
                f"(policy: uploads read only from {', '.join(map(str, self.upload_roots))}; {self.upload_hint})",
            )
        if not real.is_file():
            raise PolicyError("files.not_a_file", f"{text!r} does not exist or is not a file")
        return real

    def upload_paths(self, paths: Sequence[str | os.PathLike[str]]) -> list[str]:
        """upload_path for each, as the strings DOM.setFileInputFiles takes."""
        return [str(self.upload_path(p)) for p in paths]

    def output_path(self, path: str | os.PathLike[str]) -> Path:
        """Where a write of `path` goes: relative paths inside the output folder; PolicyError when the
        real target (symlinks and `..` resolved) is outside it."""
        return self._inside_folder(path, self.output_dir, _OUTPUT, self.output_hint)

    def profile_path(self, path: str | os.PathLike[str]) -> Path:
        """The real folder a persistent profile of `path` is made in: relative paths inside the profile
        folder; PolicyError when it is outside it (symlinks and `..` resolved), is the folder itself or is
        a file."""
        real = self._inside_folder(path, self.profile_root, _PROFILES, self.profile_hint)
        if real.exists() and not real.is_dir():
            raise PolicyError("files.not_a_folder", f"{os.fspath(path)!r} is a file, not a profile folder")
        return real

    def _inside_folder(self, path: str | os.PathLike[str], folder: Path | None, kind: _Folder, hint: str) -> Path:
        """`path` resolved against `folder` (the one rule for every folder a surface writes into)."""
        text = self._valid(path)
        if folder is None:
            raise PolicyError(
                f"files.no_{kind.rule}", f"{kind.doing} is not allowed: no {kind.noun} is configured ({hint})"
            )
        real = resolve(text, folder)
        if real == folder or not _inside(real, folder):
            raise PolicyError(
                f"files.outside_{kind.rule}",
                f"{text!r} is outside the {kind.noun} (policy: {kind.done} only inside {folder}; {hint})",
            )
        if any(len(os.fsencode(part)) > MAX_NAME_BYTES for part in real.relative_to(folder).parts):
            raise PolicyError(
                "files.invalid_path", f"{text[:100]!r} is not a valid path: a name in it is over {MAX_NAME_BYTES} bytes"
            )
        return real


# ----- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResultBound:
    """The largest result a surface returns (`limit` in `unit`; None: unbounded)."""

    limit: int | None = None
    unit: Literal["bytes", "chars"] = "bytes"


# ----- all together ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Policies:
    """The policies one surface consults; the named constructors are each surface's defaults."""

    navigation: NavigationPolicy = field(default_factory=NavigationPolicy)
    files: FilePolicy = field(default_factory=FilePolicy)
    result: ResultBound = field(default_factory=ResultBound)

    @classmethod
    def for_toolset(
        cls,
        *,
        upload_roots: Sequence[str | os.PathLike[str]] = (),
        allowed_schemes: Iterable[str] = WEB_SCHEMES,
        downloads_dir: str | os.PathLike[str] | None = None,
        allowed_origins: Iterable[str] = (),
        blocked_origins: Iterable[str] = (),
    ) -> Policies:
        """The browser toolset: http(s) only, uploads from the configured roots (never the browser's
        downloads folder), no writes (downloads stay in the browser's folder), 50,000-char texts."""
        return cls(
            NavigationPolicy(
                frozenset(allowed_schemes), "set ToolsetConfig.allowed_schemes",
                allowed_origins=tuple(allowed_origins),
                blocked_origins=tuple(blocked_origins),
                origin_hint="set ToolsetConfig.allowed_origins / blocked_origins",
            ),
            FilePolicy(
                tuple(Path(r) for r in upload_roots),
                None,
                "set ToolsetConfig.upload_roots",
                "the toolset writes no files",
                (Path(downloads_dir),) if downloads_dir is not None else (),
            ),
            ResultBound(TOOLSET_TEXT_CAP, "chars"),
        )

    @classmethod
    def for_mcp(
        cls,
        *,
        output_dir: str | os.PathLike[str],
        upload_roots: Sequence[str | os.PathLike[str]] = (),
        allowed_schemes: Iterable[str] = SERVER_SCHEMES,
        max_result_bytes: int = MCP_MAX_RESULT_BYTES,
        profile_root: str | os.PathLike[str] | None = None,
        allowed_origins: Iterable[str] = (),
        blocked_origins: Iterable[str] = (),
    ) -> Policies:
        """The MCP server: http(s), about: and data: navigations; uploads only from configured roots
        (none by default); writes only inside the output folder, persistent profiles only inside the
        profile folder (none given: none allowed); the envelope's byte bound."""
        return cls(
            NavigationPolicy(
                frozenset(allowed_schemes), "set BROWSER_MCP_ALLOWED_SCHEMES (Config.allowed_schemes)",
                allowed_origins=tuple(allowed_origins),
                blocked_origins=tuple(blocked_origins),
                origin_hint="start the server with --allowed-origins / --blocked-origins (Config.allowed_origins)",
            ),
            FilePolicy(
                tuple(Path(r) for r in upload_roots),
                Path(output_dir),
                "set BROWSER_MCP_UPLOAD_ROOTS (Config.upload_roots)",
                "set BROWSER_MCP_OUTPUT_DIR (Config.output_dir)",
                profile_root=Path(profile_root) if profile_root is not None else None,
                profile_hint="set BROWSER_MCP_PROFILE_ROOT (Config.profile_root)",
            ),
            ResultBound(max(MCP_MIN_RESULT_BYTES, max_result_bytes), "bytes"),
        )

    @classmethod
    def for_index(
        cls,
        *,
        allowed_schemes: Iterable[str] = INDEX_SCHEMES,
        allowed_origins: Iterable[str] = (),
        blocked_origins: Iterable[str] = (),
    ) -> Policies:
        """The in-process element index: http(s), file:, about: and data:; no uploads, no writes."""
        return cls(
            NavigationPolicy(
                frozenset(allowed_schemes), "set ElementIndex.of(tab).policies",
                allowed_origins=tuple(allowed_origins),
                blocked_origins=tuple(blocked_origins),
                origin_hint="pass launch(allowed_origins=..., blocked_origins=...)",
            ),
            FilePolicy(upload_hint="the element index does not upload", output_hint="the element index writes no files"),
            ResultBound(None),
        )

    @classmethod
    def for_service(
        cls,
        *,
        allowed_schemes: Iterable[str] = SERVER_SCHEMES,
        allowed_origins: Iterable[str] = (),
        blocked_origins: Iterable[str] = (),
    ) -> Policies:
        """The HTTP service: http(s), about: and data: (a remote caller never reaches file: or chrome:)."""
        return cls(
            NavigationPolicy(
                frozenset(allowed_schemes), "start the service with --allow-scheme SCHEME",
                allowed_origins=tuple(allowed_origins),
                blocked_origins=tuple(blocked_origins),
                origin_hint="start the service with --allowed-origins / --blocked-origins",
            ),
            FilePolicy(upload_hint="the service does not upload", output_hint="the service writes no files"),
            ResultBound(None),
        )
