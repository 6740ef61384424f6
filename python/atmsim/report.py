"""Self-contained HTML reports of a sweep or a reproduction (``atmsim report DIR``).

The page has everything inline: CSS in a ``<style>`` element and every plot as a PNG
``data:`` URI, so it opens from disk, by mail or from an archive, with no network and no
other file. For a sweep store (``atmsim sweep``): the parameters, plots of the main metrics
against a parameter (one line per value of another, mean and spread over seeds), the table
of results averaged over seeds, the failed points with their errors and every point. For a
reproduction (``atmsim reproduce``): published against simulated numbers with verdicts
highlighted, a published-vs-simulated plot, the reproduction's report.md with its figures,
and the runs.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import os
import re
from pathlib import Path
from typing import Any, Iterable, Optional, Union

import pandas as pd

from .catalog import REPORT_METRICS
from .plots import tight_layout

#: Metrics plotted by default in a sweep report, when the sweep has them.
DEFAULT_METRICS = REPORT_METRICS
#: Columns of the per-point table besides the parameters.
POINT_COLUMNS = ["efficiency", "fairness", "max_switch_queue_cells", "cells_dropped", "cell_loss_ratio", "wall_seconds"]
MAX_TABLE_ROWS = 1000


class ReportError(ValueError):
    """A directory that holds neither a sweep store nor a reproduction."""


CSS = """
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dee7; --bg: #ffffff; --head: #f3f5f9;
        --pass: #e3f4e6; --pass-fg: #1e6b2d; --fail: #fde4e1; --fail-fg: #a3261b; --info: #eef0f4; }
* { box-sizing: border-box; }
body { font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg);
       background: var(--bg); margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 32px 60px; }
h1 { font-size: 26px; margin: 0 0 4px; } h2 { font-size: 20px; margin: 34px 0 10px; border-bottom: 1px solid var(--line);
     padding-bottom: 4px; } h3 { font-size: 16px; margin: 22px 0 8px; }
