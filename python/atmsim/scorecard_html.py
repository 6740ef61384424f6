"""The scorecard as an HTML page (a Jinja2 template inside :func:`atmsim.report.page`, cells
coloured by how close each allocator comes to the oracle) and as a Markdown table (the one in
``docs/scorecard.md``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pragma: no cover
    from .scorecard import Scorecard

#: Grades: (good, fair) bounds on a column's distance from the ideal; beyond fair is poor.
#: The distance: |1 - x| for efficiency, |x| for errors, 1 - x for Jain's index, x otherwise.
GRADES: dict[str, tuple[Callable[[float], float], float, float]] = {
    "efficiency": (lambda x: abs(1.0 - x), 0.05, 0.15),
    "error_max_min": (abs, 0.02, 0.10),
    "error_gw": (abs, 0.02, 0.10),
    "jain_max_min": (lambda x: 1.0 - x, 0.01, 0.05),
    "jain_gw": (lambda x: 1.0 - x, 0.01, 0.05),
    "max_queue_cells": (lambda x: x, 2000.0, 10000.0),
    "steady_queue_cells": (lambda x: x, 100.0, 1000.0),
    "convergence_ms": (lambda x: x, 50.0, 200.0),
    "oscillation": (lambda x: x, 0.02, 0.10),
}

#: Column headings of the tables.
HEADINGS = {
    "efficiency": "efficiency", "error_max_min": "error vs max-min", "error_gw": "error vs GW",
    "jain_max_min": "Jain (max-min)", "jain_gw": "Jain (GW)", "max_queue_cells": "max queue",
    "steady_queue_cells": "steady queue", "convergence_ms": "convergence", "oscillation": "oscillation",
}


def grade(col: str, v: Any) -> str:
    """``good``, ``fair``, ``poor`` or ``na`` for a cell."""
    if not isinstance(v, (int, float)) or math.isnan(v):
        return "na"
    dist, good, fair = GRADES[col]
    d = dist(float(v))
    return "good" if d <= good else "fair" if d <= fair else "poor"


def fmt(col: str, v: Any) -> str:
    """A cell as text."""
    if not isinstance(v, (int, float)) or math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "never"
    if col.startswith("error"):
        return f"{100 * v:+.1f} %"
    if col == "oscillation":
        return f"{100 * v:.1f} %"
    if col in ("efficiency",) or col.startswith("jain"):
        return f"{v:.3f}"
    if col == "convergence_ms":
        return f"{v:.1f} ms"
    return f"{v:.0f}"


TEMPLATE = """
<h1>Allocator scorecard{% if quick %} (quick){% endif %}</h1>
<p>{{ n_runs }} runs ({{ allocators|length }} allocators x {{ configs|length }} configurations) in
{{ "%.1f"|format(wall_s) }} s on {{ workers }} workers. Each cell is the worst over the run's phases and
connections, against the exact fair shares (max-min and GW) of the oracle per phase. Colours:
<span class='good'>good</span>, <span class='fair'>fair</span>, <span class='poor'>poor</span>
(bounds in docs/scorecard.md).</p>
<table class='scorecard'>
<thead><tr><th>configuration</th><th>allocator</th>{% for c in columns %}<th>{{ headings[c] }}</th>{% endfor %}</tr></thead>
<tbody>
{% for cfg in configs %}{% for r in rows[cfg.key] %}
<tr>{% if loop.first %}<td rowspan='{{ loop.length }}' title='{{ cfg.source }}'><b>{{ cfg.key }}</b><br><small>{{ cfg.case }}<br>{{ cfg.source }}</small></td>{% endif %}
<td>{{ r.allocator }}</td>
{% if r.status == "ok" %}{% for c in columns %}<td class='{{ r.grades[c] }}'>{{ r.text[c] }}</td>{% endfor %}
{% else %}<td class='na' colspan='{{ columns|length }}'>n/a: {{ r.reason }}</td>{% endif %}</tr>
{% endfor %}{% endfor %}
</tbody></table>
<h2>Columns</h2>
<dl>{% for c in columns %}<dt>{{ headings[c] }}</dt><dd>{{ docs[c] }}</dd>{% endfor %}</dl>
"""

CSS = """<style>
table.scorecard td.good, span.good { background: #d4f4d4; }
table.scorecard td.fair, span.fair { background: #fdf1c7; }
table.scorecard td.poor, span.poor { background: #f8d0d0; }
table.scorecard td.na { background: #eeeeee; color: #555; }
table.scorecard td, table.scorecard th { padding: 2px 6px; text-align: right; }
table.scorecard td:first-child, table.scorecard td:nth-child(2) { text-align: left; }
</style>"""


def _rows(card: "Scorecard") -> dict[str, list[dict[str, Any]]]:
    from .scorecard import COLUMNS

    out: dict[str, list[dict[str, Any]]] = {}
    for r in card.rows.to_dict("records"):
        r["grades"] = {c: grade(c, r[c]) for c in COLUMNS}
        r["text"] = {c: fmt(c, r[c]) for c in COLUMNS}
        out.setdefault(r["config"], []).append(r)
    return out


def html_page(card: "Scorecard") -> str:
    """The self-contained HTML page."""
    import jinja2
    from markupsafe import Markup

    from .report import page
    from .scorecard import COLUMNS

    env = jinja2.Environment(autoescape=True)
    body = env.from_string(TEMPLATE).render(
        quick=card.quick, n_runs=len(card.rows), allocators=card.allocators, configs=card.configs,
        wall_s=card.wall_s, workers=card.workers, columns=list(COLUMNS), headings=HEADINGS, docs=COLUMNS,
        rows=_rows(card))
    return page("atmsim allocator scorecard", str(Markup(CSS)) + body)


def markdown_table(card: "Scorecard") -> str:
    """The scorecard as one Markdown table (n/a rows with their reason)."""
    from .scorecard import COLUMNS

    cols = list(COLUMNS)
    lines = ["| configuration | allocator | " + " | ".join(HEADINGS[c] for c in cols) + " |",
             "|---|---|" + "---:|" * len(cols)]
    for r in card.rows.to_dict("records"):
        if r["status"] == "ok":
            cells = [fmt(c, r[c]) for c in cols]
        else:
            reason = str(r["reason"]).replace("|", "/")
            cells = [f"n/a: {reason}"] + [""] * (len(cols) - 1)
        lines.append(f"| {r['config']} | {r['allocator']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
