//! Runs a TOML scenario and prints its summary: `cargo run --release --example run_file -- FILE`.
//! Used for profiling the engine without Python.

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        eprintln!("usage: run_file SCENARIO.toml");
        std::process::exit(2)
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2)
    });
    match atmsim::run_toml(&text) {
        Ok(r) => {
            if std::env::var("FULL").is_ok() {
                println!("{}", serde_json::to_string_pretty(&r.connections).unwrap());
                println!("{}", serde_json::to_string_pretty(&r.ports).unwrap());
            }
            println!("{}", serde_json::to_string_pretty(&r.summary).unwrap())
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
