//! The heavy-run guard (issue 18, item 1): a scenario whose values are each legal can still
//! ask for billions of events (a 1 ps timer, a CBR source at 1 Tbps, on/off periods of
//! 1 ps) and hang or exhaust memory. [`check`] estimates, from a resolved [`Scenario`], the
//! events per simulated second of every source, timer and port, and refuses the scenario
//! when one of them, or the sum of the sources and timers, passes
//! [`MAX_EVENTS_PER_SIM_SECOND`], naming the heaviest key, its value and the estimate. It
//! also refuses a cell source far above its access link ([`MAX_OVERLOAD`]), whose excess
//! would pile up in the host's queue.
//!
//! The estimate is an upper bound of the event loop's work (seed-independent): each busy port
//! costs two events per cell (transmit done, arrival), each source one event per cell it
//! emits, each timer one event per expiry. The ports' sum is not refused: it is the work of
//! every link running flat out, which a network of many hosts (10 000 host pairs behind one
//! trunk: 3e10 events per second on paper, 1e6 in fact) can never reach, so refusing on it
//! would refuse large networks, not absurd values (issue 14). A single port is still
//! bounded (a link rate of 1e300 bps is refused), and [`estimated_events`] keeps the ports in
//! for the up-front warning.

use super::{Scenario, ScenarioError, TcpApp};
use atmsim_kernel::{Time, PS_PER_S};

/// The most events per simulated second a scenario may need: about a minute of wall
/// clock per simulated second at the engine's typical 10-30 million events per second.
pub const MAX_EVENTS_PER_SIM_SECOND: f64 = 1e9;

/// A constant-rate or on/off source may ask for at most this multiple of its access link's
/// rate; beyond it the excess only fills the host's queue.
pub const MAX_OVERLOAD: f64 = 100.0;

/// The most time-series values a run may record (samples times series): about 100 MB in the
/// engine, and about 1 GB at its peak once handed to Python as JSON and tables (the fuzzer
/// found 1.5e7 values, 5003 TCP connections for 0.1 s, taking 1.5 GB in `atmsim.run`, past
/// its 2 GB limit with the rest). The largest reproduction records 5.6e6 (worst-case, N = 100).
pub const MAX_SERIES_VALUES: f64 = 1e7;

/// One contribution to the event rate: the key, its value as written, events per second.
#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    /// A port's transmissions (bounded one by one, not in sum: see the module doc).
    pub port: bool,
    /// Key path (or a description of where the value comes from).
    pub key: String,
    /// The value, in readable units.
    pub value: String,
    /// Estimated events per simulated second.
    pub events_per_s: f64,
}

/// Events per second of a timer firing every `period` picoseconds.
fn per_period(period: Time) -> f64 {
    PS_PER_S as f64 / period.max(1) as f64
}

fn secs(t: Time) -> String {
    crate::units::Duration(t).to_string()
}

/// A duration of at least `t`, rounded up to three significant digits in the unit that
/// reads best (`2300500000 ps` -> `"2.31 ms"`): for a suggestion, not a value to copy back
/// exactly.
fn secs_at_least(t: Time) -> String {
    let units = [
        (atmsim_kernel::PS_PER_S, "s"),
        (atmsim_kernel::PS_PER_MS, "ms"),
        (atmsim_kernel::PS_PER_US, "us"),
        (1_000, "ns"),
        (1, "ps"),
    ];
    // Rounded up to three significant digits, in whole picoseconds.
    let digits = t.max(1).ilog10();
    let step = 10u64.pow(digits.saturating_sub(2));
    let up = t.max(1).div_ceil(step).saturating_mul(step);
    let (per, unit) = units
        .into_iter()
        .find(|&(per, _)| up >= per)
        .unwrap_or((1, "ps"));
    let (whole, frac) = (up / per, up % per);
    if frac == 0 {
        return format!("{whole} {unit}");
    }
    let width = per.ilog10() as usize;
    let frac = format!("{frac:0width$}");
    format!("{whole}.{} {unit}", frac.trim_end_matches('0'))
}

/// A count as people read it: whole below 10^15, else with an exponent.
fn count(x: f64) -> String {
    if x < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.6e}")
    }
}

fn bps(cells_per_s: f64) -> String {
    format!("{} bps", cells_per_s * 424.0)
}

