"""Let people see what the agent sees: the live view of a running engine and the replay of a recorded run.

`LiveView` / `serve()` (view/live.py): a local page with every tab live, the element index overlay, the
last actions with their timings and results. `Recorder` (view/record.py): every call of any surface as a
trajectory; `load_run()` / `export_html()`: a trajectory (harness or recording) in the same page, or as
one self-contained HTML file. `cdp-engine view` is the command (cli.py); docs/view.md says more.
"""

from __future__ import annotations

from .live import LiveView, serve
from .record import Recorder, export_html, load_run

__all__ = ["LiveView", "Recorder", "export_html", "load_run", "serve"]
