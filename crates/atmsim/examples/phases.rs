//! Runs a JSON scenario phase by phase and prints each phase's wall time and the process's
//! resident memory and minor page faults after it (Linux):
//! `cargo run --release --example phases -- FILE.json`.
//! Used to see where the set-up of a large scenario goes (issue 14). A second argument,
//! `look-ahead=on`, `look-ahead=off` or `look-ahead=chosen`, overrides the run loop's
//! look-ahead at the events in the queue ([`atmsim::sim::Sim::set_look_ahead`]; the TCP
//! timers' hints stay as `ATMSIM_CACHE_HINTS` sets them) to time it on the same binary;
//! without it, `ATMSIM_CACHE_HINTS` applies as in every run.

use atmsim::sim::LookAhead;
use std::time::Instant;

/// `VmRSS` and `VmHWM` of this process, MB (empty off Linux).
fn memory() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let mb = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    format!(
        "resident {} MB, peak {} MB, page faults {}",
        mb("VmRSS:"),
        mb("VmHWM:"),
        minor_faults()
    )
}

/// This process's minor page faults so far (first touches of memory; field 10 of
/// `/proc/self/stat`, Linux), 0 where it cannot be read.
fn minor_faults() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    // The fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    rest.split_whitespace()
        .nth(7)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        eprintln!("usage: phases SCENARIO.json");
        std::process::exit(2)
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2)
    });
    let fail = |e: &dyn std::fmt::Display| -> ! {
        eprintln!("{e}");
        std::process::exit(1)
    };
    let t = Instant::now();
    let mut last = t.elapsed();
    let mut phase = |name: &str| {
        let now = t.elapsed();
        println!(
            "{name:<12} {:>9.1} ms   {}",
            (now - last).as_secs_f64() * 1e3,
            memory()
        );
        last = now;
    };
    println!("{:<12} {:>9} ms   {}", "start", "", memory());
    let file = atmsim::scenario::from_json_str(&text).unwrap_or_else(|e| fail(&e));
    phase("parse");
    let sc = atmsim::scenario::resolve::resolve(&file).unwrap_or_else(|e| fail(&e));
    phase("resolve");
    drop(file);
    phase("drop file");
    let guard = atmsim::memory_guard(&sc).unwrap_or_else(|e| fail(&e));
    phase("footprint");
    let mut sim = atmsim::sim::Sim::new(&sc);
    sim.set_memory_guard(guard);
    // ATMSIM_CACHE_HINTS as in every run (`atmsim::new_sim`), then the option below.
    sim.set_cache_hints(atmsim::sim::CacheHints::from_env().unwrap_or_else(|e| fail(&e)));
    match std::env::args().nth(2).as_deref() {
        Some("look-ahead=on") => sim.set_look_ahead(LookAhead::On),
        Some("look-ahead=off") => sim.set_look_ahead(LookAhead::Off),
        Some("look-ahead=chosen") => sim.set_look_ahead(LookAhead::Chosen),
        Some(other) => fail(&format!(
            "unknown option {other:?}: look-ahead=on, look-ahead=off or look-ahead=chosen"
        )),
        None => {}
    }
    phase("build");
    println!(
        "network state {:.1} MB, cache hints {}",
        sim.net.state_bytes() as f64 / 1e6,
        format!("{:?}", sim.look_ahead()).to_lowercase()
    );
    sim.run_guarded().unwrap_or_else(|e| fail(&e));
    phase("run");
    if sim.look_ahead() == LookAhead::Chosen {
        let (with, without) = sim.look_ahead_windows();
        println!("windows with hints {with}, without {without}");
    }
    let (hops, events) = (sim.totals.cell_hops, sim.q.events_processed());
    drop(sim);
    phase("drop sim");
    drop(sc);
    phase("drop scenario");
    println!("{hops} cell-hops, {events} events");
}
