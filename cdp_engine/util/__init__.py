"""Utilities with no browser in them, used by every layer above: the schema validator, text windows (a result's
budget and paging), tracing spans and the activity record the live view reads."""
