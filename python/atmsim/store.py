"""The results store of a sweep: one directory, written point by point, read as DataFrames.

Layout (format 1)::

    DIR/
      manifest.json          sweep name, parameters, seeds, atmsim version, every point of the grid
      sweep.toml             the sweep file as given (sweep.json for a JSON sweep file, or for a sweep
                             given as a dict, with its base.scenario = "base_scenario.json")
      base_scenario.json     the base scenario (a scenario-file or dict base): the sweep runs again
                             from sweep.toml/sweep.json in any directory, on any machine
      summary.parquet        all finished points, one row each (rewritten when a run ends)
      summary.csv            the same as CSV
      points/<point_id>/     one directory per finished point, renamed into place when complete:
        point.json           id, seed, parameters, status (ok/error), error, atmsim version,
                             wall time, and the full resolved scenario
        scenario.toml        the resolved scenario (atmsim run points/<id>/scenario.toml re-runs it)
        summary.parquet      the point's row of the results table
        connections.parquet  per-connection results     } ok points only
        ports.parquet        per-port results            }
        port_series.parquet, connection_series.parquet, abr_series.parquet (time series)

A point exists once its directory does: each is written under a temporary name and renamed
into place, so a sweep killed at any moment loses only the points that were running, and
the next run resumes with those. :func:`load_sweep` reads a store.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from .parallel import Outcome
    from .sweeps import Point, SweepSpec

FORMAT = 1
MANIFEST = "manifest.json"
#: The copy of a sweep's base scenario (a scenario file or dict) in its store.
BASE_COPY = "base_scenario.json"
KIND = "atmsim-sweep"
SERIES = {"port": "port_series", "connection": "connection_series", "abr": "abr_series"}
TABLES = {"connections": "connections", "ports": "ports"}
#: Summary fields that measure the host, not the simulation (they differ between runs).
WALL_COLUMNS = ("wall_seconds", "cell_hops_per_second", "events_per_second")


class StoreError(RuntimeError):
    """A results directory that cannot be used (not a sweep store, locked by another run)."""


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def _version() -> str:
    from . import __version__

    return __version__


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def _to_parquet(df: pd.DataFrame, path: Path) -> None:
    df.to_parquet(path, index=False, engine="pyarrow")


def _sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def point_damage(d: Path) -> str:
    """Why the point directory ``d`` does not read back, or "" if it does."""
    try:
        meta = json.loads((d / "point.json").read_text())
    except (OSError, ValueError, UnicodeDecodeError) as e:
        return f"point.json does not read ({type(e).__name__})"
    if not isinstance(meta, dict) or meta.get("point_id") != d.name:
        return "point.json names another point"
    files = meta.get("files")
    if isinstance(files, dict):
        for name, digest in files.items():
            try:
                if _sha256(d / name) != digest:
                    return f"{name} is damaged (its checksum differs)"
            except OSError:
                return f"{name} is missing"
        return ""
    for f in sorted(d.glob("*.parquet")):  # a store written before checksums
        try:
            pd.read_parquet(f)
        except Exception as e:  # noqa: BLE001 - pyarrow raises several kinds
            return f"{f.name} does not read ({type(e).__name__})"
    if not (d / "summary.parquet").exists():
        return "summary.parquet is missing"
    return ""


def refuse_non_store(root: Path) -> None:
    """A results store goes into a new or empty directory, or an earlier store (it has its
    manifest): a file, or a directory holding other files, is a StoreError naming --out."""
    if root.exists() and not root.is_dir():
        raise StoreError(f"--out {str(root)!r} is a file; give a directory for the results store")
    if root.is_dir() and not (root / MANIFEST).exists() and any(root.iterdir()):
        raise StoreError(f"--out {str(root)!r} exists and is not an atmsim sweep store (no {MANIFEST}); "
                         f"give a new or empty directory, or an earlier sweep's store")


def stored_base_copy(folder: Path, named: str) -> Optional[tuple[Path, Path]]:
    """The copy of the base scenario that the results store at ``folder`` keeps, and the
    original file's path it records, if the base ``named`` (as a sweep file writes it) is
    that file: its sweep.toml names the base as the original sweep file did, relative to
    that file's folder, and the copy is what it reads anywhere else. None if ``folder`` is
    not a store, has no copy (a topology base), or ``named`` is another file (a base
    renamed or misspelt is not silently read as the old one; found by review)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_bytes().decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("kind") != KIND:
        return None
    name, original = manifest.get("base_scenario"), manifest.get("base_file")
    if not isinstance(name, str) or not name or Path(name).name != name or not isinstance(original, str):
        return None
    kept = folder / name
    same = Path(named).name == Path(original).name or Path(named).name == name
    return (kept, Path(original)) if same and kept.is_file() else None


