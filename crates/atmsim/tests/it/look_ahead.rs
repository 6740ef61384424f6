//! The run loop's cache hints (issue 14, `sim::prefetch`) change only the time a run
//! takes: with them on, every scenario gives the same bits as with them off, on both
//! loops (a plain run and a run under a budget), and so it does with them chosen window by
//! window (`sim::look_ahead`), with windows of a few events and the run cut into slices.
//! The look-ahead at the events in the queue is chosen while the run goes by default only
//! for a network whose state is larger than a processor's caches (else off); the tick-mode
//! TCP timers' hints are on by default at every size.

use crate::grid::abr::{allocators, TOPOLOGIES};
use crate::support::scenario::n_source;
use crate::support::{fingerprint, small_toml};
use atmsim::result::RunResult;
use atmsim::sim::{LookAhead, Sim};

/// The fingerprint of `text` run with the hints `on` (both kinds: the look-ahead and the
/// tick-mode timers') or off, by [`Sim::run`] or, if `bounded`, by [`Sim::run_bounded`]
/// with no limit.
fn run_with_hints(text: &str, on: bool, bounded: bool) -> String {
    use atmsim::sim::CacheHints;
    let sc = atmsim::scenario::load_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut sim = Sim::new(&sc);
    sim.set_cache_hints(if on { CacheHints::On } else { CacheHints::Off });
    let mode = if on { LookAhead::On } else { LookAhead::Off };
    assert_eq!((sim.look_ahead(), sim.tick_hints()), (mode, on));
    if bounded {
        assert_eq!(sim.run_bounded(u64::MAX, None), None);
    } else {
        sim.run();
    }
    fingerprint(&RunResult::collect(sim, &sc, 0.0))
}

/// Scenarios that take every hinted event through its paths: every ABR grid topology
/// under every allocator (greedy and bursty sources: send opportunities, RM cells,
/// backward RM cells at peers; TCP over ABR), TCP over UBR with frame-dropping policies
/// (transmissions, arrivals, deliveries, drops), and the small example.
fn scenarios() -> Vec<String> {
    let mut all = vec![
        n_source(
            4,
            "300 cells",
            "{ kind = \"fba\", threshold = \"50 %\", z = 0.8 }",
            "0.2 s",
            3,
        ),
        n_source(3, "200 cells", "{ kind = \"ppd\" }", "0.2 s", 5),
        small_toml(),
    ];
    for (_, allocator) in allocators() {
        for (_, topology) in TOPOLOGIES {
            all.push(topology(&allocator));
        }
    }
    all
}

/// The fingerprint of `text` run with the look-ahead chosen in windows of `window` events,
/// in slices of `slice` of simulated time (each [`Sim::run_until`] ends in the middle of a
/// window), or if `bounded` by [`Sim::run_bounded`] with no limit; also the windows run
/// with the hints and without.
fn run_chosen(
    text: &str,
    window: u32,
    slice: atmsim_kernel::Time,
    bounded: bool,
) -> (String, (u64, u64)) {
    let sc = atmsim::scenario::load_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut sim = Sim::new(&sc);
    sim.choose_look_ahead(window);
    assert_eq!(sim.look_ahead(), LookAhead::Chosen);
    let mut t = 0;
    if bounded {
        assert_eq!(sim.run_bounded(u64::MAX, None), None);
    }
    while t < sc.duration {
        t = (t + slice).min(sc.duration);
        sim.run_until(t);
    }
    let windows = sim.look_ahead_windows();
    (fingerprint(&RunResult::collect(sim, &sc, 0.0)), windows)
}

#[test]
fn hints_change_no_result() {
    for text in scenarios() {
        let off = run_with_hints(&text, false, false);
        assert_eq!(run_with_hints(&text, true, false), off, "{text}");
        assert_eq!(run_with_hints(&text, true, true), off, "bounded: {text}");
    }
}