/// Every contribution to the scenario's event rate.
pub fn loads(sc: &Scenario) -> Vec<Load> {
    let mut out = Vec::new();
    visit_loads(sc, &mut |port, events_per_s, describe| {
        let (key, value) = describe();
        out.push(Load {
            port,
            key,
            value,
            events_per_s,
        })
    });
    out
}

/// What a contribution is: its key and its value in readable units, written out only when
/// needed (at 10 000 VCs writing them for every port and timer was a tenth of resolving the
/// scenario, and only a refusal shows one).
type Describe<'a> = &'a dyn Fn() -> (String, String);

/// Calls `f(port, events_per_s, describe)` for every contribution to the scenario's event
/// rate, in a fixed order ([`loads`] lists them).
fn visit_loads(sc: &Scenario, f: &mut dyn FnMut(bool, f64, Describe)) {
    if let Some(si) = sc.sample_interval {
        let d = || ("measurement.sample_interval".into(), secs(si));
        f(false, per_period(si), &d);
    }
    let mut used = vec![false; sc.ports.len()];
    for c in sc.paths.iter() {
        for &p in c.fwd_ports().iter().chain(c.bwd_ports()) {
            if let Some(u) = used.get_mut(p as usize) {
                *u = true;
            }
        }
    }
    for (p, port) in sc.ports.iter().enumerate() {
        if used[p] {
            let cells = port.settings.rate_bps as f64 / 424.0;
            let d = || {
                (
                    format!(
                        "rate of port {:?} (its link's rate, or defaults.link_rate)",
                        port.name(&sc.nodes)
                    ),
                    bps(cells),
                )
            };
            f(true, 2.0 * cells, &d);
        }
        if let Some(e) = port.settings.allocator.erica() {
            let d = || {
                let key = format!("interval_time of port {:?}", port.name(&sc.nodes));
                (key, secs(e.interval_time))
            };
            f(false, per_period(e.interval_time), &d);
        }
    }
    let run_s = sc.duration.max(1) as f64 / PS_PER_S as f64;
    for (i, c) in sc.connections.iter().enumerate() {
        let at = |k: &str| format!("connection[{i}].{k}");
        if let Some(app) = &c.app {
            // Each kind states its own loads (`TrafficCfg::event_loads`, in its file).
            let path = sc.path(i);
            for l in app.event_loads(path.fwd_ports().len() + path.bwd_ports().len()) {
                f(false, l.events_per_s, &|| (at(l.key), l.value.clone()));
            }
        }
        if let Some(t) = &c.tcp {
            if let Some(tick) = t.tick {
                let key = "traffic.tcp.timer_granularity (or defaults.tcp)";
                f(false, per_period(tick), &|| (at(key), secs(tick)));
            }
            if let TcpApp::Periodic {
                interval, segments, ..
            } = t.app
            {
                let rate = per_period(interval).min(segments as f64 / run_s);
                let key = "traffic.application.segment_interval";
                f(false, rate, &|| (at(key), secs(interval)));
            }
        }
        if let Some(a) = &c.abr {
            f(false, a.tcr, &|| {
                (at("abr.tcr (or defaults.abr)"), bps(a.tcr))
            });
            let trm = "abr.trm (or defaults.abr)";
            f(false, per_period(a.trm), &|| (at(trm), secs(a.trm)));
        }
    }
}