def _write_sweep_file(root: Path, spec: "SweepSpec") -> None:
    """The sweep as given, in the store: sweep.toml (its TOML text) or sweep.json (its JSON
    text, or the dict given with ``base.scenario`` naming the store's copy of the base),
    and that copy, base_scenario.json (a scenario-file or dict base): so that the store's
    sweep file runs again from any directory."""
    from .scenario import is_json_text

    if spec.base_scenario is not None:
        _write_json(root / BASE_COPY, spec.base_scenario)
    else:
        (root / BASE_COPY).unlink(missing_ok=True)
    if spec.source_text is not None and not is_json_text(spec.source_text):
        (root / "sweep.toml").write_text(spec.source_text)
        (root / "sweep.json").unlink(missing_ok=True)
        return
    if spec.source_text is not None:
        (root / "sweep.json").write_text(spec.source_text)
    else:
        source = dict(spec.source)
        if spec.base_scenario is not None and isinstance(source.get("base"), dict):
            source["base"] = {**source["base"], "scenario": BASE_COPY}
        _write_json(root / "sweep.json", source)
    (root / "sweep.toml").unlink(missing_ok=True)


def _reason(e: OSError) -> str:
    """An OSError as "'path': reason" (the path when it has one)."""
    reason = e.strerror or str(e) or type(e).__name__
    return f"{str(e.filename)!r}: {reason}" if e.filename is not None else reason


