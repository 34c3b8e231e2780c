"""Bounded event streams (console, network, downloads) read with cursors.

Each record carries a `sequence` that only grows; an update to a record (a network
response arriving, a download finishing) moves it to the end with a new sequence, so a
consumer that pages with `after` sees it again and upserts by its key. Cursors are bound
to one instance lifetime and one stream: a foreign one is rejected, never misread.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .envelope import ToolError

MAX_FIELD_CHARS = 4096


def truncate_fields(record: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """Cap string fields at MAX_FIELD_CHARS, listing the capped ones in `truncated_fields`."""
    cut = []
    for name in names:
        value = record.get(name)
        if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
            record[name] = value[:MAX_FIELD_CHARS]
            cut.append(name)
    if cut:
        record["truncated_fields"] = cut
    return record


class EventStream:
    """At most `capacity` records, oldest evicted first; keyed so updates replace."""

    def __init__(self, name: str, owner_id: str, capacity: int) -> None:
        self.name = name
        self.owner_id = owner_id
        self.capacity = max(1, capacity)
        self.records: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.sequence = 0
        self.dropped_count = 0
        self.max_dropped_sequence = 0

    def upsert(self, key: str, record: dict[str, Any]) -> dict[str, Any]:
        self.sequence += 1
        self.records.pop(key, None)
        record["sequence"] = self.sequence
        record["timestamp"] = time.time()
        self.records[key] = record
        while len(self.records) > self.capacity:
            _, old = self.records.popitem(last=False)
            self.dropped_count += 1
            self.max_dropped_sequence = max(self.max_dropped_sequence, old["sequence"])
        return record

    def get(self, key: str) -> dict[str, Any] | None:
        return self.records.get(key)

    def cursor(self, sequence: int) -> str:
        return f"{self.name}.{self.owner_id}.{sequence}"

    def parse_cursor(self, cursor: str) -> int:
        name, _, rest = cursor.partition(".")
        owner, _, seq = rest.rpartition(".")
        if name != self.name or owner != self.owner_id or not seq.isdigit() or int(seq) > self.sequence:
            raise ToolError(
                "invalid_params", f"Cursor {cursor!r} does not belong to this instance's {self.name} stream."
            )
        return int(seq)

    def page(
        self, after: str | None, limit: int, keep: Callable[[dict[str, Any]], bool] = lambda r: True
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Records after the cursor that pass `keep`, at most `limit`, and the pagination fields."""
        start = self.parse_cursor(after) if after is not None else 0
        out: list[dict[str, Any]] = []
        has_more = False
        last = start
        for record in self.records.values():
            seq = record["sequence"]
            if seq <= start:
                continue
            if not keep(record):
                last = seq
                continue
            if len(out) >= limit:
                has_more = True
                break
            out.append(dict(record))
            last = seq
        if not has_more:  # everything was scanned: resume at the head
            last = self.sequence
        lost = self.max_dropped_sequence > start if after is not None else self.dropped_count > 0
        return out, {
            "next_cursor": self.cursor(last),
            "has_more": has_more,
            "retained_count": len(self.records),
            "dropped_count": self.dropped_count,
            "retention_lost": lost,
        }
