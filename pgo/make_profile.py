"""Makes the engine's profile anew (``make pgo-profile``): builds the extension instrumented,
runs the training runs (``pgo/train.py``), merges what they recorded with ``llvm-profdata``, and
writes ``pgo/atmsim.profdata.xz`` and ``pgo/LLVM_VERSION``. ``make setup`` then builds with it.

Needs the Rust toolchain's ``llvm-profdata`` (``rustup component add llvm-tools``). Run it after
a change to the engine: a function whose code changed since the profile was made is built
without profile data (correct, only not tuned), so the gain wears away as the code moves.
"""

from __future__ import annotations

import lzma
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from flags import PACKED, VERSION, llvm_version

ROOT = Path(__file__).resolve().parent.parent


def profdata_tool() -> Path:
    """``llvm-profdata`` of the toolchain that builds the engine."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
    host = next(line.split(": ", 1)[1] for line in subprocess.run(
        ["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines() if line.startswith("host: "))
    tool = Path(sysroot) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if not tool.exists():
        sys.exit(f"make pgo-profile: {tool} not found; install it with `rustup component add llvm-tools`")
    return tool


def build(rustflags: str, target_dir: str) -> None:
    """``maturin develop --release`` into the project's virtualenv with ``rustflags``."""
    venv = ROOT / ".venv"
    env = {**os.environ, "VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}:{os.environ['PATH']}",
           "RUSTFLAGS": rustflags}
    subprocess.run([str(venv / "bin" / "maturin"), "develop", "--release", "-q", "--target-dir", target_dir],
                   cwd=ROOT, env=env, check=True)


def main() -> None:
    tool = profdata_tool()
    with tempfile.TemporaryDirectory(prefix="atmsim-pgo-") as tmp:
        raw = Path(tmp) / "raw"
        build(f"-Cprofile-generate={raw}", "target/pgo-generate")
        subprocess.run([str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "pgo" / "train.py")], cwd=ROOT, check=True)
        merged = Path(tmp) / "atmsim.profdata"
        subprocess.run([str(tool), "merge", "-o", str(merged), *map(str, sorted(raw.glob("*.profraw")))], check=True)
        PACKED.write_bytes(lzma.compress(merged.read_bytes(), preset=9))
    VERSION.write_text(f"{llvm_version()}\n")
    shutil.rmtree(ROOT / "target" / "pgo-generate", ignore_errors=True)
    print(f"wrote {PACKED.relative_to(ROOT)} ({PACKED.stat().st_size / 1e6:.1f} MB) for LLVM {llvm_version()}; "
          "`make setup` builds with it")


if __name__ == "__main__":
    main()