#[test]
fn hints_chosen_window_by_window_change_no_result() {
    for text in scenarios() {
        let off = run_with_hints(&text, false, false);
        // Windows of 3 events: every trial and kept stretch many times over, whichever
        // side the clock favours; slices of 0.7 ms cut windows in two (or one run under
        // a budget, which times the same windows).
        for bounded in [false, true] {
            let (chosen, (with, without)) = run_chosen(&text, 3, 700_000_000, bounded);
            assert_eq!(chosen, off, "bounded {bounded}: {text}");
            assert!(
                with > 0 && without > 0,
                "bounded {bounded}: {with} windows with hints, {without} without"
            );
        }
    }
}

/// `n` greedy ABR VCs, one host pair each, across sw1 -> sw2 with ERICA at the switch ports
/// (the scale benchmark's ERICA bottleneck row), run for 1 us.
fn host_pairs(n: usize) -> String {
    let mut t = String::from(
        "name = \"pairs\"\nseed = 1\n[measurement]\nduration = \"1 us\"\nsample_interval = \"0 s\"\n\
         [defaults]\nallocator = { kind = \"erica\" }\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\ndelay = \"1 ms\"\n",
    );
    for i in 0..n {
        t += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw1\"]\ndelay = \"1 ms\"\n\
             [[link]]\nbetween = [\"sw2\", \"d{i}\"]\ndelay = \"1 ms\"\n\
             [[connection]]\nname = \"c{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\n\
             route = [\"s{i}\", \"sw1\", \"sw2\", \"d{i}\"]\nservice = \"abr\"\n\
             traffic = {{ kind = \"persistent\" }}\n"
        );
    }
    t
}

#[test]
fn hints_are_chosen_only_for_a_network_larger_than_the_caches() {
    let threshold = atmsim::sim::LOOK_AHEAD_BYTES;
    for (n, on) in [(10, false), (10_000, true)] {
        let sc = atmsim::scenario::load_toml(&host_pairs(n)).unwrap();
        let sim = Sim::new(&sc);
        assert!(
            sim.tick_hints(),
            "{n} VCs: the timers' hints are on by default"
        );
        let mode = if on {
            LookAhead::Chosen
        } else {
            LookAhead::Off
        };
        assert_eq!(
            sim.look_ahead(),
            mode,
            "{n} VCs: {} bytes",
            sim.net.state_bytes()
        );
        assert_eq!(sim.net.state_bytes() >= threshold, on);
    }
}

#[test]
fn the_hints_setting_forces_them_either_way_or_leaves_the_default() {
    use atmsim::sim::CacheHints;
    for (n, default) in [(10, LookAhead::Off), (10_000, LookAhead::Chosen)] {
        let sc = atmsim::scenario::load_toml(&host_pairs(n)).unwrap();
        let mut sim = Sim::new(&sc);
        for (hints, mode) in [
            (CacheHints::On, LookAhead::On),
            (CacheHints::Off, LookAhead::Off),
            (CacheHints::Auto, default),
        ] {
            sim.set_cache_hints(hints);
            assert_eq!(sim.look_ahead(), mode, "{n} VCs, {hints:?}");
            // The tick-mode timers' hints are on at every size unless the hints are off.
            assert_eq!(
                sim.tick_hints(),
                hints != CacheHints::Off,
                "{n} VCs, {hints:?}"
            );
        }
    }
}

#[test]
fn the_hints_setting_reads_its_three_words_and_names_what_it_takes_otherwise() {
    use atmsim::sim::{CacheHints, HINTS_VARIABLE};
    for (text, hints) in [
        ("auto", CacheHints::Auto),
        ("on", CacheHints::On),
        (" ON ", CacheHints::On),
        ("off", CacheHints::Off),
        ("Off", CacheHints::Off),
    ] {
        assert_eq!(CacheHints::parse(text), Ok(hints), "{text:?}");
    }
    let mib = atmsim::sim::LOOK_AHEAD_BYTES as f64 / f64::from(1u32 << 20);
    let threshold = format!("is {mib} MiB or more");
    for bad in ["yes", "1", "onn", "auto off", ""] {
        let e = CacheHints::parse(bad).unwrap_err();
        for w in [
            HINTS_VARIABLE,
            &format!("{bad:?}"),
            "\"auto\"",
            "\"on\"",
            "\"off\"",
            &threshold,
        ] {
            assert!(e.contains(w), "{w} not in {e}");
        }
    }
}
