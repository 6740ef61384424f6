//! `[[connection]]`: names, end hosts, route, timing, service, and the traffic with its
//! TCP and ABR parameters.

use super::connection_table::ConnectionTable;
use super::model::{ConnectionCfg, ServiceClass};
use super::names::{PackedNames, MAX_NAME_BYTES};
use super::nodes::Nodes;
use super::paths::{Paths, PathsBuilder, MAX_PATH_IDS};
use super::ports::Ports;
use super::schema::{ConnectionSpec, NodeKind, ScenarioFile, SetupSpec, TrafficSpec};
use super::traffic::CellApp;
use super::{route, service};
use crate::abr::config::{resolve_abr, AbrSpec};
use crate::abr::AbrParams;
use crate::cell::CELL_BITS;
use crate::config::{err, ConfigError};
use crate::footprint::RouteBudget;
use crate::tcp::config::{resolve_tcp, resolve_tcp_app, TcpParams, TcpSpec, TcpTrafficSpec};
use atmsim_kernel::{MaybeTime, Time};
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::sync::Arc;

/// Connection names -> index (hashed; list them sorted).
pub type ConnNames<'f> = FxHashMap<&'f str, usize>;

/// The resolved connections.
pub struct Connections<'f> {
    /// Each connection's settings and application, equal ones sharing a record.
    pub cfg: ConnectionTable,
    /// Their names, in the same order.
    pub names: PackedNames,
    /// Their paths, in the same order.
    pub paths: Paths,
    /// Name -> index.
    pub index: ConnNames<'f>,
}

/// Resolves every connection (at least one), with unique names.
pub fn resolve_all<'f>(
    f: &'f ScenarioFile,
    nodes: &Nodes,
    ports: &Ports,
) -> Result<Connections<'f>, ConfigError> {
    if f.connection.is_empty() {
        return err(
            "connection",
            "no connections are defined; add [[connection]] tables",
        );
    }
    let name_bytes: usize = f.connection.iter().map(|c| c.name.len()).sum();
    if name_bytes > MAX_NAME_BYTES {
        return err(
            "connection",
            format!(
                "the {} connection names take {name_bytes} bytes together; allowed: at most {MAX_NAME_BYTES}",
                f.connection.len()
            ),
        );
    }
    let mut packed = PackedNames::with_capacity(f.connection.len(), name_bytes);
    let defaults = Defaults {
        tcp: f.defaults.tcp.clone().unwrap_or_default(),
        abr: f.defaults.abr.clone().unwrap_or_default(),
    };
    let mut names = FxHashMap::with_capacity_and_hasher(f.connection.len(), Default::default());
    let mut shared = Shared::default();
    let mut finder = route::Finder::default();
    let mut budget = RouteBudget::default();
    let mut out = ConnectionTable::with_capacity(f.connection.len());
    // Room for the routes given (a route found is usually two switches long), so that the
    // vector seldom grows by doubling; its spare room is freed at the end.
    let ids: usize = f
        .connection
        .iter()
        .map(|c| {
            c.route
                .as_ref()
                .map_or(10, |r| (3 * r.len()).saturating_sub(2))
        })
        .sum();
    let mut paths = PathsBuilder::with_capacity(f.connection.len(), ids);
    // Key paths written into reused buffers: a `format!` per connection was a tenth of
    // resolving 10 000 of them, and `write!` still a fifth of what is left (issue 14).
    let (mut p, mut traffic_path) = (String::new(), String::new());
    for (i, c) in f.connection.iter().enumerate() {
        p.clear();
        p.push_str("connection[");
        p.push_str(itoa::Buffer::new().format(i));
        p.push(']');
        if c.name.trim().is_empty() {
            return err(format!("{p}.name"), "must not be empty");
        }
        if names.insert(c.name.as_str(), i).is_some() {
            return err(
                format!("{p}.name"),
                format!(
                    "{:?} is used twice; connection names must be unique",
                    c.name
                ),
            );
        }
        traffic_path.clear();
        traffic_path.push_str(&p);
        traffic_path.push_str(".traffic");
        out.push(resolve_one(
            (&p, &traffic_path),
            c,
            (nodes, ports, &mut finder, &mut paths),
            (&mut budget, f.connection.len()),
            &defaults,
            &mut shared,
        )?);
        packed.push(&c.name);
    }
    out.shrink_to_fit();
    Ok(Connections {
        cfg: out,
        names: packed,
        paths: paths.finish(),
        index: names,
    })
}

struct Defaults {
    tcp: TcpSpec,
    abr: AbrSpec,
}

