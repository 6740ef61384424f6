//! `[[node]]`: hosts and switches, with unique names.

use super::model::{NodeTable, MAX_NODE_NAME_BYTES};
use super::schema::{NodeKind, NodeSpec};
use crate::config::{err, name_list, ConfigError};
use rustc_hash::FxHashMap;

/// The resolved nodes and a name index.
pub struct Nodes<'f> {
    /// The nodes, in file order.
    pub cfg: NodeTable,
    /// Name -> index (hashed: at 10 000 VCs the lookups by name were a sixth of
    /// resolving the connections as an ordered map).
    index: FxHashMap<&'f str, usize>,
    /// The file's nodes, whose names an error lists.
    specs: &'f [NodeSpec],
}

impl<'f> Nodes<'f> {
    /// Checks that there are nodes and that their names are non-empty and unique.
    pub fn resolve(specs: &'f [NodeSpec]) -> Result<Nodes<'f>, ConfigError> {
        if specs.is_empty() {
            return err("node", "no nodes are defined; add [[node]] tables with a name and kind = \"host\" or \"switch\"");
        }
        let name_bytes: usize = specs.iter().map(|n| n.name.len()).sum();
        if name_bytes > MAX_NODE_NAME_BYTES {
            return err(
                "node",
                format!(
                    "the {} node names take {name_bytes} bytes together; allowed: at most {MAX_NODE_NAME_BYTES}",
                    specs.len()
                ),
            );
        }
        let mut index = FxHashMap::with_capacity_and_hasher(specs.len(), Default::default());
        let mut cfg = NodeTable::with_capacity(specs.len(), name_bytes);
        for (i, n) in specs.iter().enumerate() {
            if n.name.trim().is_empty() {
                return err(format!("node[{i}].name"), "must not be empty");
            }
            if index.insert(n.name.as_str(), i).is_some() {
                return err(
                    format!("node[{i}].name"),
                    format!("{:?} is defined twice; node names must be unique", n.name),
                );
            }
            cfg.push(&n.name, n.kind);
        }
        Ok(Nodes { cfg, index, specs })
    }

    /// The index of node `name`, or an error at `path()` listing the defined nodes (the
    /// path is only written out for the error: at 10 000 VCs writing it for every lookup
    /// was a tenth of resolving the scenario).
    pub fn find(&self, path: impl FnOnce() -> String, name: &str) -> Result<usize, ConfigError> {
        self.index.get(name).copied().ok_or_else(|| {
            let names: Vec<&str> = self.specs.iter().map(|n| n.name.as_str()).collect();
            ConfigError::new(
                path(),
                format!(
                    "node {name:?} is not defined; defined nodes are {}",
                    name_list(&names)
                ),
            )
        })
    }

    /// Whether node `i` is a switch.
    pub fn is_switch(&self, i: usize) -> bool {
        self.cfg.kind(i) == NodeKind::Switch
    }
}
