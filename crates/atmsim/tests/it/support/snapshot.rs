//! Golden snapshots: text files under `crates/atmsim/tests/snapshots/`, compared byte for
//! byte. They are written only when the environment variable `UPDATE_SNAPSHOTS` is set
//! (or when a file does not exist yet, which then fails the test so that it is committed).
//! A regenerated snapshot needs a "Changed behavior" entry in CHANGELOG.md saying why the
//! results moved.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The snapshot directory, `crates/atmsim/tests/snapshots/`.
pub fn dir() -> PathBuf {
    super::repo().join("crates/atmsim/tests/snapshots")
}

fn updating() -> bool {
    std::env::var_os("UPDATE_SNAPSHOTS").is_some()
}

/// How to regenerate the snapshots of test `test`.
fn regenerate_hint(test: &str) -> String {
    format!(
        "if the change is on purpose, regenerate with\n    \
         UPDATE_SNAPSHOTS=1 cargo test -p atmsim --release --test it {test}\n\
         review the diff (git diff crates/atmsim/tests/snapshots) and add a \"Changed behavior\" \
         entry to CHANGELOG.md saying why the results moved"
    )
}

/// The first line where `got` and `want` differ, for the failure message.
fn first_difference(got: &str, want: &str) -> String {
    let (mut g, mut w) = (got.lines(), want.lines());
    for n in 1.. {
        match (g.next(), w.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => return "(same lines; line endings differ)".into(),
            (a, b) => {
                return format!(
                    "line {n}:\n      snapshot: {}\n      now:      {}",
                    b.unwrap_or("(end of file)"),
                    a.unwrap_or("(end of file)")
                )
            }
        }
    }
    unreachable!()
}

/// Compares `got` with the snapshot at `path`; writes it when updating or when it is
/// missing. Returns a description of the problem, if any.
fn check_file(path: &Path, got: &str) -> Option<String> {
    let want = std::fs::read_to_string(path).ok();
    if updating() || want.is_none() {
        if want.as_deref() != Some(got) {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, got).unwrap();
            eprintln!("wrote {}", path.display());
        }
        return want
            .is_none()
            .then(|| "did not exist; written now, commit it".to_string())
            .filter(|_| !updating());
    }
    let want = want.unwrap();
    (got != want).then(|| format!("moved at {}", first_difference(got, &want)))
}

/// Checks one snapshot file `name` (relative to [`dir`]) written by test `test`.
pub fn assert_snapshot(test: &str, name: &str, got: &str) {
    let path = dir().join(name);
    if let Some(problem) = check_file(&path, got) {
        panic!("snapshot {name} {problem}\n{}", regenerate_hint(test));
    }
}

/// The cell of a grid that tables the others (`_table.txt`).
const TABLE: &str = "_table";

/// Checks a grid of snapshots: one file `{cell}.txt` per cell in the directory `grid`
/// (relative to [`dir`]), and nothing else there. Every cell is compared before failing,
/// and the message names each cell that moved, how, and how to regenerate.
pub fn assert_grid(test: &str, grid: &str, cells: &[(String, String)]) {
    let gdir = dir().join(grid);
    let mut problems = Vec::new();
    let mut names = BTreeSet::new();
    // A new cell (a newly registered model) is written at once; the grid's table, which
    // shows every cell, is then written with it, so that the next run passes.
    let added = cells
        .iter()
        .any(|(c, _)| c != TABLE && !gdir.join(format!("{c}.txt")).exists());
    for (cell, got) in cells {
        let file = format!("{cell}.txt");
        assert!(names.insert(file.clone()), "grid {grid}: cell {cell} twice");
        let path = gdir.join(&file);
        if added && cell == TABLE && !updating() {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(got.as_str()) {
                std::fs::write(&path, got).unwrap();
                eprintln!("wrote {}", path.display());
                problems.push(format!(
                    "  {grid}/{file} rewritten for the new cells; review and commit it"
                ));
            }
            continue;
        }
        if let Some(p) = check_file(&path, got) {
            problems.push(format!("  cell {cell} ({grid}/{file}) {p}"));
        }
    }
    for stale in stale_files(&gdir, &names) {
        if updating() {
            std::fs::remove_file(gdir.join(&stale)).unwrap();
            eprintln!("removed {grid}/{stale}");
        } else {
            problems.push(format!(
                "  {grid}/{stale} belongs to no grid cell (a cell was renamed or removed)"
            ));
        }
    }
    if !problems.is_empty() {
        panic!(
            "grid {grid}: {} problem(s) with its {} snapshots:\n{}\n{}",
            problems.len(),
            cells.len(),
            problems.join("\n"),
            regenerate_hint(test)
        );
    }
}

/// Files in `gdir` that are not in `names`.
fn stale_files(gdir: &Path, names: &BTreeSet<String>) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(gdir) else {
        return Vec::new();
    };
    let mut stale: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| !names.contains(f))
        .collect();
    stale.sort();
    stale
}
