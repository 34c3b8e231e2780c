"""Aggregate benchmark measurements: medians with min/max, ratios, the results JSON, a Markdown table, a chart.

Standard library only at import time, so it runs in the engine's environment and in
benchmarks/.venv-others alike; the chart needs matplotlib, which setup.sh puts in .venv-others only,
so the runner draws it with `.venv-others/bin/python report.py chart RESULTS.json OUT.png`.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# (system, metric, label): the "state an agent reads" of each system, plus floor lines for reference.
SERIES: list[tuple[str, str, str]] = [
    ("floor-websocket", "snapshot.none", "CDP floor: captureSnapshot, no styles"),
    (
        "floor-websocket",
        "snapshot.styles3+rects+paint",
        "CDP floor: captureSnapshot + 3 styles + rects + paint order",
    ),
    ("floor-websocket", "fullAX", "CDP floor: Accessibility.getFullAXTree"),
    ("engine-websocket", "state.cdp_calls", "CDP calls the engine's capture makes (websocket)"),
    ("engine-websocket", "state", "cdp-engine state (websocket)"),
    ("engine-pipe", "state", "cdp-engine state (pipe)"),
    ("playwright", "aria_snapshot", "Playwright aria_snapshot()"),
    ("playwright", "ai_snapshot", "Playwright AI-mode snapshot"),
    ("browser-use", "dom_state", "browser-use DOM state"),
    ("browsergym", "observation", "BrowserGym observation"),
]
FLOOR_REF = ("floor-websocket", "snapshot.none")


def median(values: Sequence[float], digits: int | None = None) -> float | None:
    """The median of timed samples (None when there are none), rounded to `digits` when given."""
    if not values:
        return None
    value = statistics.median(values)
    return round(value, digits) if digits is not None else value


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-quantile by nearest rank: the smallest sample with at least a share q of the samples at or below it
    (p95 of 60 samples is the 57th smallest); None when there are none. Every suite's p95 is this one."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def stats(samples: list[float]) -> dict[str, Any]:
    """Median, min, max and count of timed samples (warm-up excluded)."""
    if not samples:
        return {"n": 0, "median_ms": None, "min_ms": None, "max_ms": None}
    return {
        "n": len(samples),
        "median_ms": round(statistics.median(samples), 3),
        "min_ms": round(min(samples), 3),
        "max_ms": round(max(samples), 3),
    }


def summarize(measurements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (system, page, metric) with its statistics, first (warm-up) time, facts and error."""
    rows = []
    for m in measurements:
        row = {
            "system": m["system"],
            "page": m["page"],
            "metric": m["metric"],
            **stats(m.get("samples_ms") or []),
            "first_ms": None if m.get("first_ms") is None else round(m["first_ms"], 3),
            "error": m.get("error"),
            "extra": m.get("extra") or {},
        }
        rows.append(row)
    return rows


