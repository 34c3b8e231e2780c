"""A NiceGUI app (Vue and Quasar components: a custom select, a styled checkbox, an expansion), stored in SQLite.

Run: ORDERS_DB=/path/to.db python nicegui_orders.py PORT.
"""

import os
import sqlite3
import sys

from nicegui import ui

DB = os.environ["ORDERS_DB"]


def db() -> sqlite3.Connection:
    conn = sqlite3.connect(DB)
    conn.execute(
        "create table if not exists orders (id integer primary key, customer text, color text, quantity integer,"
        " express integer, notes text)"
    )
    return conn


@ui.page("/")
def index() -> None:
    ui.label("Place an order").classes("text-h5")
    customer = ui.input("Customer name")
    color = ui.select(["Red", "Green", "Blue"], label="Color").classes("w-64")
    quantity = ui.number("Quantity", value=1, min=1, format="%d")
    express = ui.checkbox("Express delivery")
    with ui.expansion("More details"):
        notes = ui.textarea("Notes")
    status = ui.label("")

    def save() -> None:
        with db() as conn:
            cur = conn.execute(
                "insert into orders (customer, color, quantity, express, notes) values (?, ?, ?, ?, ?)",
                (customer.value, color.value, int(quantity.value or 0), int(bool(express.value)), notes.value),
            )
        status.set_text(f"Saved order {cur.lastrowid}")

    ui.button("Place order", on_click=save)


if __name__ in {"__main__", "__mp_main__"}:
    db().close()
    ui.run(host="127.0.0.1", port=int(sys.argv[1]), reload=False, show=False, title="Orders")
