//! `[[fault]]`: cells of a connection lost on purpose (seed 004 section 4.2).

use super::connection::ConnNames;
use super::model::{FaultCell, FaultCfg};
use super::nodes::Nodes;
use super::paths::Paths;
use super::port_table::PortTable;
use super::schema::{DirectionSpec, FaultCellSpec, FaultSpec};
use crate::cell::FlowId;
use crate::config::{err, name_list, ConfigError};
use atmsim_kernel::Time;

/// Everything a fault is checked against.
pub struct FaultCtx<'a> {
    /// Connection names.
    pub names: &'a ConnNames<'a>,
    /// The resolved connections (which cells each direction carries).
    pub connections: &'a super::ConnectionTable,
    /// The resolved connections' paths.
    pub paths: &'a Paths,
    /// The resolved ports.
    pub ports: &'a PortTable,
    /// The nodes.
    pub nodes: &'a Nodes<'a>,
    /// The run length.
    pub duration: Time,
    /// The run length as written, for messages.
    pub duration_text: String,
}

/// Resolves every fault.
pub fn resolve_all(faults: &[FaultSpec], ctx: &FaultCtx) -> Result<Vec<FaultCfg>, ConfigError> {
    faults
        .iter()
        .enumerate()
        .map(|(i, ft)| resolve_one(&format!("fault[{i}]"), ft, ctx))
        .collect()
}

/// A fault: a known connection, a node that sends its cells in that direction, at least
/// one cell, no later than the end of the run.
fn resolve_one(p: &str, ft: &FaultSpec, ctx: &FaultCtx) -> Result<FaultCfg, ConfigError> {
    let Some(&c) = ctx.names.get(ft.connection.as_str()) else {
        let mut names: Vec<&str> = ctx.names.keys().copied().collect();
        names.sort_unstable();
        return err(
            format!("{p}.connection"),
            format!(
                "{:?} is not a connection; connections: {}",
                ft.connection,
                name_list(&names)
            ),
        );
    };
    let conn = ctx.paths.get(c);
    let (flow, ports_of) = if ft.direction == Some(DirectionSpec::Reverse) {
        (FlowId::reverse(c).index(), conn.bwd_ports())
    } else {
        (FlowId::forward(c).index(), conn.fwd_ports())
    };
    let port = match &ft.node {
        None => ports_of[0] as usize,
        Some(name) => port_at(p, ft, name, ports_of, ctx)?,
    };
    carries_such_cells(p, ft, ctx, c)?;
    let count = ft.count.unwrap_or(1);
    if count == 0 {
        return err(format!("{p}.count"), "0 is not allowed; at least 1 cell");
    }
    if ft.at.ps() > ctx.duration {
        return err(
            format!("{p}.at"),
            format!(
                "{} is after the end of the run ({})",
                ft.at, ctx.duration_text
            ),
        );
    }
    Ok(FaultCfg {
        flow,
        port,
        at: ft.at.ps(),
        cell: match ft.cell.unwrap_or_default() {
            FaultCellSpec::Data => FaultCell::Data,
            FaultCellSpec::Rm => FaultCell::Rm,
            FaultCellSpec::Any => FaultCell::Any,
        },
        count,
    })
}

/// Refuses a fault that could never take a cell: RM cells of a connection that is not ABR,
/// the reverse direction of one-way cell traffic (no cells), or data cells in the reverse
/// direction of one-way ABR cell traffic (its backward RM cells only). A review found such
/// faults accepted and dropping nothing.
fn carries_such_cells(
    p: &str,
    ft: &FaultSpec,
    ctx: &FaultCtx,
    c: usize,
) -> Result<(), ConfigError> {
    let Some(cfg) = ctx.connections.get(c) else {
        return Ok(());
    };
    let abr = cfg.abr.is_some();
    let cell = ft.cell.unwrap_or_default();
    let reverse = ft.direction == Some(DirectionSpec::Reverse);
    // TCP sends ACKs back; cell traffic only if its application answers (request/response).
    let reverse_data = cfg.tcp.is_some() || cfg.app.as_deref().is_some_and(|a| a.reverse_sends());
    let name = &ft.connection;
    if reverse && !reverse_data && !abr {
        return err(
            format!("{p}.direction"),
            format!("\"reverse\", but connection {name:?} is one-way cell traffic: nothing travels back; allowed: \"forward\""),
        );
    }
    if cell == FaultCellSpec::Rm && !abr {
        return err(
            format!("{p}.cell"),
            format!("\"rm\", but connection {name:?} is not ABR (it sends no RM cells); allowed: \"data\" or \"any\""),
        );
    }
    if reverse && !reverse_data && cell == FaultCellSpec::Data {
        return err(
            format!("{p}.cell"),
            format!("\"data\" in the reverse direction, but connection {name:?} sends only backward RM cells back; allowed there: \"rm\" or \"any\""),
        );
    }
    Ok(())
}

/// The output port of node `name` on the connection's path in the fault's direction.
fn port_at(
    p: &str,
    ft: &FaultSpec,
    name: &str,
    ports_of: &[u32],
    ctx: &FaultCtx,
) -> Result<usize, ConfigError> {
    let n = ctx.nodes.find(|| format!("{p}.node"), name)?;
    if let Some(&q) = ports_of.iter().find(|&&q| ctx.ports.node(q as usize) == n) {
        return Ok(q as usize);
    }
    let on: Vec<&str> = ports_of
        .iter()
        .map(|&q| ctx.nodes.cfg.name(ctx.ports.node(q as usize)))
        .collect();
    err(
        format!("{p}.node"),
        format!(
            "{name:?} sends no cells of connection {:?} in that direction; allowed: {}",
            ft.connection,
            name_list(&on)
        ),
    )
}