/// Refuses a scenario one of whose ports, sources or timers, or whose sources and timers
/// together, would need more than [`MAX_EVENTS_PER_SIM_SECOND`] events per simulated
/// second, or whose constant-rate source is far above its access link.
pub fn check(sc: &Scenario) -> Result<(), ScenarioError> {
    check_overload(sc)?;
    check_series(sc)?;
    // The sums and the heaviest contributions by number first (the last of equal ones, as
    // `Iterator::max_by` picks); only the one refused is written out.
    let (mut total, mut timed, mut n) = (0.0f64, 0.0f64, 0usize);
    // (index in visiting order, events per second)
    let mut worst: Option<(usize, f64)> = None;
    let mut worst_timed: Option<(usize, f64)> = None;
    visit_loads(sc, &mut |port, e, _| {
        total += e;
        keep_heaviest(&mut worst, n, e);
        if !port {
            timed += e;
            keep_heaviest(&mut worst_timed, n, e);
        }
        n += 1;
    });
    let Some(worst) = worst else {
        return Ok(());
    };
    if worst.1 <= MAX_EVENTS_PER_SIM_SECOND && timed <= MAX_EVENTS_PER_SIM_SECOND {
        return Ok(());
    }
    let (index, events_per_s) = if worst.1 > MAX_EVENTS_PER_SIM_SECOND {
        worst
    } else {
        worst_timed.expect("a sum above the bound has a part")
    };
    let (key, value) = describe_load(sc, index);
    // A port is bounded alone, by its rate: say what rate that allows.
    let port_note = if key.starts_with("rate of port") {
        format!(
            " (a port at its line rate takes two events a cell: a link of at most {:.0} Gbps)",
            MAX_EVENTS_PER_SIM_SECOND / 2.0 * 424.0 / 1e9
        )
    } else {
        String::new()
    };
    Err(ScenarioError::new(
        key,
        format!(
            "{} makes the run too heavy: about {:.3e} events per simulated second \
             ({:.3e} in all, {:.3e} for the whole run); allowed: at most {:.0e} per simulated \
             second{}",
            value,
            events_per_s,
            total,
            total * sc.duration as f64 / PS_PER_S as f64,
            MAX_EVENTS_PER_SIM_SECOND,
            port_note
        ),
    ))
}

/// Keeps `(n, e)` in `heaviest` if `e` is at least as heavy (the last of equal ones wins).
fn keep_heaviest(heaviest: &mut Option<(usize, f64)>, n: usize, e: f64) {
    if heaviest.is_none_or(|(_, w)| e.total_cmp(&w).is_ge()) {
        *heaviest = Some((n, e));
    }
}

/// The key and readable value of the contribution at `index` in [`visit_loads`]'s order.
fn describe_load(sc: &Scenario, index: usize) -> (String, String) {
    let (mut n, mut found) = (0usize, None);
    visit_loads(sc, &mut |_, _, describe| {
        if n == index {
            found = Some(describe());
        }
        n += 1;
    });
    found.expect("the index of a visited contribution")
}

/// The most a cell-level source can send into its first port, cells/s, and the key that
/// sets it: a CBR rate, an on/off peak, or a greedy ABR source's PCR (its ACR may reach it,
/// and the host's queue does not hold it back: the forward RM cells wait in that queue too).
fn source_rate(c: &super::ConnectionCfg) -> Option<(&'static str, f64)> {
    let app = c.app.as_deref()?;
    match (app.peak_rate(), &c.abr) {
        (Some(peak), _) => Some(peak),
        (None, Some(a)) if app.greedy_under_abr() => Some(("abr.pcr (or defaults.abr)", a.pcr)),
        _ => None,
    }
}

