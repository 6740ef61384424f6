"""Every registered name reaches `atmsim list`, the sweep columns and the docs index."""

from pathlib import Path

from atmsim import _core, catalog, cli, sweeps

ROOT = Path(__file__).resolve().parents[1]


def test_list_shows_every_registered_name(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for title, _key, entries in _core.registry():
        assert title in out
        for name, doc in entries:
            assert f"  {name} " in out, name
            assert doc in out
    from atmsim.experiments import EXPERIMENTS

    for k in EXPERIMENTS:
        assert f"  {k} " in out
    for b in catalog.builders():
        assert f"  {b} " in out


def test_registry_has_every_extension_point():
    titles = [t for t, _k, _e in _core.registry()]
    for t in ("drop policies", "rate allocators", "TCP congestion control", "traffic sources", "service classes"):
        assert t in titles
    names = catalog.all_names()
    assert {"kvr", "modified_erica", "erica_plus", "erica", "efci", "none"} <= set(names["rate allocators"])
    assert {"video", "sessions"} <= set(names["traffic sources"])
    assert {"r1", "r2", "r3", "n_source"} <= set(names["topology builders"])


def test_sweep_columns_come_from_the_engine_summary():
    cols = sweeps.reserved_columns()
    assert "cells_dropped_by_faults" in cols
    assert set(_core.summary_fields()) <= cols


def test_docs_catalog_is_generated_from_the_registry():
    page = (ROOT / "docs" / "catalog.md").read_text()
    assert page == catalog.markdown(), "docs/catalog.md is stale: python -m atmsim.catalog > docs/catalog.md"


def test_the_type_stubs_name_every_function_of_the_engine_module():
    """`_core.pyi` is written by hand: it must name every function the extension exports (and
    nothing it does not), or editors and type checkers see a stale module."""
    import ast
    import inspect

    tree = ast.parse((ROOT / "python" / "atmsim" / "_core.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    exported = {n for n, v in vars(_core).items()
                if not n.startswith("_") and (inspect.isbuiltin(v) or inspect.isclass(v) or callable(v))}
    assert exported - stubbed == set(), "functions without a stub"
    assert stubbed - exported == set(), "stubs of functions the module does not have"


def test_every_reproduction_has_its_readme_and_no_readme_is_left_over():
    """The docs' Reproductions pages come from experiments/*/README.md (docs/hooks.py): they
    must be exactly the reproductions of the registry."""
    from atmsim.experiments import EXPERIMENTS

    readmes = sorted(p.parent.name for p in (ROOT / "experiments").glob("*/README.md"))
    assert readmes == sorted(EXPERIMENTS)
