"""Replay: re-run a recorded episode in a fresh context and report where its state_hash diverges."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..core.browser import Browser
from .env import BrowserEnv
from .tasks import TaskSpec
from .trajectory import read_trajectory

__all__ = ["ReplayReport", "ReplayStep", "replay"]


@dataclass
class ReplayStep:
    """One step of a replay next to its recording (step 0 is the reset observation)."""

    step: int
    action: Any
    recorded_hash: str | None
    replayed_hash: str | None
    recorded_digest: str | None = None
    replayed_digest: str | None = None
    recorded_error: str | None = None
    replayed_error: str | None = None

    @property
    def match(self) -> bool:
        return self.recorded_hash == self.replayed_hash


@dataclass
class ReplayReport:
    """The replay of one recorded episode: ``diverged_at`` is the first step whose state_hash differs."""

    path: str
    steps: list[ReplayStep] = field(default_factory=list)
    diverged_at: int | None = None

    @property
    def ok(self) -> bool:
        return self.diverged_at is None

    @property
    def first_divergence(self) -> ReplayStep | None:
        return next((s for s in self.steps if not s.match), None)

    def summary(self) -> str:
        if self.ok:
            return f"{self.path}: {len(self.steps)} states replayed, identical state_hash at every step"
        d = self.first_divergence
        assert d is not None
        return (
            f"{self.path}: state_hash diverges at step {d.step} (action {d.action!r}): recorded "
            f"{(d.recorded_hash or '')[:12]} vs replayed {(d.replayed_hash or '')[:12]}"
            f"{'; element index also differs' if d.recorded_digest != d.replayed_digest else '; element index identical'}"
        )


async def replay(
    path: str | os.PathLike[str],
    browser: Browser,
    *,
    stop_on_divergence: bool = False,
    base_url: str | None = None,
) -> ReplayReport:
    """Re-run a recorded episode's actions on the same pages in a fresh context; compare every state_hash.

    The recording's start URL, seed, init scripts and setup_js are reused, so deterministic pages
    replay to identical hashes. `base_url` rewrites the recorded start URL's origin (a page served
    elsewhere); the hashes include the URL, so expect divergence then unless it is the same.
    """
    header, steps, _end = read_trajectory(path)
    if not header:
        raise ValueError(f"{path}: no episode header")
    start_url = header["start_url"]
    if base_url:
        from urllib.parse import urlsplit, urlunsplit

        parts, base = urlsplit(start_url), urlsplit(base_url)
        start_url = urlunsplit((base.scheme, base.netloc, parts.path, parts.query, parts.fragment))
    task = TaskSpec(
        name=header.get("task", "replay"),
        start_url=start_url,
        setup_js=header.get("setup_js"),
        reward_js=header.get("reward_js"),
        init_scripts=tuple(header.get("init_scripts") or ()),
    )
    report = ReplayReport(str(path))
    env = BrowserEnv(browser, wait_until=header.get("wait_until", "load"))
    try:
        await env.reset(task=task, seed=header.get("seed"))
        info = env.last_info
        for rec in steps:
            if rec["step"] > 0:
                _obs, info = await env.step(rec["action"])
            err = info["error"]
            rerr = rec.get("error")
            item = ReplayStep(
                step=rec["step"],
                action=rec.get("action"),
                recorded_hash=rec.get("state_hash"),
                replayed_hash=info["state_hash"],
                recorded_digest=rec.get("content_digest"),
                replayed_digest=info["content_digest"],
                recorded_error=rerr["code"] if rerr else None,
                replayed_error=err["code"] if err else None,
            )
            report.steps.append(item)
            if not item.match and report.diverged_at is None:
                report.diverged_at = item.step
                if stop_on_divergence:
                    break
    finally:
        await env.close()
    return report
