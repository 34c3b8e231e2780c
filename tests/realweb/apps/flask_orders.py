"""A Flask app with a plain HTML form below the fold (a long introduction first), stored in SQLite.

Run: ORDERS_DB=/path/to.db python flask_orders.py PORT. The form's notes sit in a closed <details>.
"""

import os
import sqlite3
import sys

from flask import Flask, redirect, request

app = Flask(__name__)
DB = os.environ["ORDERS_DB"]


def db() -> sqlite3.Connection:
    conn = sqlite3.connect(DB)
    conn.execute(
        "create table if not exists orders (id integer primary key, customer text, size text, quantity integer,"
        " color text, gift integer, notes text)"
    )
    return conn


INTRO = "".join(
    f"<p>Paragraph {i} of the shop's terms: orders ship within two working days; returns are free for 30 days.</p>"
    for i in range(40)
)

FORM = """<!doctype html><html><head><title>Order</title></head><body>
<h1>Place an order</h1>{intro}
<form method="post" action="/orders">
  <p><label for="customer">Customer name</label> <input id="customer" name="customer" required></p>
  <fieldset><legend>Size</legend>
    <label><input type="radio" name="size" value="S"> Small</label>
    <label><input type="radio" name="size" value="M"> Medium</label>
    <label><input type="radio" name="size" value="L"> Large</label>
  </fieldset>
  <p><label for="quantity">Quantity</label> <input id="quantity" name="quantity" type="number" value="1" min="1"></p>
  <p><label for="color">Color</label> <select id="color" name="color">
    <option value="">Choose</option><option value="red">Red</option><option value="green">Green</option></select></p>
  <p><label><input type="checkbox" name="gift" value="1"> Gift wrap</label></p>
  <details><summary>Notes</summary><p><label for="notes">Notes</label> <textarea id="notes" name="notes"></textarea></p></details>
  <p><button type="submit">Place order</button></p>
</form></body></html>"""


@app.get("/")
def form() -> str:
    return FORM.replace("{intro}", INTRO)


@app.post("/orders")
def create():
    f = request.form
    with db() as conn:
        cur = conn.execute(
            "insert into orders (customer, size, quantity, color, gift, notes) values (?, ?, ?, ?, ?, ?)",
            (f.get("customer"), f.get("size"), int(f.get("quantity") or 0), f.get("color"), int(bool(f.get("gift"))),
             f.get("notes", "")),
        )
    return redirect(f"/orders/{cur.lastrowid}", code=303)


@app.get("/orders/<int:order>")
def saved(order: int) -> str:
    return f"<!doctype html><html><body><h1>Saved order {order}</h1></body></html>"


if __name__ == "__main__":
    db().close()
    app.run(host="127.0.0.1", port=int(sys.argv[1]), debug=False, use_reloader=False)