p.lead { color: var(--muted); margin: 0 0 14px; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 16px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; min-width: 120px; }
.card b { display: block; font-size: 22px; } .card span { color: var(--muted); font-size: 13px; }
.card.bad b { color: var(--fail-fg); } .card.good b { color: var(--pass-fg); }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--head); font-weight: 600; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.pass { background: var(--pass); color: var(--pass-fg); font-weight: 600; }
td.fail { background: var(--fail); color: var(--fail-fg); font-weight: 600; }
td.info { background: var(--info); color: var(--muted); }
tr.error td { background: #fff6f5; }
.scroll { max-height: 560px; overflow: auto; border: 1px solid var(--line); margin: 8px 0 16px; }
.scroll table { margin: 0; } .scroll th, .scroll td { border-top: 0; }
figure { margin: 12px 0 20px; } figure img { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
figcaption { color: var(--muted); font-size: 13px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 8px 18px; }
code { background: #f1f3f7; padding: 0 3px; border-radius: 3px; font-size: 13px; }
pre { background: #f6f8fa; padding: 10px; overflow: auto; font-size: 13px; }
details { margin: 8px 0 16px; } summary { cursor: pointer; font-weight: 600; }
footer { color: var(--muted); font-size: 12px; margin-top: 40px; border-top: 1px solid var(--line); padding-top: 8px; }
"""


# --------------------------------------------------------------------------- HTML pieces


def esc(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _fmt_cell(v: Any) -> tuple[str, bool]:
    """(text, is_number)."""
    if v is None or (isinstance(v, float) and v != v):
        return "", False
    if isinstance(v, bool):
        return ("yes" if v else "no"), False
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        try:
            v = v.item()
        except (ValueError, AttributeError):
            pass
    if isinstance(v, int):
        return str(v), True
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v)), True
        if abs(v) >= 1e4:
            return f"{v:.0f}", True
        if abs(v) >= 100:
            return f"{v:.1f}", True
        if abs(v) >= 1:
            return f"{v:.3f}", True
        return f"{v:.4g}", True
    return str(v), False


def table(df: pd.DataFrame, verdict: Optional[str] = None, row_class: Optional[Any] = None,
          max_rows: int = MAX_TABLE_ROWS, scroll: bool = False) -> str:
    """A DataFrame as an HTML table; ``verdict`` names a column whose pass/FAIL/info cells
    are coloured; ``row_class(row)`` gives a CSS class per row."""
    cols = list(df.columns)
    out = ["<table>", "<thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in cols) + "</tr></thead>", "<tbody>"]
    for _, row in df.head(max_rows).iterrows():
        cls = row_class(row) if row_class else None
        cells = []
        for c in cols:
            text, num = _fmt_cell(row[c])
            klass = []
            if num:
                klass.append("num")
            if verdict and c == verdict and text:
                klass.append({"pass": "pass", "fail": "fail"}.get(text.lower(), "info"))
            cells.append(f"<td{' class=' + chr(34) + ' '.join(klass) + chr(34) if klass else ''}>{esc(text)}</td>")
        out.append(f"<tr{' class=' + chr(34) + cls + chr(34) if cls else ''}>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    s = "\n".join(out)
    if len(df) > max_rows:
        s += f"<p class='lead'>First {max_rows} of {len(df)} rows; all of them are in the CSV/Parquet files.</p>"
    return f"<div class='scroll'>{s}</div>" if scroll else s


def img_data(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def figure(png: bytes, caption: str = "", alt: str = "") -> str:
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f"<figure><img alt='{esc(alt or caption)}' src='{img_data(png)}'>{cap}</figure>"


def cards(items: Iterable[tuple[str, Any, str]]) -> str:
    return "<div class='cards'>" + "".join(
        f"<div class='card {esc(cls)}'><b>{esc(v)}</b><span>{esc(k)}</span></div>" for k, v, cls in items) + "</div>"


PAGE = """<!DOCTYPE html>
<html lang='en'>
<head>
<meta charset='utf-8'>
<meta name='viewport' content='width=device-width, initial-scale=1'>
<title>{{ title }}</title>
<style>{{ css }}</style>
</head>
<body>
<main>
{{ body }}
<footer>Written by atmsim {{ version }} on {{ now }}. Self-contained: no file or network access is needed to view it.</footer>
</main>
</body>
</html>
"""


def page(title: str, body: str) -> str:
    """The whole page (a Jinja2 template, autoescaped): ``body`` is HTML made by this
    module, everything else is text."""
    import jinja2
    from markupsafe import Markup

    from . import __version__

    now = _dt.datetime.now().astimezone().replace(microsecond=0).isoformat()
    env = jinja2.Environment(autoescape=True, keep_trailing_newline=True)
    return env.from_string(PAGE).render(title=title, css=Markup(CSS), body=Markup(body),
                                        version=__version__, now=now)


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


# --------------------------------------------------------------------------- Markdown (report.md)

_NUMBER = re.compile(r"[-+]?[\d.,]+%?")


def _markdown_renderer():
    """markdown-it-py (CommonMark + pipe tables, raw HTML off) with the report's rules:
    headings one level down (the page title is the only h1), pass/FAIL and number cells
    classed, long tables scrolling, links shown with their target and never fetched, and
    images embedded from ``env["images"]``."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    rules = md.renderer.rules

    def heading_open(tokens, idx, options, env):
        return f"<h{min(int(tokens[idx].tag[1]) + 1, 6)}>"

    def heading_close(tokens, idx, options, env):
        return f"</h{min(int(tokens[idx].tag[1]) + 1, 6)}>\n"

    def td_open(tokens, idx, options, env):
        text = tokens[idx + 1].content.strip() if idx + 1 < len(tokens) else ""
        cls = {"pass": "pass", "fail": "fail"}.get(text.lower()) or ("num" if _NUMBER.fullmatch(text) else "")
        return f'<td class="{cls}">' if cls else "<td>"

    def table_open(tokens, idx, options, env):
        rows = 0
        for t in tokens[idx:]:
            if t.type == "table_close":
                break
            rows += t.type == "tr_open"
        env["scroll"] = rows > 26  # header row + 25
        return "<div class='scroll'><table>\n" if env["scroll"] else "<table>\n"

    def table_close(tokens, idx, options, env):
        return "</table></div>\n" if env.get("scroll") else "</table>\n"

    def link_open(tokens, idx, options, env):
        href = tokens[idx].attrGet("href") or ""
        env.setdefault("links", []).append(href)
        return f"<a href='{esc(href)}'>" if href.startswith("#") else ""

    def link_close(tokens, idx, options, env):
        href = env["links"].pop()
        return "</a>" if href.startswith("#") else f" (<code>{esc(href)}</code>)"

    def image(tokens, idx, options, env):
        tok = tokens[idx]
        alt = esc(tok.content)
        data = env.get("images", {}).get(tok.attrGet("src") or "")
        return f"<img alt='{alt}' src='{img_data(data)}'>" if data else f"[{alt}]"

    rules["heading_open"], rules["heading_close"] = heading_open, heading_close
    rules["td_open"], rules["table_open"], rules["table_close"] = td_open, table_open, table_close
    rules["link_open"], rules["link_close"], rules["image"] = link_open, link_close, image
    rules["strong_open"] = lambda *a: "<b>"
    rules["strong_close"] = lambda *a: "</b>"
    rules["em_open"] = lambda *a: "<i>"
    rules["em_close"] = lambda *a: "</i>"
    return md


def markdown(text: str, images: dict[str, bytes]) -> str:
    """The reproductions' report.md as HTML (markdown-it-py): headings, paragraphs, pipe
    tables (pass/FAIL cells coloured), lists, code, emphasis, links (shown with their
    target, never fetched) and images (embedded from ``images``, keyed by their path)."""
    return _markdown_renderer().render(text, {"images": images})


# --------------------------------------------------------------------------- sweeps


def _sweep_body(res, metrics: Optional[list[str]], x: Optional[str], by: Optional[str]) -> str:
    from .plots import choose_axes, plot_sweep

    df = res.df
    n_grid = len(res.manifest["points"])
    ok = int((df["status"] == "ok").sum()) if len(df) else 0
    failed = int((df["status"] != "ok").sum()) if len(df) else 0
    missing = n_grid - ok - failed
    parts = [f"<h1>Sweep {esc(res.name)}</h1>"]
    if res.description:
        parts.append(f"<p class='lead'>{esc(res.description)}</p>")
    mf = res.manifest
    wall = float(df["wall_seconds"].sum()) if "wall_seconds" in df and len(df) else 0.0
    parts.append(f"<p class='lead'>Base: <code>{esc(mf.get('base', ''))}</code>; atmsim {esc(mf.get('atmsim_version', ''))}; "
                 f"store <code>{esc(res.root)}</code>; last run {esc(mf.get('updated', ''))}.</p>")
    cs = [("points", n_grid, ""), ("ok", ok, "good"), ("failed", failed, "bad" if failed else ""),
          ("combinations", mf.get("combinations", ""), ""), ("seeds per point", len(res.seeds), ""),
          ("simulation time (CPU s)", f"{wall:.1f}" if wall >= 10 else f"{wall:.2f}", "")]
    if missing:
        cs.insert(3, ("not run yet", missing, "bad"))
    if res.stale:
        cs.append(("stale points (ignored)", len(res.stale), ""))
    parts.append(cards(cs))

    # parameters
    prm = pd.DataFrame([{"parameter": p["name"], "path": p["path"], "values": len(p["labels"]),
                         "labels": ", ".join(str(v) + (f" {p['unit']}" if p.get("unit") else "") for v in p["labels"][:12])
                         + (", ..." if len(p["labels"]) > 12 else ""),
                         "zipped group": "" if p.get("group") is None else p["group"]} for p in mf["parameters"]])
    parts.append("<h2>Parameters</h2>")
    parts.append(table(prm) if len(prm) else "<p>No parameter varies: only seeds.</p>")
    seeds = res.seeds
    parts.append(f"<p>Seeds per combination: {esc(', '.join(map(str, seeds[:20])))}{' ...' if len(seeds) > 20 else ''}.</p>")

    # plots
    present = [m for m in (metrics or DEFAULT_METRICS) if m in res.metrics]
    for m in metrics or []:
        if ok or m in df.columns:  # with no point ok, the metric columns are not known
            try:
                res.check_metric(m, "--metric ")
            except ValueError as e:
                raise ReportError(str(e).replace("; metrics: ", f" of sweep {res.name!r}; allowed: ")) from None
    if ok and present:
        try:
            xa, ba, others = choose_axes(res, x, by)
        except ValueError as e:
            raise ReportError(str(e).replace("x = ", "--x ").replace("by = ", "--by ")) from None
        parts.append("<h2>Plots</h2>")
        note = f"x: {xa}" + (f"; one line per {ba}" if ba else "") + (f"; averaged over {', '.join(others)}" if others else "")
        parts.append(f"<p class='lead'>{esc(note)}. Lines are means over seeds, bands one standard deviation. "
                     f"Choose other axes with <code>atmsim report DIR --x PARAM --by PARAM</code>.</p>")
        figs = []
        for m in present:
            buf = io.BytesIO()
            plot_sweep(res, m, x=xa, by=ba, path=buf)
            figs.append(figure(buf.getvalue(), caption=f"{m} against {xa}" + (f", per {ba}" if ba else ""), alt=m))
        parts.append("<div class='grid'>" + "".join(figs) + "</div>")
    elif not ok:
        parts.append("<h2>Plots</h2><p>No point finished without error, so there is nothing to plot.</p>")

    # failed points
    if failed:
        parts.append(f"<h2>Failed points ({failed})</h2>")
        parts.append("<p>Each failed point is recorded with its error; every other point's result is kept. "
                     "Run again with <code>atmsim sweep FILE --rerun-failed</code> after fixing the cause.</p>")
        parts.append(table(res.failed, scroll=len(res.failed) > 20))

    # summary over seeds
    if ok:
        keep = [m for m in (metrics or DEFAULT_METRICS) if m in res.metrics]
        agg = res.aggregate(keep)
        cols = [c for c in agg.columns if not c.endswith("_std")]
        parts.append("<h2>Results, averaged over seeds</h2>")
        parts.append("<p class='lead'>Means over the seeds of each parameter combination "
                     "(standard deviations are in <code>SweepResults.aggregate()</code>).</p>")
        parts.append(table(agg[cols], scroll=len(agg) > 25))

    # every point
    if len(df):
        pcols = ["point_id", "seed", *res.parameters, "status", *[c for c in POINT_COLUMNS if c in df.columns], "error"]
        parts.append(f"<h2>Every point ({len(df)})</h2>")
        parts.append("<details><summary>Show the table</summary>"
                     + table(df[pcols], row_class=lambda r: "error" if r["status"] != "ok" else None, scroll=True)
                     + "</details>")
        parts.append("<p>Files: <code>summary.parquet</code>, <code>summary.csv</code>, and per point "
                     "<code>points/&lt;point_id&gt;/</code> (point.json, scenario.toml, series as Parquet).</p>")
    return "\n".join(parts)


def sweep_report(path: Union[str, os.PathLike], out: Union[str, os.PathLike, None] = None,
                 metrics: Optional[list[str]] = None, x: Optional[str] = None, by: Optional[str] = None) -> Path:
    """Writes the HTML report of a sweep store (default ``DIR/report.html``)."""
    from .store import load_sweep

    res = load_sweep(path)
    out = Path(out) if out else res.root / "report.html"
    body = _sweep_body(res, metrics, x, by)
    _write(out, page(f"Sweep {res.name}", body))
    return out


# --------------------------------------------------------------------------- reproductions


def _published_plot(comp: pd.DataFrame) -> Optional[bytes]:
    import matplotlib.pyplot as plt
    import numpy as np

    d = comp.copy()
    d["published"] = pd.to_numeric(d["published"], errors="coerce")
    d["simulated"] = pd.to_numeric(d["simulated"], errors="coerce")
    d = d[np.isfinite(d["published"]) & np.isfinite(d["simulated"]) & d["metric"].notna()]
    if not len(d):
        return None
    metrics = list(dict.fromkeys(d["metric"]))
    ncols = min(3, len(metrics))
    nrows = (len(metrics) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 4.1 * nrows), squeeze=False)
    for ax, m in zip(axes.flat, metrics):
        s = d[d["metric"] == m]
        if "verdict" in s:
            for v, color in (("pass", "#2e8b3e"), ("FAIL", "#c0392b")):
                t = s[s["verdict"].astype(str).str.lower() == v.lower()]
                ax.scatter(t["published"], t["simulated"], s=18, color=color, label=v, alpha=0.8)
            t = s[~s["verdict"].astype(str).str.lower().isin(["pass", "fail"])]
            if len(t):
                ax.scatter(t["published"], t["simulated"], s=18, color="#7f8c9a", label="not judged", alpha=0.8)
            ax.legend(fontsize=7, loc="best")
        else:
            ax.scatter(s["published"], s["simulated"], s=18, alpha=0.8)
        lo = float(np.nanmin([s["published"].min(), s["simulated"].min()]))
        hi = float(np.nanmax([s["published"].max(), s["simulated"].max()]))
        pad = (hi - lo) * 0.05 or abs(hi) * 0.05 or 1.0
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="#555", lw=0.8, ls="--")
        ax.set_title(m, fontsize=10)
        ax.set_xlabel("published")
        ax.set_ylabel("simulated")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    fig.suptitle("published vs simulated (dashed: equal)", fontsize=11)
    tight_layout(fig)
    return _png(fig)


def _damaged(path: Path, why: str) -> ReportError:
    return ReportError(f"{str(path)!r} is damaged: {why}; run the reproduction again (atmsim reproduce ... --out DIR)")


def _read_table(path: Path) -> pd.DataFrame:
    """A reproduction's CSV file (comparison.csv, runs.csv); damage is one ReportError naming it."""
    try:
        return pd.read_csv(path, encoding="utf-8")
    except UnicodeDecodeError:
        raise _damaged(path, "it is not UTF-8 text") from None
    except pd.errors.EmptyDataError:
        raise _damaged(path, "it is empty (no header row)") from None
    except pd.errors.ParserError as e:
        raise _damaged(path, f"it is not a CSV table ({str(e).strip().splitlines()[-1][:120]})") from None


def _read_markdown(path: Path) -> str:
    """A reproduction's report.md ("" when there is none); damage is one ReportError naming it."""
    if not path.is_file():
        return ""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise _damaged(path, "it is not UTF-8 text") from None


#: Columns of comparison.csv the report needs, and those it adds (so the file must not have them).
COMPARISON_COLUMNS = ("metric", "published", "simulated")
DERIVED_COLUMNS = ("difference", "relative")


def _read_comparison(path: Path) -> pd.DataFrame:
    comp = _read_table(path)
    missing = [c for c in COMPARISON_COLUMNS if c not in comp.columns]
    if missing:
        raise _damaged(path, f"it has no column {missing[0]!r} (it needs {', '.join(COMPARISON_COLUMNS)})")
    derived = [c for c in DERIVED_COLUMNS if c in comp.columns]
    if derived:
        raise _damaged(path, f"it has a column {derived[0]!r}, which the report computes from published and simulated")
    return comp


def _reproduction_body(root: Path) -> tuple[str, str]:
    comp = _read_comparison(root / "comparison.csv")
    md = _read_markdown(root / "report.md")
    m = re.search(r"^#\s+(.+)$", md, re.M)
    title = m.group(1).strip() if m else f"Reproduction {root.name}"
    exps = list(dict.fromkeys(comp["experiment"].astype(str))) if "experiment" in comp else []
    what = (f"Reproduction <code>{esc(exps[0])}</code>" if len(exps) == 1 else
            f"Reproduction of {len(exps)} experiments" if exps else "Reproduction")
    parts = [f"<h1>{esc(title)}</h1>", f"<p class='lead'>{what}, from <code>{esc(root)}</code>.</p>"]
    if md:  # the title is the page's; drop it from the Markdown
        md = re.sub(r"^#\s+.+\n?", "", md, count=1, flags=re.M)

    c = comp.copy()
    has_num = {"published", "simulated"} <= set(c.columns)
    n_numbers = 0
    if has_num:
        pub = pd.to_numeric(c["published"], errors="coerce")
        sim = pd.to_numeric(c["simulated"], errors="coerce")
        diff = sim - pub
        n_numbers = int(pub.notna().sum())
        if diff.notna().any():  # claims written as text ("0.95 +/- 0.01") have no difference
            c.insert(c.columns.get_loc("simulated") + 1, "difference", diff)
            rel = diff / pub.abs()
            c.insert(c.columns.get_loc("difference") + 1, "relative", rel.where(pub.abs() > 0).map(
                lambda v: "" if v != v else ("0.0 %" if abs(v) < 0.0005 else f"{v * 100:+.1f} %")))
    cs = [("published numbers", n_numbers, "")] if n_numbers else [("published claims", len(comp), "")]
    if "verdict" in c:
        v = c["verdict"].astype(str)
        judged = v[v.str.lower() != "info"]
        npass = int((judged.str.lower() == "pass").sum())
        cs += [("checks pass", f"{npass} of {len(judged)}", "good" if npass == len(judged) else ""),
               ("checks fail", len(judged) - npass, "bad" if len(judged) - npass else "")]
    parts.append(cards(cs))

    png = _published_plot(comp) if has_num else None
    if png:
        parts.append("<h2>Published vs simulated</h2>")
        parts.append(figure(png, "Each point is one published number; on the dashed line simulation and paper agree."
                            + (" Green: check passes; red: fails." if "verdict" in comp else ""), alt="published vs simulated"))
    if "verdict" in c:
        fails = c[c["verdict"].astype(str).str.lower() == "fail"]
        if len(fails):
            parts.append(f"<h2>Failing checks ({len(fails)})</h2>")
            parts.append(table(fails, verdict="verdict", scroll=len(fails) > 30))
    parts.append("<h2>Comparison table</h2>")
    if "verdict" in c:
        parts.append("<p class='lead'>Verdicts: <b>pass</b> and <b>FAIL</b> are judged against the reproduction's "
                     "criterion; <i>info</i> rows are shown, not judged.</p>")
    parts.append(table(c, verdict="verdict" if "verdict" in c else None,
                       row_class=lambda r: "error" if str(r.get("verdict", "")).lower() == "fail" else None,
                       scroll=len(c) > 30))

    # figures: those report.md shows go in place, the others in a gallery
    # This directory and its direct subfolders (figures/), not nested outputs of other runs.
    subdirs = [d for d in root.iterdir() if d.is_dir() and not d.name.startswith(".")
               and not (d / "comparison.csv").exists() and not (d / "manifest.json").exists()]
    pngs = sorted([*root.glob("*.png"), *(p for d in subdirs for p in d.glob("*.png"))])
    images = {str(p.relative_to(root)).replace(os.sep, "/"): p.read_bytes() for p in pngs}
    if md:
        parts.append("<h2>Report</h2>")
        parts.append(markdown(md, images))
    shown = set(re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", md))
    rest = [k for k in images if k not in shown]
    if rest:
        parts.append(f"<h2>Figures ({len(rest)})</h2>")
        parts.append("<div class='grid'>" + "".join(figure(images[k], k, alt=k) for k in rest) + "</div>")
    if (root / "runs.csv").is_file():
        runs = _read_table(root / "runs.csv")
        parts.append(f"<h2>Runs ({len(runs)})</h2>")
        parts.append("<details><summary>Show every simulation</summary>" + table(runs, scroll=True) + "</details>")
    return title, "\n".join(parts)


def reproduction_report(path: Union[str, os.PathLike], out: Union[str, os.PathLike, None] = None) -> Path:
    """Writes the HTML report of a reproduction's output directory (default ``DIR/report.html``)."""
    root = Path(path)
    title, body = _reproduction_body(root)
    out = Path(out) if out else root / "report.html"
    _write(out, page(title, body))
    return out


# --------------------------------------------------------------------------- entry point


def kind_of(path: Union[str, os.PathLike]) -> str:
    """``"sweep"`` or ``"reproduction"``; raises ReportError for anything else."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such directory: {str(p)!r}")
    if not p.is_dir():
        raise ReportError(f"{str(p)!r} is a file; give the directory of a sweep (atmsim sweep --out) or of a "
                          f"reproduction (atmsim reproduce --out)")
    if (p / "manifest.json").is_file():
        return "sweep"
    if (p / "comparison.csv").is_file():
        return "reproduction"
    raise ReportError(f"{str(p)!r} holds neither a sweep store (manifest.json) nor a reproduction (comparison.csv); "
                      f"give the --out directory of 'atmsim sweep' or 'atmsim reproduce'")


def write_report(path: Union[str, os.PathLike], out: Union[str, os.PathLike, None] = None,
                 metrics: Optional[list[str]] = None, x: Optional[str] = None, by: Optional[str] = None) -> Path:
    """Writes ``report.html`` for a sweep store or a reproduction directory; returns its path.

    ``metrics``, ``x`` and ``by`` choose the sweep plots (see :func:`atmsim.plots.plot_sweep`).
    ``out``, the page's file, must end in ``.html`` (or ``.htm``); an existing directory or a
    place under a file is refused before the page is made (:class:`ReportError`)."""
    if out is not None:
        check_report_out(out)
    if kind_of(path) == "sweep":
        return sweep_report(path, out, metrics=metrics, x=x, by=by)
    if metrics or x or by:
        raise ReportError("--metric, --x and --by are for sweep reports; this directory holds a reproduction")
    return reproduction_report(path, out)


def check_report_out(out: Union[str, os.PathLike], label: str = "out") -> None:
    """Refuses a report's ``out`` (``label``: how the caller names it, e.g. ``--out``) that
    is not an HTML file name: an existing directory, another extension (the page is HTML,
    whatever its name), or a path under a file."""
    p = Path(out)
    if p.is_dir():
        raise ReportError(f"{label} {str(out)!r} is a directory; give a file name ending in .html, "
                          f"e.g. {str(p / 'report.html')!r}")
    if p.suffix.lower() not in (".html", ".htm"):
        raise ReportError(f"{label} {str(out)!r}: the report is an HTML page; give a file name ending in .html"
                          + (f" (not {p.suffix!r})" if p.suffix else ""))
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ReportError(f"{label} {str(out)!r}: {str(parent)!r} is not a directory")


def _write(out: Path, text: str) -> None:
    """Writes ``out`` through a temporary file beside it, which a failure removes; errors
    name ``out``, never the temporary file."""
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, out)
        except BaseException:
            try:
                tmp.unlink()
            except OSError:
                pass
            raise
    except OSError as e:
        raise OSError(e.errno, f"cannot write the report: {e.strerror or e}", str(out)) from None