def _lookup(summary: list[dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(r["system"], r["metric"], r["page"]): r for r in summary}


def ratios(summary: list[dict[str, Any]], page_ids: list[str]) -> dict[str, Any]:
    """Per page: each series' median over the floor reference, and over every other system's series."""
    look = _lookup(summary)
    out: dict[str, Any] = {}
    systems = [s for s in SERIES if not s[0].startswith("floor")]
    for page in page_ids:
        ref = look.get((*FLOOR_REF, page))
        ref_ms = ref["median_ms"] if ref else None
        medians = {
            label: look[(sys_, metric, page)]["median_ms"]
            for sys_, metric, label in SERIES
            if (sys_, metric, page) in look and look[(sys_, metric, page)]["median_ms"]
        }
        if not medians:
            continue
        vs_floor = {k: round(v / ref_ms, 2) for k, v in medians.items() if ref_ms}
        pairwise = {
            a: {b: round(medians[a] / medians[b], 2) for _, _, b in systems if b in medians and b != a}
            for _, _, a in systems
            if a in medians
        }
        out[page] = {
            "floor_ref": f"{FLOOR_REF[0]} {FLOOR_REF[1]}",
            "floor_ref_ms": ref_ms,
            "vs_floor": vs_floor,
            "pairwise": pairwise,
        }
    return out


def build(raw: dict[str, Any]) -> dict[str, Any]:
    """The full results document from the runner's raw collection."""
    summary = summarize(raw["measurements"])
    page_ids = list(raw.get("pages", {}))
    return {**raw, "summary": summary, "ratios": ratios(summary, page_ids), "series": SERIES}


def write(results: dict[str, Any], out_dir: Path) -> Path:
    """Write latest.json (the latest run; the runs the docs quote are kept under their own names); return it."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "latest.json"
    path.write_text(json.dumps(results, indent=1, default=str))
    return path


def _fmt(r: dict[str, Any] | None) -> str:
    if r is None:
        return "–"
    if r["median_ms"] is None:
        return f"error: {(r.get('error') or 'no samples')[:40]}"

    def f(x: float) -> str:
        return f"{x:,.0f}" if x >= 10 else f"{x:.1f}"

    cell = f"{f(r['median_ms'])} ({f(r['min_ms'])}–{f(r['max_ms'])})"
    return cell + (" ⚠" if r.get("error") else "")


def markdown(results: dict[str, Any]) -> str:
    """Tables a person reads: state capture per system and page, ratios to the floor, the floor in detail."""
    look = _lookup(results["summary"])
    pages = results.get("pages", {})
    page_ids = [p for p in pages if p != "launch"]
    lines = [
        f"# Benchmark {results.get('meta', {}).get('stamp', '')} ({results.get('meta', {}).get('mode', '')})",
        "",
    ]
    meta = results.get("meta", {})
    machine = meta.get("machine", {})
    lines.append(
        f"Machine: {machine.get('cpu')}, {machine.get('cores')} cores, {machine.get('memory_gb')} GiB; "
        f"{meta.get('chromium', {}).get('product', meta.get('chromium', {}).get('version'))}. "
        "Medians in ms, (min–max) over the timed runs after one warm-up."
    )
    load = meta.get("load_avg_1min") or {}
    if load.get("max") and machine.get("cores") and load["max"] > machine["cores"]:
        lines += [
            "",
            f"⚠ The machine was busy with other work: 1-minute load average up to {load['max']} on "
            f"{machine['cores']} cores (mean {load.get('mean')}). Treat the numbers as ratios within this run.",
        ]
    reduced = [r for r in results["summary"] if r["extra"].get("reps_reduced_from")]
    if reduced:
        lines += [
            "",
            "Fewer timed runs (time budget): "
            + ", ".join(f"{r['system']} {r['metric']} on {r['page']} ({r['n']})" for r in reduced),
        ]
    lines.append("")
    present = [s for s in SERIES if any((s[0], s[1], p) in look for p in page_ids)]
    head = "| page (DOM nodes) | " + " | ".join(s[2] for s in present) + " |"
    lines += [head, "|---|" + "---:|" * len(present)]
    for p in page_ids:
        nodes = pages[p].get("dom_nodes")
        cells = [_fmt(look.get((s[0], s[1], p))) for s in present]
        lines.append(f"| {p} ({nodes:,}) | " if nodes else f"| {p} | ")
        lines[-1] += " | ".join(cells) + " |"
    lines.append("")
    rat = results.get("ratios", {})
    if rat:
        lines.append(f"Ratio of median to the floor ({FLOOR_REF[0]} {FLOOR_REF[1]}):")
        lines.append("")
        labels = [s[2] for s in present if not s[0].startswith("floor")]
        lines += ["| page | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
        for p in page_ids:
            vf = rat.get(p, {}).get("vs_floor", {})
            lines.append(
                f"| {p} | " + " | ".join(f"{vf[label]}×" if label in vf else "–" for label in labels) + " |"
            )
        lines.append("")
    engine_label = next((s[2] for s in present if s[0] == "engine-websocket"), None)
    if rat and engine_label:
        labels = [s[2] for s in present if not s[0].startswith("floor") and s[2] != engine_label]
        lines += [f"Ratio of each system's median to {engine_label} (above 1: slower than the engine):", ""]
        lines += ["| page | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
        for p in page_ids:
            pw = rat.get(p, {}).get("pairwise", {})
            cells = [
                f"{pw[label][engine_label]}×" if engine_label in pw.get(label, {}) else "–"
                for label in labels
            ]
            lines.append(f"| {p} | " + " | ".join(cells) + " |")
        lines.append("")
    for prefix, title in (("floor", "Raw CDP calls"), ("engine", "cdp-engine in detail")):
        systems = sorted(
            {r["system"] for r in results["summary"] if r["system"].startswith(prefix)},
            key=lambda s: ("pipe" in s, s),
        )
        for system in systems:
            rows = [r for r in results["summary"] if r["system"] == system and r["page"] != "launch"]
            metrics = sorted({r["metric"] for r in rows})
            if not rows:
                continue
            lines += [f"{title}, {system.split('-', 1)[1]}:", ""]
            lines += ["| page | " + " | ".join(metrics) + " |", "|---|" + "---:|" * len(metrics)]
            for p in page_ids:
                if any(r["page"] == p for r in rows):
                    cells = " | ".join(_fmt(look.get((system, m, p))) for m in metrics)
                    lines.append(f"| {p} | {cells} |")
            lines.append("")
    launch = [r for r in results["summary"] if r["page"] == "launch" and r["median_ms"] is not None]
    if launch:
        lines += [
            "Launch (a fresh Chromium each run):",
            "",
            "| system | phase | median (min–max) |",
            "|---|---|---:|",
        ]
        lines += [f"| {r['system']} | {r['metric']} | {_fmt(r)} |" for r in launch]
        lines.append("")
    engine_facts = [
        (r["system"], r["page"], r["extra"])
        for r in results["summary"]
        if r["system"].startswith("engine") and r["metric"] == "state" and r["extra"]
    ]
    if engine_facts:
        lines += [
            "cdp-engine state facts:",
            "",
            "| system | page | elements | page_content chars | phases (median ms) |",
            "|---|---|---:|---:|---|",
        ]
        for system, page, extra in engine_facts:
            phases = ", ".join(
                f"{k} {v:.0f}"
                for k, v in (extra.get("phases_median_ms") or {}).items()
                if isinstance(v, int | float)
            )
            lines.append(
                f"| {system} | {page} | {extra.get('elements')} | {extra.get('page_content_chars')} | {phases} |"
            )
        lines.append("")
    look_cpu = {(r["system"], r["page"]): r for r in results["summary"] if r["metric"] == "state.cpu"}
    process_rows = []
    for page, info in results.get("pages", {}).items():
        for system, facts in (info.get("facts") or {}).items():
            if not system.startswith("engine"):
                continue
            cpu, wall = look_cpu.get((system, page)), look.get((system, "state", page))
            share = (
                f"{100 * cpu['median_ms'] / wall['median_ms']:.0f} %"
                if cpu and wall and cpu.get("median_ms") and wall.get("median_ms")
                else "–"
            )
            process_rows.append(
                f"| {system} | {page} | {share} | {facts.get('peak_rss_mb', 0):.0f} | "
                f"{facts.get('validate_action_us', '–')} | {facts.get('parse_action_us', '–')} |"
            )
    if process_rows:
        lines += [
            "cdp-engine process (Python CPU share of the state's wall time, peak RSS of the engine's process "
            "after the page, cost of checking an action against protocol/schemas):",
            "",
            "| system | page | Python CPU / wall | peak RSS MB | validate_action µs | parse_action (JSON text) µs |",
            "|---|---|---:|---:|---:|---:|",
            *process_rows,
            "",
        ]
    coverage = [
        r for r in results["summary"] if r["extra"].get("markers_missing") or r["extra"].get("markers_found")
    ]
    if any(r["extra"].get("markers_missing") for r in coverage):
        lines += ["Markers missing from each state text (coverage of frames, shadow roots, whole page):", ""]
        for r in coverage:
            if r["extra"].get("markers_missing"):
                lines.append(
                    f"- {r['system']} {r['metric']} on {r['page']}: {', '.join(r['extra']['markers_missing'])}"
                )
        lines.append("")
    lines.append("Systems:")
    lines.append("")
    for name, info in results.get("systems", {}).items():
        status = info.get("status")
        err = f" — {info['error']}" if info.get("error") else ""
        if status == "ok" and info.get("errors"):
            err = " — errors: " + "; ".join(f"{p}: {e}" for p, e in info["errors"].items())
        lines.append(
            f"- {name}: {status}{' ' + str(info.get('version')) if info.get('version') else ''}{err}"
        )
    return "\n".join(lines) + "\n"


def chart(results: dict[str, Any], png: Path) -> None:
    """Capture latency against page size (DOM nodes), log-log, one line per system series."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    look = _lookup(results["summary"])
    pages = {p: v for p, v in results.get("pages", {}).items() if v.get("dom_nodes")}
    fig, ax = plt.subplots(figsize=(10, 6.2), dpi=110)
    styles = {"floor": dict(linestyle="--", linewidth=1.2, alpha=0.8)}
    for system, metric, label in SERIES:
        pts = []
        for p, info in pages.items():
            r = look.get((system, metric, p))
            if r and r["median_ms"]:
                pts.append((info["dom_nodes"], r["median_ms"], r["min_ms"], r["max_ms"], info.get("kind")))
        if not pts:
            continue
        pts.sort()
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        err = [
            [y - p[2] for y, p in zip(ys, pts, strict=True)],
            [p[3] - y for y, p in zip(ys, pts, strict=True)],
        ]
        kw = styles["floor"] if system.startswith("floor") else dict(linewidth=2.0)
        ax.errorbar(xs, ys, yerr=err, marker="o", markersize=4, capsize=2, label=label, **kw)
    for p, info in pages.items():
        if info.get("kind") != "generated":
            ax.axvline(info["dom_nodes"], color="#bbb", linewidth=0.6, zorder=0)
            ax.annotate(
                p,
                (info["dom_nodes"], 0.02),
                xycoords=("data", "axes fraction"),
                rotation=90,
                va="bottom",
                ha="right",
                fontsize=7,
                color="#777",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("page size (DOM nodes; generated pages and python-doc pages, marked by grey lines)")
    ax.set_ylabel("time to the state an agent reads (ms, median; bars: min–max)")
    meta = results.get("meta", {})
    ax.set_title(
        f"State capture latency vs page size — {meta.get('mode', '')} run {meta.get('stamp', '')}",
        fontsize=11,
    )
    load = meta.get("load_avg_1min") or {}
    cores = meta.get("machine", {}).get("cores")
    if load.get("max") and cores and load["max"] > cores:
        ax.text(
            0.99,
            0.01,
            f"machine busy: load average up to {load['max']:.1f} on {cores} cores",
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize=8,
            color="#b00",
        )
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
    plt.close(fig)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] in ("chart", "md"):
        data = json.loads(Path(sys.argv[2]).read_text())
        if sys.argv[1] == "chart":
            chart(data, Path(sys.argv[3]))
        else:
            print(markdown(data))
    else:
        print("usage: report.py chart RESULTS.json OUT.png | report.py md RESULTS.json", file=sys.stderr)
        sys.exit(2)
