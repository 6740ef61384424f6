"""report.md and the plot of the UBR+ reproduction, with the checks the issue judges."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..plots import tight_layout  # noqa: E402
from .base import markdown_table  # noqa: E402

POLICY_ORDER = ["UBR", "EPD", "SD", "FBA"]
TOLERANCE = 0.15


def policy_frame(comparison: pd.DataFrame) -> pd.DataFrame:
    """The policy table in long form: config, sources, buffer, policy, metric, published, simulated."""
    d = comparison[~comparison["case"].str.startswith("zero-loss") & comparison["metric"].isin(["efficiency", "fairness"])].copy()
    parts = d["case"].str.extract(r"^(?P<config>\w+) N=(?P<sources>\d+) K=(?P<buffer>\d+) (?P<policy>\w+)$")
    out = pd.concat([parts, d[["metric", "published", "simulated"]]], axis=1).dropna(subset=["policy"])
    out["published"] = out["published"].astype(float)
    out["simulated"] = out["simulated"].astype(float)
    return out


def checks(comparison: pd.DataFrame, results) -> list[tuple[str, bool, str]]:
    """The criteria of the issue, measured."""
    out = []
    z = comparison[comparison["case"].str.startswith("zero-loss") & (comparison["metric"] == "max_queue_cells")]
    z = z.assign(published=z["published"].astype(float), simulated=z["simulated"].astype(float))
    rel = ((z["simulated"] - z["published"]).abs() / z["published"])
    drops = sum(r.summary["cells_dropped"] for k, r in results.items() if k.startswith("zero-loss/"))
    out.append(("zero-loss max queue within 15 % of the published value on all four rows",
                bool((rel <= 0.15).all()), "relative differences: " + ", ".join(f"{v:.1%}" for v in rel)))
    out.append(("no cell lost in the zero-loss runs", drops == 0, f"{drops} cells dropped"))
    p = policy_frame(comparison)
    eff = p[p["metric"] == "efficiency"].groupby("policy")["simulated"].mean().reindex(POLICY_ORDER)
    fair = p[p["metric"] == "fairness"].groupby("policy")["simulated"].mean().reindex(POLICY_ORDER)
    ok_rank = eff["UBR"] < eff["EPD"] < min(eff["SD"], eff["FBA"])
    out.append(("mean efficiency ranks UBR < EPD < SD, FBA", bool(ok_rank),
                ", ".join(f"{k} {v:.3f}" for k, v in eff.items())))
    ok_fair = min(fair["SD"], fair["FBA"]) > max(fair["UBR"], fair["EPD"])
    out.append(("SD and FBA fairer than UBR and EPD (means)", bool(ok_fair),
                ", ".join(f"{k} {v:.3f}" for k, v in fair.items())))
    within = int(((p["simulated"] - p["published"]).abs() <= TOLERANCE).sum())
    out.append((f"at least two thirds of the {len(p)} published numbers within {TOLERANCE}", within * 3 >= 2 * len(p),
                f"{within} of {len(p)} within {TOLERANCE}"))
    return out


def plot(comparison: pd.DataFrame, path: Path) -> None:
    p = policy_frame(comparison)
    z = comparison[comparison["case"].str.startswith("zero-loss") & (comparison["metric"] == "max_queue_cells")]
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    ax = axes[0]
    x = range(len(z))
    ax.bar([i - 0.2 for i in x], z["published"], width=0.4, label="published")
    ax.bar([i + 0.2 for i in x], z["simulated"], width=0.4, label="simulated")
    ax.set_xticks(list(x), [c.replace("zero-loss ", "") for c in z["case"]])
    ax.set_yscale("log")
    ax.set_ylabel("max queue (cells)")
    ax.set_title("Zero-loss buffer requirement")
    ax.legend()
    markers = {"UBR": "o", "EPD": "s", "SD": "^", "FBA": "D"}
    for ax, metric in zip(axes[1:], ["efficiency", "fairness"]):
        d = p[p["metric"] == metric]
        for pol in POLICY_ORDER:
            e = d[d["policy"] == pol]
            ax.scatter(e["published"], e["simulated"], marker=markers[pol], label=pol, alpha=0.8)
        ax.plot([0, 1.02], [0, 1.02], "k-", lw=0.8)
        ax.fill_between([0, 1.02], [-TOLERANCE, 1.02 - TOLERANCE], [TOLERANCE, 1.02 + TOLERANCE], color="grey", alpha=0.15,
                        label=f"within {TOLERANCE}")
        ax.set_xlim(0, 1.02)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(f"published {metric}")
        ax.set_ylabel(f"simulated {metric}")
        ax.set_title(f"Policy table: {metric}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    tight_layout(fig)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(exp, out: Path, comparison: pd.DataFrame, cases, results, quick: bool) -> str:
    plot(comparison, out / "ubr_plus.png")
    lines = [f"# {exp.title}", "", f"Source: {exp.source}.", ""]
    if quick:
        lines += ["**Quick run:** durations are a tenth of the paper's; numbers are indicative only.", ""]
    lines += ["## Checks", "", "| check | result | measured |", "|---|---|---|"]
    for name, ok, detail in checks(comparison, results):
        lines.append(f"| {name} | {'pass' if ok else 'FAIL'} | {detail} |")
    z = comparison[comparison["case"].str.startswith("zero-loss")]
    zt = z.pivot(index="case", columns="metric", values=["published", "simulated"])
    zt.columns = [f"{b} ({a})" for a, b in zt.columns]
    lines += ["", "## Zero-loss buffer table (unlimited buffers)", "", markdown_table(zt.reset_index(), "{:.2f}"), ""]
    p = policy_frame(comparison)
    for metric in ["efficiency", "fairness"]:
        d = p[p["metric"] == metric]
        t = d.pivot_table(index=["config", "sources", "buffer"], columns="policy", values=["published", "simulated"], sort=False)
        t = t.reindex(columns=[(a, pol) for pol in POLICY_ORDER for a in ("published", "simulated")])
        t.columns = [f"{pol} {'pub' if a == 'published' else 'sim'}" for a, pol in t.columns]
        lines += [f"## Policy table: {metric}", "", markdown_table(t.reset_index(), "{:.2f}"), ""]
    lines += ["![published vs simulated](ubr_plus.png)", ""]
    lines += ["Per-run figures (goodput, drops, wall time) are in runs.csv; every number above is in comparison.csv."]
    return "\n".join(lines)
