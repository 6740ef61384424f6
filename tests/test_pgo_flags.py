"""The profile-guided build's flags (pgo/flags.py): used only when the compiler's LLVM is the
profile's, never when turned off; the profile unpacks to what was packed."""

from __future__ import annotations

import importlib.util
import lzma
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def flags(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("pgo_flags", ROOT / "pgo" / "flags.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    packed, version = tmp_path / "atmsim.profdata.xz", tmp_path / "LLVM_VERSION"
    packed.write_bytes(lzma.compress(b"profile bytes"))
    version.write_text("22.1.2\n")
    monkeypatch.setattr(mod, "PACKED", packed)
    monkeypatch.setattr(mod, "VERSION", version)
    monkeypatch.setattr(mod, "CACHE", tmp_path / "cache")
    monkeypatch.delenv("ATMSIM_PGO", raising=False)
    return mod


def test_the_profile_is_used_only_with_its_llvm(flags, monkeypatch, capsys):
    monkeypatch.setattr(flags, "llvm_version", lambda: "22.1.2")
    assert flags.why_not() is None
    flags.main()
    used = capsys.readouterr().out.strip()
    assert used.startswith("-Cprofile-use=") and Path(used.split("=", 1)[1]).read_bytes() == b"profile bytes"
    monkeypatch.setattr(flags, "llvm_version", lambda: "23.0.0")
    assert "LLVM 22.1.2, rustc has LLVM 23.0.0" in flags.why_not()
    flags.main()
    out = capsys.readouterr()
    assert out.out == "" and "plain release build" in out.err


def test_atmsim_pgo_0_turns_it_off(flags, monkeypatch):
    monkeypatch.setattr(flags, "llvm_version", lambda: "22.1.2")
    monkeypatch.setenv("ATMSIM_PGO", "0")
    assert flags.why_not() == "ATMSIM_PGO=0"


def test_the_shipped_profile_names_its_llvm():
    assert (ROOT / "pgo" / "atmsim.profdata.xz").stat().st_size > 0
    assert (ROOT / "pgo" / "LLVM_VERSION").read_text().strip().count(".") == 2