/// The TCP and ABR parameters and the cell-level applications resolved so far, one shared
/// copy of each distinct value: connections with equal parameters (usually all of them)
/// hold the same one, instead of 270 bytes each (issue 14, memory per VC). Values are equal when their `Debug` texts are,
/// which tells every field apart bit for bit (`-0.0` from `0.0` too), so sharing never
/// changes a connection's parameters. The text is written into one reused buffer and
/// kept only for a new value (set-up of large scenarios).
#[derive(Default)]
struct Shared {
    tcp: HashMap<String, Arc<TcpParams>>,
    abr: HashMap<String, Arc<AbrParams>>,
    app: HashMap<String, Arc<CellApp>>,
    text: String,
    /// The last parameters resolved from the defaults alone, and what else they depend on.
    from_defaults: Option<(FromDefaults, SharedParams)>,
}

/// A connection's shared TCP and ABR parameters.
type SharedParams = (Option<Arc<TcpParams>>, Option<Arc<AbrParams>>);

/// What a connection's parameters depend on when it sets none of its own (no `abr` table,
/// no `traffic.tcp` or `traffic.application`): then they are a function of these and the
/// `defaults` tables alone, so a connection with the same ones gets the same parameters
/// without resolving them again (set-up of large scenarios, issue 14).
#[derive(Clone, Copy, PartialEq)]
struct FromDefaults {
    class: ServiceClass,
    start: Time,
    /// The access link's rate (cells/s) as bits, compared exactly.
    access: u64,
    tcp: bool,
    llc_snap: Option<bool>,
}

/// Connection `c`'s TCP and ABR parameters, shared with the connections that have the same.
fn params(
    p: &str,
    c: &ConnectionSpec,
    (class, start, access): (ServiceClass, Time, f64),
    d: &Defaults,
    shared: &mut Shared,
) -> Result<SharedParams, ConfigError> {
    let key = from_defaults(c, class, start, access);
    if let (Some(k), Some((last, params))) = (key, &shared.from_defaults) {
        if k == *last {
            return Ok(params.clone());
        }
    }
    let mut abr = abr_params(p, c, class, &d.abr, access)?;
    let tcp = tcp_params(p, c, start, &d.tcp, abr.as_mut())?;
    let params = (
        tcp.map(|t| intern(&mut shared.tcp, &mut shared.text, t)),
        abr.map(|a| intern(&mut shared.abr, &mut shared.text, a)),
    );
    if let Some(k) = key {
        shared.from_defaults = Some((k, params.clone()));
    }
    Ok(params)
}

/// The inputs of `c`'s parameters besides the defaults, if it sets no parameters itself.
fn from_defaults(
    c: &ConnectionSpec,
    class: ServiceClass,
    start: Time,
    access: f64,
) -> Option<FromDefaults> {
    let tcp = match &c.traffic {
        TrafficSpec::Tcp(t) if t.tcp.is_some() || t.application.is_some() => return None,
        TrafficSpec::Tcp(_) => true,
        _ => false,
    };
    c.abr.is_none().then_some(FromDefaults {
        class,
        start,
        access: access.to_bits(),
        tcp,
        llc_snap: c.llc_snap,
    })
}

/// The shared copy of `v` in `table` (made the first time this value is seen); `text` is
/// scratch space for its `Debug` text.
fn intern<T: std::fmt::Debug>(
    table: &mut HashMap<String, Arc<T>>,
    text: &mut String,
    v: T,
) -> Arc<T> {
    use std::fmt::Write;
    text.clear();
    write!(text, "{v:?}").expect("writing to a String cannot fail");
    if let Some(shared) = table.get(text.as_str()) {
        return shared.clone();
    }
    let shared = Arc::new(v);
    table.insert(text.clone(), shared.clone());
    shared
}

fn resolve_one(
    (p, traffic_path): (&str, &str),
    c: &ConnectionSpec,
    (nodes, ports, finder, paths): (&Nodes, &Ports, &mut route::Finder, &mut PathsBuilder),
    (budget, connections): (&mut RouteBudget, usize),
    d: &Defaults,
    shared: &mut Shared,
) -> Result<ConnectionCfg, ConfigError> {
    let (from, to) = ends(p, c, nodes)?;
    let route = route::resolve(p, c, (from, to), nodes, ports, finder)?;
    budget
        .add(route.len(), paths.len(), connections)
        .map_err(|m| ConfigError::new(format!("{p}.route"), m))?;
    if !paths.fits(route.len()) {
        return err(
            format!("{p}.route"),
            format!(
                "the routes of the first {} connections cross more than {MAX_PATH_IDS} nodes and ports in all; allowed: at most that many",
                paths.len() + 1
            ),
        );
    }
    paths.push_through(&route, |a, b| {
        ports
            .port(a, b)
            .expect("a resolved route crosses linked nodes")
    });
    let access_port = paths.get(paths.len() - 1).fwd_ports()[0] as usize;
    let (start, stop) = timing(p, c)?;
    let class = service::class_of(c.service);
    let app = c.traffic.resolve(traffic_path, &start)?;
    service::check_class(p, class, c.traffic.name(), app.as_ref())?;
    let reserve = service::reserve(p, class, c.reserve)?;
    let access = ports.cfg.settings(access_port).rate_bps as f64 / CELL_BITS as f64;
    let (tcp, abr) = params(p, c, (class, start, access), d, shared)?;
    Ok(ConnectionCfg {
        class,
        start,
        // A stop at the last representable time is no stop: nothing happens after it.
        stop: stop
            .filter(|&t| t != Time::MAX)
            .map_or(MaybeTime::NONE, MaybeTime::some),
        llc_snap: c.llc_snap.unwrap_or(true),
        tcp,
        app: app.map(|a| intern(&mut shared.app, &mut shared.text, a)),
        abr,
        reserve,
        pre_established: c.setup == Some(SetupSpec::PreEstablished),
    })
}

