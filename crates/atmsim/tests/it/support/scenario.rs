//! Scenario builders: TOML text for the public API ([`atmsim::run_toml`]), so that tests
//! state a topology in a few lines and keep working when the engine's types change.

use std::fmt::Write as _;

/// A scenario under construction: switches, links, and connections each with its own
/// source and destination host.
///
/// ```ignore
/// let text = Net::new("two sources", 7, "duration = \"50 ms\"", "allocator = { kind = \"erica\" }")
///     .switches(&["sw1", "sw2"])
///     .link("sw1", "sw2", "length = \"1 km\"")
///     .connection("c1", "sw1", "sw2", "length = \"1 km\"", "service = \"abr\"\ntraffic = { kind = \"persistent\" }")
///     .text();
/// ```
pub struct Net {
    text: String,
}

impl Net {
    /// The top of the file: `name`, `seed`, the lines of `[measurement]` and of `[defaults]`.
    pub fn new(name: &str, seed: u64, measurement: &str, defaults: &str) -> Self {
        Net {
            text: format!(
                "name = \"{name}\"\nseed = {seed}\n[measurement]\n{measurement}\n[defaults]\n{defaults}\n"
            ),
        }
    }

    /// Adds switches.
    pub fn switches(mut self, names: &[&str]) -> Self {
        for n in names {
            let _ = writeln!(self.text, "[[node]]\nname = \"{n}\"\nkind = \"switch\"");
        }
        self
    }

    /// Adds a link between two nodes; `keys` are its other lines (`length`, `rate`, ...).
    pub fn link(mut self, a: &str, b: &str, keys: &str) -> Self {
        let _ = writeln!(self.text, "[[link]]\nbetween = [\"{a}\", \"{b}\"]\n{keys}");
        self
    }

    /// Adds connection `name` from host `{name}_s`, linked to switch `first`, to host
    /// `{name}_d`, linked to switch `last`; both access links take the lines `access`.
    /// `body` holds the connection's other lines (`service`, `traffic`, ...). The route is
    /// the default one (fewest hops).
    pub fn connection(self, name: &str, first: &str, last: &str, access: &str, body: &str) -> Self {
        let (s, d) = (format!("{name}_s"), format!("{name}_d"));
        let mut net = self
            .hosts(&[&s, &d])
            .link(&s, first, access)
            .link(last, &d, access);
        let _ = writeln!(
            net.text,
            "[[connection]]\nname = \"{name}\"\nfrom = \"{s}\"\nto = \"{d}\"\n{body}"
        );
        net
    }

    /// Adds hosts.
    pub fn hosts(mut self, names: &[&str]) -> Self {
        for n in names {
            let _ = writeln!(self.text, "[[node]]\nname = \"{n}\"\nkind = \"host\"");
        }
        self
    }

    /// Appends raw TOML (e.g. `[[port]]` or `[[fault]]` tables).
    pub fn raw(mut self, toml: &str) -> Self {
        self.text += toml;
        self.text.push('\n');
        self
    }

    /// The TOML text.
    pub fn text(self) -> String {
        self.text
    }
}

/// A scenario of `n` TCP sources on the N-source topology (LAN lengths), with a given
/// switch buffer and policy table (TOML inline table text).
pub fn n_source(n: usize, buffer: &str, policy: &str, duration: &str, seed: u64) -> String {
    let mut s = format!(
        "seed = {seed}\n[measurement]\nduration = \"{duration}\"\nsample_interval = \"10 ms\"\n\
         [defaults]\nswitch_buffer = \"{buffer}\"\npolicy = {policy}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\ndelay = \"5 us\"\n"
    );
    for i in 1..=n {
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw1\"]\ndelay = \"5 us\"\n[[link]]\nbetween = [\"sw2\", \"d{i}\"]\ndelay = \"5 us\"\n\
             [[connection]]\nname = \"c{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\ntraffic = {{ kind = \"tcp\" }}\n"
        );
    }
    s
}
