"""Trajectories: one JSONL file per episode (a header, one record per step, an end record) and its reader."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

import orjson

__all__ = ["TrajectoryRecorder", "read_trajectory"]


class TrajectoryRecorder:
    """One JSONL file per episode in `directory`: a header, one record per step, an end record.

    Every line is flushed as written, so a crashed worker leaves a readable prefix. Screenshots
    (optional) are PNG/JPEG files in ``<directory>/<episode_id>/step-NNN.png``.
    """

    def __init__(self, directory: str | os.PathLike[str], *, screenshots: bool = False) -> None:
        self.directory = Path(directory)
        self.screenshots = screenshots
        self.directory.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] | None = None
        self.path: Path | None = None
        self.episode_id: str | None = None

    def begin(self, header: dict[str, Any]) -> Path:
        """Start an episode's file (ending the last one) with its header; returns its path."""
        self.end(None)
        self.episode_id = header["episode_id"]
        self.path = self.directory / f"{self.episode_id}.jsonl"
        self._file = open(self.path, "wb")  # kept open for the episode, closed in end()
        self._write({"type": "episode", **header})
        return self.path

    def record(self, entry: dict[str, Any], screenshot_b64: str | None = None, fmt: str = "png") -> None:
        if self._file is None:
            return
        if screenshot_b64 and self.screenshots and self.episode_id:
            import base64

            folder = self.directory / self.episode_id
            folder.mkdir(exist_ok=True)
            name = f"step-{entry['step']:03d}.{'jpg' if fmt == 'jpeg' else 'png'}"
            (folder / name).write_bytes(base64.b64decode(screenshot_b64))
            entry = {**entry, "screenshot": f"{self.episode_id}/{name}"}
        self._write({"type": "step", **entry})

    def record_step(self, step: int, action: Any, state: dict[str, Any], info: dict[str, Any], fmt: str) -> None:
        """One step as the environment reports it (its info), with the state's screenshot if any."""
        self.record(
            {
                "step": step,
                "action": action,
                "ran": info["ran"],
                "url": info["url"],
                "state_hash": info["state_hash"],
                "content_digest": info["content_digest"],
                "error": info["error"],
                "reward": info["reward"],
                "done": info["done"],
                "active_tab": info["active_tab"],
                "tabs": len(info["tabs"]),
                "timings": info["timings"],
            },
            state.get("screenshot") or None,
            fmt,
        )

    def end(self, summary: dict[str, Any] | None) -> None:
        if self._file is None:
            return
        if summary is not None:
            self._write({"type": "end", **summary})
        self._file.close()
        self._file = None

    def _write(self, record: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(orjson.dumps(record, default=str) + b"\n")
        self._file.flush()


def read_trajectory(
    path: str | os.PathLike[str],
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """(header, steps, end) of a recorded episode."""
    header: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    end: dict[str, Any] | None = None
    with open(path, "rb") as f:
        for line in f:
            if not line.strip():
                continue
            record = orjson.loads(line)
            kind = record.get("type")
            if kind == "episode":
                header = record
            elif kind == "step":
                steps.append(record)
            elif kind == "end":
                end = record
    return header, steps, end