class SweepStore:
    """Writes a sweep's results (see the module doc). Use :meth:`create` as a context
    manager: it takes a lock so that two runs never write one store."""

    def __init__(self, root: Union[str, os.PathLike]):
        self.root = Path(root)
        self.points_dir = self.root / "points"
        self._lock_fd: Optional[int] = None
        self._grid: list[Point] = []

    # ---- opening

    @classmethod
    def create(cls, root: Union[str, os.PathLike], spec: "SweepSpec", points: list["Point"]) -> "SweepStore":
        """Opens (or starts) the store at ``root`` for this sweep and writes its manifest."""
        self = cls(root)
        refuse_non_store(self.root)
        try:
            self._open(spec, points)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError, FileExistsError) as e:
            # a parent that is a file, a directory where a store's file goes (a full or
            # read-only disk stays an OSError: an I/O fault, not a mistake in --out)
            raise StoreError(f"--out {str(self.root)!r}: cannot write the results store: {_reason(e)}") from None
        return self

    def _open(self, spec: "SweepSpec", points: list["Point"]) -> None:
        """Makes the store's directories, takes its lock and writes its manifest."""
        root = self.root
        self.points_dir.mkdir(parents=True, exist_ok=True)
        self._lock()
        try:
            old = self._old_manifest()
            if old and old.get("kind") != KIND:
                raise StoreError(f"{str(root / MANIFEST)!r} is not the manifest of an atmsim sweep")
            for d in self.points_dir.iterdir():  # left by a run that was killed
                if d.name.startswith(".tmp-") or d.name.startswith(".old-"):
                    shutil.rmtree(d, ignore_errors=True)
            self.healed = self.verify()
            self._grid = points
            manifest = {
                "kind": KIND,
                "format": FORMAT,
                "name": spec.name,
                "description": spec.description,
                "atmsim_version": _version(),
                "created": old.get("created", _now()),
                "updated": _now(),
                "sweep_file": str(spec.source_path) if spec.source_path else None,
                "base": spec.base_description(),
                "base_file": str(spec.base_file) if spec.base_file else None,
                "base_scenario": BASE_COPY if spec.base_scenario is not None else None,
                "seeds": spec.seeds,
                "parameters": [p.to_json() for p in spec.parameters],
                "combinations": spec.combinations,
                "total_points": len(points),
                "points": [{"point_id": p.point_id, "seed": p.seed, "params": p.params} for p in points],
            }
            _write_sweep_file(root, spec)
            _write_json(root / MANIFEST, manifest)
        except BaseException:
            self.close()
            raise

    def _old_manifest(self) -> dict[str, Any]:
        """The manifest a previous run wrote; {} if none, or if it is damaged (it is
        rewritten from the sweep file, so a damaged one is healed)."""
        mf = self.root / MANIFEST
        if not mf.exists():
            return {}
        try:
            old = json.loads(mf.read_text())
        except (ValueError, UnicodeDecodeError):
            if not self.points_dir.is_dir():
                raise StoreError(f"{str(mf)!r} is damaged and {str(self.root)!r} has no points/; "
                                 f"give another --out") from None
            return {"kind": KIND}
        return old if isinstance(old, dict) else {"kind": None}

    def verify(self) -> list[str]:
        """Checks every finished point's files read back (issue 18: "every store file is
        verified on resume"): point.json parses and names the point, each file's SHA-256
        matches the one point.json recorded (stores written before checksums: every Parquet
        file reads). A point that fails is removed, so that this run runs it again; the
        combined summary is removed when damaged or out of step, so that it is written anew.
        Returns one line per point removed."""
        removed = []
        for pid in sorted(self.finished_ids()):
            why = point_damage(self.points_dir / pid)
            if why:
                removed.append(f"point {pid[:12]}: {why}; it will run again")
                shutil.rmtree(self.points_dir / pid, ignore_errors=True)
        combined = self.root / "summary.parquet"
        if combined.exists():
            try:
                ids = set(pd.read_parquet(combined, columns=["point_id"])["point_id"])
                healthy = not removed and ids <= self.finished_ids()
            except Exception:  # noqa: BLE001 - any damage: rebuilt from the points
                healthy = False
            if not healthy:
                for f in ("summary.parquet", "summary.csv"):
                    (self.root / f).unlink(missing_ok=True)
        return removed

    def _lock(self) -> None:
        path = self.root / ".lock"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no lock
            self._lock_fd = fd
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(f"another atmsim sweep is writing to {str(self.root)!r}; wait for it to finish "
                             f"or give another --out") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> "SweepStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- reading state

    def manifest(self) -> dict[str, Any]:
        return json.loads((self.root / MANIFEST).read_text())

    def finished_ids(self) -> set[str]:
        """Points whose directory is complete (ok or error)."""
        if not self.points_dir.is_dir():
            return set()
        return {d.name for d in self.points_dir.iterdir() if not d.name.startswith(".") and (d / "point.json").exists()}

    def point_meta(self, pid: str) -> dict[str, Any]:
        try:
            return json.loads((self.points_dir / pid / "point.json").read_text())
        except (ValueError, UnicodeDecodeError):
            raise StoreError(f"{str(self.points_dir / pid / 'point.json')!r} is damaged") from None

    def failed_ids(self) -> set[str]:
        return {pid for pid in self.finished_ids() if self.point_meta(pid).get("status") != "ok"}

    def stale_ids(self) -> set[str]:
        """Finished points that are not in the current grid (the sweep file changed)."""
        grid = {p.point_id for p in self._grid} if self._grid else {p["point_id"] for p in self.manifest()["points"]}
        return self.finished_ids() - grid

    # ---- writing points

    def _row(self, point: "Point", status: str, error_type: str = "", error: str = "",
             summary: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        row: dict[str, Any] = {"point_id": point.point_id, "seed": point.seed, **point.params,
                               "status": status, "error_type": error_type, "error": error}
        for k, v in (summary or {}).items():
            if k in ("name", "seed", "version") or k in row:
                continue
            if v is None or isinstance(v, (bool, int, float, str)):
                row[k] = v
        row["atmsim_version"] = (summary or {}).get("version") or _version()
        return row

    def _commit(self, point: "Point", meta: dict[str, Any], frames: dict[str, pd.DataFrame], row: dict[str, Any],
                scenario: Optional[dict[str, Any]] = None) -> None:
        pid = point.point_id
        tmp = self.points_dir / f".tmp-{pid}-{uuid.uuid4().hex[:8]}"
        try:
            # Made inside the try: a Ctrl-C that lands just after the directory is made (the
            # interrupt is raised on the way out of mkdir) still removes it.
            tmp.mkdir()
            _to_parquet(pd.DataFrame([row]), tmp / "summary.parquet")
            for name, df in frames.items():
                # Every file names its point, so pyarrow.dataset over a store (issue 16)
                # returns rows that can be told apart.
                _to_parquet(df.assign(point_id=pid)[["point_id", *df.columns]], tmp / f"{name}.parquet")
            scenario = scenario if scenario is not None else meta.get("scenario")
            if scenario is not None:
                from .scenario import to_toml

                try:
                    (tmp / "scenario.toml").write_text(to_toml(scenario), encoding="utf-8")
                except (TypeError, AttributeError):  # a value TOML cannot hold; point.json has it
                    pass
            meta = {**meta, "files": {f.name: _sha256(f) for f in sorted(tmp.iterdir())}}
            (tmp / "point.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
            final = self.points_dir / pid
            if final.exists():  # --rerun-failed: replace the old point
                # The combined summary holds the old row: drop it (finish() writes it anew).
                for f in ("summary.parquet", "summary.csv"):
                    (self.root / f).unlink(missing_ok=True)
                old = self.points_dir / f".old-{pid}-{uuid.uuid4().hex[:8]}"
                os.rename(final, old)
                os.rename(tmp, final)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def _meta(self, point: "Point", status: str, **kw: Any) -> dict[str, Any]:
        return {"point_id": point.point_id, "seed": point.seed, "params": point.params, "status": status,
                "error_type": kw.get("error_type", ""), "error": kw.get("error", ""),
                "atmsim_version": kw.get("version") or _version(), "wall_seconds": kw.get("wall_seconds"),
                "finished": _now(), "scenario": kw["scenario"] if "scenario" in kw else point.scenario}

    def write_error(self, point: "Point", error_type: str, error: str) -> None:
        """Records a point that failed (its scenario is invalid, the engine refused it, its worker died)."""
        self._commit(point, self._meta(point, "error", error_type=error_type, error=error), {},
                     self._row(point, "error", error_type, error))

    def write_outcome(self, point: "Point", outcome: "Outcome") -> None:
        """Records what a run gave: its summary, tables and series, or its error."""
        if not outcome.ok:
            self.write_error(point, outcome.error_type, outcome.message)
            return
        from .result import RunResult, json_loads

        scenario = point.scenario
        try:
            r = RunResult(json_loads(outcome.text), scenario)
            frames = {"connections": r.connections, "ports": r.ports, "port_series": r.port_series,
                      "connection_series": r.connection_series}
            if len(r.abr_series):
                frames["abr_series"] = r.abr_series
        except Exception as e:  # noqa: BLE001 - an engine/package mismatch, say: this point fails, not the sweep
            self.write_error(point, "ResultError", f"cannot read the engine's result: {type(e).__name__}: {e}")
            return
        s = r.summary
        meta = self._meta(point, "ok", version=s.get("version"), wall_seconds=s.get("wall_seconds"), scenario=scenario)
        self._commit(point, meta, frames, self._row(point, "ok", summary=s), scenario)

    def finish(self) -> "SweepResults":
        """Writes the combined summary (Parquet and CSV) when points were added, and returns
        the results."""
        res = SweepResults(self.root)
        df = res._all_rows()
        if len(df) and res._rows_changed:
            _to_parquet(df, self.root / "summary.parquet")
            tmp = self.root / ".summary.csv.tmp"
            df.to_csv(tmp, index=False)
            os.replace(tmp, self.root / "summary.csv")
        res._rows = df
        return res


# --------------------------------------------------------------------------- reading


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest at ``path``, checked to hold everything a reader uses; anything else
    (not JSON, not UTF-8, another shape, another format) is one StoreError naming the file."""
    try:
        manifest = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise StoreError(f"{str(path)!r} is damaged: it is not UTF-8 text") from None
    except ValueError as e:
        raise StoreError(f"{str(path)!r} is damaged: {e}") from None
    if isinstance(manifest, dict) and manifest.get("kind") != KIND:
        raise StoreError(f"{str(path)!r} is not the manifest of an atmsim sweep")
    why = manifest_damage(manifest)
    if why:
        raise StoreError(f"{str(path)!r} is damaged: {why}")
    return manifest


def _list_damage(manifest: dict[str, Any], key: str, fields: dict[str, type]) -> str:
    """Why ``manifest[key]`` is not a list of objects with ``fields`` (name: type), or ""."""
    items = manifest.get(key)
    if not isinstance(items, list):
        return f"{key!r} is {'missing' if items is None else 'not a list'}"
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            return f"{key}[{i}] is not an object"
        for field, kind in fields.items():
            value = item.get(field)
            if not isinstance(value, kind) or isinstance(value, bool):
                return (f"{key}[{i}] has no {field!r}" if value is None else
                        f"{key}[{i}].{field} = {json.dumps(value)[:40]} is not {_KIND_NAMES[kind]}")
    return ""


_KIND_NAMES = {str: "a string", int: "a whole number", list: "a list", dict: "an object"}


def manifest_damage(manifest: Any) -> str:
    """Why a manifest (as parsed from JSON) cannot be read as a sweep's, or ""."""
    if not isinstance(manifest, dict):
        return f"it holds a JSON {type(manifest).__name__}, not an object"
    if manifest.get("format", FORMAT) != FORMAT:
        return f"format {json.dumps(manifest['format'])[:20]}; this atmsim reads stores of format {FORMAT}"
    if not isinstance(manifest.get("name"), str):
        return "'name' is missing or not a string"
    if not isinstance(manifest.get("description") or "", str):
        return "'description' is not a string"
    seeds = manifest.get("seeds")
    if not isinstance(seeds, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        return "'seeds' is missing or not a list of whole numbers"
    return (_list_damage(manifest, "parameters", {"name": str, "path": str, "labels": list})
            or _list_damage(manifest, "points", {"point_id": str, "seed": int, "params": dict}))


class SweepResults:
    """A sweep's results, read from its store.

    Attributes:
        df: one row per finished point of the sweep, in grid order: ``point_id``, ``seed``,
            the parameters, ``status`` (``ok``/``error``), ``error_type``, ``error``, the
            summary metrics (efficiency, fairness, max_switch_queue_cells, ...) and
            ``atmsim_version``. Failed points have empty metrics.
        parameters: the parameter column names, in the order of the sweep file.
        missing: ids of grid points that have no result yet (an interrupted sweep).
        stale: ids of points in the store that the sweep no longer holds.
    """

    def __init__(self, root: Union[str, os.PathLike]):
        self.root = Path(root)
        mf = self.root / MANIFEST
        if not mf.is_file():
            raise StoreError(f"{str(self.root)!r} is not an atmsim sweep store (no {MANIFEST}); "
                             f"run 'atmsim sweep FILE --out DIR' first")
        self.manifest: dict[str, Any] = read_manifest(mf)
        self.name: str = self.manifest["name"]
        self.description: str = self.manifest.get("description", "")
        self.parameters: list[str] = [p["name"] for p in self.manifest["parameters"]]
        self.seeds: list[int] = self.manifest["seeds"]
        self._grid: list[dict[str, Any]] = self.manifest["points"]
        self._rows: Optional[pd.DataFrame] = None
        self._rows_changed = False  # rows differ from summary.parquet
        self._df: Optional[pd.DataFrame] = None

    # ---- the table

    def _finished(self) -> set[str]:
        d = self.root / "points"
        return {x.name for x in d.iterdir() if not x.name.startswith(".") and (x / "point.json").exists()} if d.is_dir() else set()

    def _read_rows(self, ids: list[str]) -> pd.DataFrame:
        frames = []
        for pid in ids:
            try:
                frames.append(pd.read_parquet(self.root / "points" / pid / "summary.parquet"))
            except (OSError, ValueError):  # written by a run that was killed mid-file: not counted
                continue
        frames = [f for f in frames if len(f)]
        if not frames:
            return pd.DataFrame(columns=["point_id", "seed", *self.parameters, "status", "error_type", "error"])
        return pd.concat(frames, ignore_index=True)

    def _all_rows(self) -> pd.DataFrame:
        """Every finished point's row: from summary.parquet (written when a run ends), plus
        the points written since, read one by one."""
        if self._rows is None:
            finished = self._finished()
            combined = self.root / "summary.parquet"
            rows = None
            if combined.is_file():
                try:
                    rows = pd.read_parquet(combined)
                except (OSError, ValueError):
                    rows = None
            if rows is None or "point_id" not in rows:
                self._rows = self._read_rows(sorted(finished))
                self._rows_changed = True
                return self._rows
            have = set(rows["point_id"])
            new = sorted(finished - have)
            self._rows_changed = bool(new) or bool(have - finished)
            rows = rows[rows["point_id"].isin(finished)]
            if new:
                extra = self._read_rows(new)
                rows = pd.concat([rows, extra], ignore_index=True) if len(rows) else extra
            self._rows = rows.reset_index(drop=True)
        return self._rows

    @property
    def df(self) -> pd.DataFrame:
        if self._df is None:
            rows = self._all_rows()
            order = {p["point_id"]: i for i, p in enumerate(self._grid)}
            df = rows[rows["point_id"].isin(order)].copy()
            df["_order"] = df["point_id"].map(order)
            self._df = df.sort_values("_order").drop(columns="_order").reset_index(drop=True)
        return self._df

    @property
    def stale_df(self) -> pd.DataFrame:
        """Rows of points that are in the store but not in the sweep any more."""
        rows = self._all_rows()
        return rows[~rows["point_id"].isin({p["point_id"] for p in self._grid})].reset_index(drop=True)

    @property
    def ok(self) -> pd.DataFrame:
        return self.df[self.df["status"] == "ok"].reset_index(drop=True)

    @property
    def failed(self) -> pd.DataFrame:
        """Failed points: parameters, seed, error type and message."""
        cols = ["point_id", "seed", *self.parameters, "error_type", "error"]
        return self.df.loc[self.df["status"] != "ok", cols].reset_index(drop=True)

    @property
    def missing(self) -> list[str]:
        done = set(self.df["point_id"])
        return [p["point_id"] for p in self._grid if p["point_id"] not in done]

    @property
    def stale(self) -> list[str]:
        return sorted(self._finished() - {p["point_id"] for p in self._grid})

    @property
    def metrics(self) -> list[str]:
        """Numeric result columns (efficiency, fairness, ...)."""
        fixed = {"point_id", "seed", "status", "error_type", "error", "atmsim_version", *self.parameters}
        return [c for c in self.df.columns if c not in fixed and pd.api.types.is_numeric_dtype(self.df[c])
                and not pd.api.types.is_bool_dtype(self.df[c])]

    def check_metric(self, metric: Any, label: str = "metric = ") -> None:
        """Refuses (ValueError) a ``metric`` that is not one of :attr:`metrics` (a numeric
        result column): ``label`` is how the caller names the option."""
        if metric in self.metrics:
            return
        why = ("is a parameter, not a result" if metric in self.parameters else
               "is not a numeric result column" if metric in self.df.columns else "is not a result column")
        raise ValueError(f"{label}{metric!r} {why}; metrics: {', '.join(self.metrics) or 'none (no point finished)'}")

    def __len__(self) -> int:
        return len(self.df)

    def status_line(self) -> str:
        n, ok = len(self._grid), int((self.df["status"] == "ok").sum())
        failed = int((self.df["status"] != "ok").sum())
        miss = n - ok - failed
        text = f"{self.name}: {n} points: {ok} ok, {failed} failed" + (f", {miss} not run" if miss else "")
        return text + f" ({self.root})"

    def __repr__(self) -> str:
        return f"<SweepResults {self.status_line()}>"

    # ---- one point

    def resolve_id(self, point_id: str) -> str:
        """A point id, or a unique prefix of one (like a git hash)."""
        finished = self._finished()
        if point_id in finished:
            return point_id
        hits = [p for p in finished if p.startswith(point_id)] if point_id else []
        if len(hits) == 1:
            return hits[0]
        if not hits:
            raise KeyError(f"no finished point {point_id!r} in {str(self.root)!r}")
        raise KeyError(f"point id prefix {point_id!r} matches {len(hits)} points; give more digits")

    def point(self, point_id: str) -> dict[str, Any]:
        """The point's record: seed, parameters, status, error, version, wall time, scenario."""
        return json.loads((self.root / "points" / self.resolve_id(point_id) / "point.json").read_text())

    def scenario(self, point_id: str) -> dict[str, Any]:
        """The full resolved scenario of a point (run it again with ``atmsim.run``)."""
        return self.point(point_id)["scenario"]

    def _frame(self, point_id: str, name: str) -> pd.DataFrame:
        pid = self.resolve_id(point_id)
        path = self.root / "points" / pid / f"{name}.parquet"
        if path.is_file():
            try:
                return pd.read_parquet(path).drop(columns="point_id", errors="ignore")
            except Exception as e:  # noqa: BLE001 - pyarrow's ArrowInvalid, OSError, ...
                raise StoreError(f"{str(path)!r} is damaged ({type(e).__name__}); run the sweep again "
                                 f"with the same --out to re-run this point") from None
        meta = self.point(pid)
        if meta["status"] != "ok":
            raise KeyError(f"point {pid} failed ({meta['error']}); it has no {name.replace('_', ' ')}")
        return pd.DataFrame()  # e.g. no ABR series in a UBR scenario

    def series(self, point_id: str, kind: str = "port") -> pd.DataFrame:
        """A point's time series: ``kind`` is ``"port"`` (queue, utilization per switch port),
        ``"connection"`` (cwnd, cells received, delivered bytes) or ``"abr"`` (ACR per source)."""
        if kind not in SERIES:
            raise ValueError(f"kind = {kind!r}: allowed: {', '.join(SERIES)}")
        return self._frame(point_id, SERIES[kind])

    def connections(self, point_id: str) -> pd.DataFrame:
        """A point's per-connection results (as ``RunResult.connections``)."""
        return self._frame(point_id, "connections")

    def ports(self, point_id: str) -> pd.DataFrame:
        """A point's per-port results (as ``RunResult.ports``)."""
        return self._frame(point_id, "ports")

    # ---- views

    def param_info(self) -> dict[str, dict[str, Any]]:
        return {p["name"]: p for p in self.manifest["parameters"]}

    def aggregate(self, metrics: Optional[list[str]] = None, by: Optional[list[str]] = None) -> pd.DataFrame:
        """Mean, standard deviation and count over seeds of each metric, one row per
        parameter combination (``by``: default all parameters). Failed points are left out."""
        metrics = metrics or self.metrics
        by = list(self.parameters if by is None else by)
        ok = self.ok
        if not len(ok):
            return pd.DataFrame(columns=[*by, "seeds"])
        if isinstance(metrics, str):
            raise TypeError(f"metrics = {metrics!r}: give a list of metric names, e.g. [{metrics!r}]")
        for m in metrics:
            self.check_metric(m, "metrics: ")
        for p in by:
            if p not in self.df.columns:
                raise ValueError(f"by: {p!r} is not a parameter; parameters: {', '.join(self.parameters) or 'none'}")
        if not by:
            ok = ok.assign(_all="all")
            by = ["_all"]
        g = ok.groupby(by, sort=False, dropna=False)
        out = g[metrics].agg(["mean", "std"])
        out.columns = [f"{m}_{s}" for m, s in out.columns]
        out.insert(0, "seeds", g.size())
        out = out.reset_index()
        return out.drop(columns="_all") if "_all" in out else out

    def plot(self, metric: str = "efficiency", x: Optional[str] = None, by: Optional[str] = None,
             path: Union[str, os.PathLike, None] = None, ax=None):
        """``metric`` against parameter ``x``, one line per value of parameter ``by``, mean
        and spread (standard deviation) over seeds; see :func:`atmsim.plots.plot_sweep`."""
        from .plots import plot_sweep

        return plot_sweep(self, metric, x=x, by=by, path=path, ax=ax)


def load_sweep(path: Union[str, os.PathLike]) -> SweepResults:
    """Reads a sweep's results store (the ``--out`` directory of ``atmsim sweep``)."""
    from .result import path_argument

    p = path_argument(path, "path", "the directory of a sweep's results store (the out of atmsim.sweep)")
    if not p.exists():
        raise FileNotFoundError(f"no sweep results at {str(p)!r}")
    return SweepResults(p)
