"""MkDocs hooks for the atmsim site (mkdocs.yml ``hooks:``).

* Every reproduction's README (``experiments/<id>/README.md``, outside ``docs/``) becomes
  the page ``reproductions/<id>.md``, and links to those READMEs from the docs pages point
  to these pages.
* ``fidelity.md`` joins the navigation once it exists.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
_README_LINK = re.compile(r"\]\(((?:\.\./)+experiments/([\w-]+)/README\.md)(#[^)]*)?\)")


def _reproductions() -> list[Path]:
    return sorted(p for p in EXPERIMENTS.glob("*/README.md"))


def on_config(config, **kwargs):
    nav = config["nav"]
    pages = [{p.parent.name: f"reproductions/{p.parent.name}.md"} for p in _reproductions()]
    for item in nav:
        if isinstance(item, dict) and "Reproductions" in item:
            item["Reproductions"] = pages
    if (Path(config["docs_dir"]) / "fidelity.md").is_file():
        nav.insert(len(nav) - 1, {"Fidelity ledger": "fidelity.md"})
    return config


def on_files(files, config, **kwargs):
    for p in _reproductions():
        files.append(File.generated(config, f"reproductions/{p.parent.name}.md",
                                    content=p.read_text(encoding="utf-8")))
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    """Links from docs pages to experiments/<id>/README.md go to reproductions/<id>.md."""
    here = posixpath.dirname(page.file.src_uri)

    def relink(m):
        target = posixpath.relpath(f"reproductions/{m.group(2)}.md", here or ".")
        return f"]({target}{m.group(3) or ''})"

    return _README_LINK.sub(relink, markdown)
