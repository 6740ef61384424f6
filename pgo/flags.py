"""Prints the Rust flags of the profile-guided build of the extension, or nothing.

``make setup`` builds the engine with the profile in ``pgo/atmsim.profdata.xz``
(``-Cprofile-use``; docs/performance.md, "Profile-guided build") when the compiler's LLVM is the
one the profile was made with (``pgo/LLVM_VERSION``). Otherwise it prints nothing, says why on
standard error, and the build is the plain release build: the same results, only slower.
``ATMSIM_PGO=0`` turns the profile off.

The profile is unpacked once into ``.cache/pgo/`` (a file named by its content's hash).
Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKED = HERE / "atmsim.profdata.xz"
VERSION = HERE / "LLVM_VERSION"
CACHE = HERE.parent / ".cache" / "pgo"


def llvm_version() -> str | None:
    """The LLVM version of the ``rustc`` on the PATH (``rustc -vV``), or None."""
    try:
        out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    for line in out.splitlines():
        if line.startswith("LLVM version:"):
            return line.split(":", 1)[1].strip()
    return None


def why_not() -> str | None:
    """Why the profile cannot be used here, or None if it can."""
    if os.environ.get("ATMSIM_PGO", "1") == "0":
        return "ATMSIM_PGO=0"
    if not PACKED.exists() or not VERSION.exists():
        return f"no profile in {HERE}"
    want, have = VERSION.read_text().strip(), llvm_version()
    if have != want:
        return f"the profile is for LLVM {want}, rustc has LLVM {have or '(rustc not found)'}"
    return None


def unpacked() -> Path:
    """The profile, unpacked into the cache (once per content)."""
    data = PACKED.read_bytes()
    path = CACHE / f"atmsim-{hashlib.sha256(data).hexdigest()[:16]}.profdata"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(lzma.decompress(data))
        tmp.replace(path)
    return path


def main() -> None:
    reason = why_not()
    if reason:
        print(f"atmsim: plain release build, without the profile-guided one ({reason})", file=sys.stderr)
        return
    print(f"-Cprofile-use={unpacked()}")


if __name__ == "__main__":
    main()