/// A CBR source or an on/off source's peak more than [`MAX_OVERLOAD`] times its first link;
/// or the cell-level sources that share a first port (one host's link) asking together for
/// more than [`MAX_OVERLOAD`] times its rate (the fuzzer found 1001 greedy ABR sources on one
/// host link filling its queue at 300 million cells per simulated second, past 2 GB in 0.05 s).
fn check_overload(sc: &Scenario) -> Result<(), ScenarioError> {
    let mut together = vec![(0.0f64, 0usize); sc.ports.len()];
    for (i, c) in sc.connections.iter().enumerate() {
        let Some((key, rate)) = source_rate(c) else {
            continue;
        };
        let Some((p, link)) = sc
            .path(i)
            .fwd_ports()
            .first()
            .and_then(|&p| sc.ports.get(p as usize).map(|l| (p as usize, l)))
        else {
            continue;
        };
        let link_cells = link.settings.rate_bps as f64 / 424.0;
        let (sum, n) = together[p];
        together[p] = (sum + rate, n + 1);
        if n > 0 && together[p].0 > MAX_OVERLOAD * link_cells {
            return Err(ScenarioError::new(
                format!("connection[{i}].{key}"),
                format!(
                    "the {} cell sources that start at port {:?} can send {:.1} Mbps together (their \
                     rate, peak_rate or ABR pcr), {:.0} times its rate of {} bps; allowed: at most \
                     {MAX_OVERLOAD} times (the excess would only pile up at the source or in its host's port)",
                    n + 1,
                    link.name(&sc.nodes),
                    together[p].0 * 424.0 / 1e6,
                    together[p].0 / link_cells,
                    link.settings.rate_bps
                ),
            ));
        }
        if rate > MAX_OVERLOAD * link_cells {
            return Err(ScenarioError::new(
                format!("connection[{i}].{key}"),
                format!(
                    "{} is {:.0} times the rate of its first link {:?} ({} bps); allowed: at most \
                     {MAX_OVERLOAD} times (the excess would only pile up at the source or in its host's port, \
                     about {:.3e} events per simulated second)",
                    bps(rate),
                    rate / link_cells,
                    link.name(&sc.nodes),
                    link.settings.rate_bps,
                    rate
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a sample interval that would record more than [`MAX_SERIES_VALUES`] values:
/// every sample holds 5 values per port, 3 per connection and 2 per ABR direction (an upper
/// bound of what `metrics::Recorder` keeps).
fn check_series(sc: &Scenario) -> Result<(), ScenarioError> {
    let Some(si) = sc.sample_interval else {
        return Ok(());
    };
    let samples = (sc.duration / si.max(1)) as f64 + 1.0;
    let abr = sc.connections.iter().filter(|c| c.abr.is_some()).count();
    let per_sample = 5 * sc.ports.len() + 3 * sc.connections.len() + 4 * abr;
    let values = samples * per_sample as f64;
    if values <= MAX_SERIES_VALUES {
        return Ok(());
    }
    // The shortest interval that passes: `floor(duration / si) + 1` samples of `per_sample`
    // values at most MAX_SERIES_VALUES, i.e. fewer than `n` whole intervals in the run.
    let n = (MAX_SERIES_VALUES / per_sample as f64).floor() as u64;
    let longer = match n {
        0 => "no interval records few enough: one sample is already too many".to_string(),
        _ => format!(
            "take a longer interval (at least {})",
            secs_at_least(sc.duration / n + 1)
        ),
    };
    Err(ScenarioError::new(
        "measurement.sample_interval",
        format!(
            "{} records {} samples of {per_sample} values over the run ({} values); allowed: \
             at most {MAX_SERIES_VALUES:.0e} values: {longer}, or \"0 s\" for no time series",
            secs(si),
            count(samples),
            count(values),
        ),
    ))
}

/// Estimated events of the whole run (for an up-front warning).
pub fn estimated_events(sc: &Scenario) -> f64 {
    let mut total = 0.0;
    visit_loads(sc, &mut |_, e, _| total += e);
    total * sc.duration as f64 / PS_PER_S as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_durations_round_up_in_a_readable_unit_and_counts_read_plainly() {
        for (ps, text) in [
            (2_300_500_000, "2.31 ms"),
            (2_300_000_000, "2.3 ms"),
            (1_000_000_000_000, "1 s"),
            (1_000_000_000_001, "1.01 s"),
            (999, "999 ps"),
            (1, "1 ps"),
            (45_000_000, "45 us"),
            (1_100_000_000, "1.1 ms"),
            (123_456_789, "124 us"),
            (5_000_000_000_000_000_001, "5010000 s"),
        ] {
            assert_eq!(secs_at_least(ps), text, "{ps} ps");
            if let Ok(back) = crate::units::Duration::parse(text) {
                assert!(back.0 >= ps, "{text} is less than {ps} ps");
            }
        }
        assert_eq!(count(1001.0), "1001");
        assert_eq!(count(10_000_030.0), "10000030");
        assert_eq!(count(2.5e16), "2.500000e16");
    }

    #[test]
    fn the_shortest_sample_interval_suggested_passes() {
        // For runs and networks of several sizes: the interval the refusal suggests is
        // accepted (an earlier suggestion was refused in turn), and a bit shorter is not.
        for (duration, conns) in [("0.1 s", 1), ("0.5 s", 3), ("20 s", 40), ("3 ms", 7)] {
            let mut t = String::new();
            for i in 0..conns {
                t.push_str(&format!(
                    "[[connection]]\nname = \"c{i}\"\nfrom = \"a\"\nto = \"b\"\n\
                     [connection.traffic]\nkind = \"tcp\"\n"
                ));
            }
            let text = BASE.replace("0.1 s", duration);
            let f = crate::scenario::from_toml_str(&format!("{text}\n{t}")).expect("parses");
            let mut sc = crate::scenario::resolve::resolve_unchecked(&f).expect("resolves");
            sc.sample_interval = Some(1);
            let e = check(&sc).unwrap_err();
            let at_least = e
                .message
                .split("(at least ")
                .nth(1)
                .and_then(|r| r.split(')').next())
                .unwrap_or_else(|| panic!("no suggestion: {e}"));
            let si = crate::units::Duration::parse(at_least).unwrap().0;
            sc.sample_interval = Some(si);
            check(&sc).unwrap_or_else(|e| panic!("{duration}, {conns}: {at_least} refused: {e}"));
            sc.sample_interval = Some(si * 9 / 10);
            assert!(
                check(&sc).is_err(),
                "{duration}, {conns}: 0.9 x {at_least} passes"
            );
        }
    }

    const BASE: &str = r#"
        name = "t"
        [measurement]
        duration = "0.1 s"
        [[node]]
        name = "a"
        kind = "host"
        [[node]]
        name = "b"
        kind = "host"
        [[link]]
        between = ["a", "b"]
        rate = "155.52 Mbps"
        length = "1 km"
    "#;

    fn with(traffic: &str) -> Scenario {
        let text =
            format!("{BASE}\n[[connection]]\nname = \"c\"\nfrom = \"a\"\nto = \"b\"\n{traffic}\n");
        crate::scenario::from_toml_str(&text)
            .and_then(|f| crate::scenario::resolve::resolve_unchecked(&f))
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn an_ordinary_tcp_run_passes() {
        let sc = with("[connection.traffic]\nkind = \"tcp\"");
        check(&sc).unwrap();
        let e = estimated_events(&sc);
        assert!(e > 1e4 && e < 1e8, "{e}");
    }

    #[test]
    fn a_cbr_source_far_above_its_link_is_refused() {
        let sc = with("[connection.traffic]\nkind = \"cbr\"\nrate = \"1000 Gbps\"");
        let e = check(&sc).unwrap_err();
        assert_eq!(e.path, "connection[0].traffic.rate");
        assert!(
            e.message.contains("times the rate of its first link"),
            "{e}"
        );
        let ok = with("[connection.traffic]\nkind = \"cbr\"\nrate = \"300 Mbps\"");
        check(&ok).unwrap();
    }

    #[test]
    fn many_greedy_sources_on_one_host_link_are_refused() {
        let conns = |n: usize| {
            let mut t = String::new();
            for i in 0..n {
                t.push_str(&format!(
                    "[[connection]]\nname = \"c{i}\"\nfrom = \"a\"\nto = \"b\"\nservice = \"abr\"\n\
                     [connection.traffic]\nkind = \"persistent\"\n"
                ));
            }
            let f = crate::scenario::from_toml_str(&format!("{BASE}\n{t}")).expect("parses");
            crate::scenario::resolve::resolve_unchecked(&f).expect("resolves")
        };
        check(&conns(100)).unwrap(); // 100 times the link: allowed
        let e = check(&conns(101)).unwrap_err();
        assert_eq!(e.path, "connection[100].abr.pcr (or defaults.abr)");
        assert!(
            e.message
                .starts_with("the 101 cell sources that start at port \"a->b\""),
            "{e}"
        );
        assert!(e.message.contains("send 15707.5 Mbps together"), "{e}");
        assert!(
            e.message.contains("101 times its rate of 155520000 bps"),
            "{e}"
        );
    }

    #[test]
    fn one_ps_on_off_periods_are_refused() {
        let sc = with(
            "[connection.traffic]\nkind = \"on_off\"\npeak_rate = \"10 Mbps\"\non = \"1 ps\"\noff = \"1 ps\"",
        );
        let e = check(&sc).unwrap_err();
        assert_eq!(e.path, "connection[0].traffic.on/off");
        assert!(e.message.contains("events per simulated second"), "{e}");
    }

    #[test]
    fn a_one_ps_timer_granularity_is_refused() {
        let sc = with(
            "[connection.traffic]\nkind = \"tcp\"\n[connection.traffic.tcp]\ntimer_granularity = \"1 ps\"",
        );
        let e = check(&sc).unwrap_err();
        assert!(e.path.contains("timer_granularity"), "{e}");
        assert!(e.message.starts_with("1 ps makes the run too heavy"), "{e}");
    }

    #[test]
    fn a_one_ps_sample_interval_is_refused() {
        let mut sc = with("[connection.traffic]\nkind = \"tcp\"");
        sc.sample_interval = Some(1);
        let e = check(&sc).unwrap_err();
        assert_eq!(e.path, "measurement.sample_interval");
    }

    #[test]
    fn a_time_series_too_big_for_memory_is_refused() {
        let mut sc = with("[connection.traffic]\nkind = \"tcp\"");
        sc.sample_interval = Some(50_000); // 50 ns over 0.1 s: 2e6 samples
        sc.duration = 100 * atmsim_kernel::PS_PER_MS;
        let mut big = sc.clone();
        for _ in 0..3 {
            big.ports.extend(&sc.ports);
        }
        let e = check(&big).unwrap_err();
        assert_eq!(e.path, "measurement.sample_interval");
        assert!(e.message.contains("allowed: at most 1e7 values"), "{e}");
        sc.sample_interval = Some(atmsim_kernel::PS_PER_MS);
        check(&sc).unwrap();
    }

    #[test]
    fn ten_ns_sessions_are_refused_and_100_ms_sessions_pass() {
        let t = |on: &str, off: &str| {
            with(&format!(
                "service = \"abr\"\n[connection.traffic]\nkind = \"sessions\"\non = \"{on}\"\noff = \"{off}\""
            ))
        };
        assert!(check(&t("1 ps", "10 ns")).is_err());
        check(&t("100 ms", "100 ms")).unwrap();
    }

    #[test]
    fn many_ports_pass_but_one_absurd_port_is_refused() {
        // 20 000 host ports at 155.52 Mbit/s: 1.5e10 events per second if every link ran
        // flat out, which hosts behind a shared trunk never do (issue 14, scale).
        let mut sc = with("[connection.traffic]\nkind = \"tcp\"");
        sc.sample_interval = None;
        let mut big = sc.clone();
        while big.ports.len() < 20_000 {
            big.ports.extend(&sc.ports);
        }
        // Each connection's data crosses every even port and its ACKs every odd one.
        let fwd: Vec<usize> = (0..big.ports.len()).step_by(2).collect();
        let bwd: Vec<usize> = (1..big.ports.len()).step_by(2).collect();
        let mut paths = crate::scenario::PathsBuilder::default();
        for _ in &big.connections {
            paths.push(&vec![0; fwd.len() + 1], &fwd, &bwd);
        }
        big.paths = paths.finish();
        check(&big).unwrap();
        let per_s: f64 = loads(&big).iter().map(|l| l.events_per_s).sum();
        assert!(per_s > 1e9, "{per_s}");
        let mut fast = sc.clone();
        let mut absurd = fast.ports.settings(0).clone();
        absurd.rate_bps = 1_000_000_000_000_000;
        let k = fast.ports.add_settings(absurd);
        fast.ports.set_settings(0, k);
        let e = check(&fast).unwrap_err();
        assert!(e.path.starts_with("rate of port"), "{e}");
        assert!(
            e.path.ends_with("(its link's rate, or defaults.link_rate)"),
            "{e}"
        );
        assert!(e.message.ends_with("a link of at most 212 Gbps)"), "{e}");
    }

    #[test]
    fn ten_thousand_ten_ns_timers_are_refused_in_sum() {
        let sc = with(
            "[connection.traffic]\nkind = \"tcp\"\n[connection.traffic.tcp]\ntimer_granularity = \"10 ns\"",
        );
        check(&sc).unwrap();
        let mut many = sc.clone();
        let mut paths = crate::scenario::PathsBuilder::from(&sc.paths);
        for i in 0..15 {
            many.connections.push(sc.connections[0].clone());
            paths.push_copy(sc.path(0));
            many.connection_names.push(&format!("copy {i}"));
        }
        many.paths = paths.finish();
        let e = check(&many).unwrap_err();
        assert!(e.path.contains("timer_granularity"), "{e}");
    }

    #[test]
    fn one_ps_sessions_are_refused() {
        let sc = with(
            "service = \"abr\"\n[connection.traffic]\nkind = \"sessions\"\non = \"1 ps\"\noff = \"1 ps\"",
        );
        let e = check(&sc).unwrap_err();
        assert_eq!(e.path, "connection[0].traffic.on/off");
    }
}
