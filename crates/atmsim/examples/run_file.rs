//! Runs a scenario file (TOML, or JSON if its name ends in `.json`) and prints its summary:
//! `cargo run --release --example run_file -- FILE`. Used for profiling the engine without Python.
//! `FULL=1` also prints the connection and port tables, `FULL=2` the time series too.

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        eprintln!("usage: run_file SCENARIO.toml|SCENARIO.json");
        std::process::exit(2)
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2)
    });
    let result = if path.ends_with(".json") {
        atmsim::run_json(&text)
    } else {
        atmsim::run_toml(&text)
    };
    match result {
        Ok(r) => {
            if std::env::var("FULL").is_ok() {
                println!("{}", serde_json::to_string_pretty(&r.connections).unwrap());
                println!("{}", serde_json::to_string_pretty(&r.ports).unwrap());
            }
            if std::env::var("FULL").is_ok_and(|v| v == "2") {
                println!("{}", serde_json::to_string(&r.timeseries).unwrap());
            }
            println!("{}", serde_json::to_string_pretty(&r.summary).unwrap())
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