/// Source and destination: two different hosts.
fn ends(p: &str, c: &ConnectionSpec, nodes: &Nodes) -> Result<(usize, usize), ConfigError> {
    let from = nodes.find(|| format!("{p}.from"), &c.from)?;
    let to = nodes.find(|| format!("{p}.to"), &c.to)?;
    for (key, n) in [("from", from), ("to", to)] {
        if nodes.cfg.kind(n) != NodeKind::Host {
            return err(
                format!("{p}.{key}"),
                format!(
                    "{:?} is a switch; connections start and end at hosts",
                    nodes.cfg.name(n)
                ),
            );
        }
    }
    if from == to {
        return err(
            format!("{p}.to"),
            format!(
                "{:?} is also the source; a connection needs two different hosts",
                c.to
            ),
        );
    }
    Ok((from, to))
}

/// Start (default 0 s) and an optional stop after it.
fn timing(p: &str, c: &ConnectionSpec) -> Result<(Time, Option<Time>), ConfigError> {
    let start = c.start.map(|d| d.ps()).unwrap_or(0);
    let stop = c.stop.map(|d| d.ps());
    if let (Some(st), Some(given)) = (stop, c.stop) {
        if st <= start {
            return err(
                format!("{p}.stop"),
                format!(
                    "{given} is not after start = {}",
                    c.start.map(|d| d.to_string()).unwrap_or("0 s".into())
                ),
            );
        }
    }
    Ok((start, stop))
}

/// ABR source parameters for an ABR connection; an `abr` table on any other is refused.
fn abr_params(
    p: &str,
    c: &ConnectionSpec,
    class: ServiceClass,
    defaults: &AbrSpec,
    access: f64,
) -> Result<Option<AbrParams>, ConfigError> {
    if class == ServiceClass::Abr {
        let own = c.abr.clone().unwrap_or_default();
        return Ok(Some(resolve_abr(
            &format!("{p}.abr"),
            &own,
            defaults,
            access,
        )?));
    }
    if c.abr.is_some() {
        return err(
            format!("{p}.abr"),
            format!(
                "ABR parameters are set but service = {:?}; use service = \"abr\" or remove the abr table",
                service::class_name(class)
            ),
        );
    }
    Ok(None)
}

/// TCP parameters of TCP traffic (over ABR: a source queue holds at least one segment);
/// for cell-level traffic, none, and `abr.source_queue` only from the defaults.
fn tcp_params(
    p: &str,
    c: &ConnectionSpec,
    start: Time,
    defaults: &TcpSpec,
    abr: Option<&mut AbrParams>,
) -> Result<Option<TcpParams>, ConfigError> {
    let TrafficSpec::Tcp(TcpTrafficSpec { tcp, application }) = &c.traffic else {
        if let Some(a) = abr {
            a.source_queue = None;
        }
        if c.abr.as_ref().is_some_and(|a| a.source_queue.is_some()) {
            return err(
                format!("{p}.abr.source_queue"),
                "is only for tcp traffic (cell-level applications keep their own backlog); remove it",
            );
        }
        return Ok(None);
    };
    let own = tcp.as_deref().cloned().unwrap_or_default();
    let mut t = resolve_tcp(&format!("{p}.traffic.tcp"), &own, defaults)?;
    t.app = resolve_tcp_app(
        &format!("{p}.traffic.application"),
        application.as_ref(),
        start,
        t.mss,
    )?;
    if let Some(q) = abr.and_then(|a| a.source_queue) {
        let seg = crate::aal5::cells_for_segment(t.mss, c.llc_snap.unwrap_or(true));
        if q < seg as u64 {
            return err(
                format!("{p}.abr.source_queue"),
                format!(
                    "{q} cells is below one segment ({seg} cells for MSS {} B); allowed: {seg} cells or more, or omit it for unlimited",
                    t.mss
                ),
            );
        }
    }
    Ok(Some(t))
}

#[cfg(test)]
#[path = "connection_tests.rs"]
mod tests;
