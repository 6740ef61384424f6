//! Malformed or inconsistent scenarios: one clear error naming the key, never a panic.

use crate::support::run_err as err;
use crate::support::scenario::n_source;

fn base() -> String {
    n_source(
        2,
        "1000 cells",
        "{ kind = \"epd\", threshold = \"80 %\" }",
        "0.1 s",
        1,
    )
}

#[test]
fn unknown_keys_are_named() {
    let e = err(&format!("colour = \"red\"\n{}", base()));
    assert!(e.contains("colour"), "{e}");
    let e = err(&base().replace(
        "duration = \"0.1 s\"",
        "duration = \"0.1 s\"\nwarmpu = \"1 s\"",
    ));
    assert!(e.contains("measurement") && e.contains("warmpu"), "{e}");
}

#[test]
fn bad_units_name_the_key_and_the_allowed_units() {
    let e = err(&base().replace("[defaults]", "[defaults]\nlink_rate = \"155 furlongs\""));
    assert!(
        e.contains("defaults.link_rate") && e.contains("Mbps"),
        "{e}"
    );
    let e = err(&base().replace("[defaults]", "[defaults]\nlink_rate = 155"));
    assert!(
        e.contains("defaults.link_rate") && e.contains("unit is missing"),
        "{e}"
    );
    let e = err(&base().replace("duration = \"0.1 s\"", "duration = \"0.1 parsecs\""));
    assert!(e.contains("measurement.duration"), "{e}");
}

#[test]
fn negative_buffer_is_refused() {
    let e = err(&base().replace(
        "switch_buffer = \"1000 cells\"",
        "switch_buffer = \"-5 cells\"",
    ));
    assert!(
        e.contains("defaults.switch_buffer") && e.contains("cells"),
        "{e}"
    );
}

#[test]
fn route_through_a_missing_link() {
    let t = base().replace(
        "name = \"c1\"\nfrom = \"s1\"\nto = \"d1\"\n",
        "name = \"c1\"\nfrom = \"s1\"\nto = \"d1\"\nroute = [\"s1\", \"sw2\", \"d1\"]\n",
    );
    let e = err(&t);
    assert!(
        e.contains("connection[0].route[1]") && e.contains("no link joins"),
        "{e}"
    );
}

#[test]
fn undefined_nodes_are_listed() {
    let t = base().replace("to = \"d1\"", "to = \"d9\"");
    let e = err(&t);
    assert!(
        e.contains("connection[0].to") && e.contains("\"d9\"") && e.contains("defined nodes"),
        "{e}"
    );
}

#[test]
fn inconsistent_values() {
    let e = err(&base().replace("duration = \"0.1 s\"", "duration = \"0 s\""));
    assert!(e.contains("measurement.duration"), "{e}");
    let e = err(&base().replace(
        "duration = \"0.1 s\"",
        "duration = \"0.1 s\"\nwarmup = \"1 s\"",
    ));
    assert!(e.contains("measurement.warmup"), "{e}");
    let e = err(&base().replace("threshold = \"80 %\"", "threshold = \"180 %\""));
    assert!(
        e.contains("defaults.policy.threshold") && e.contains("100 %"),
        "{e}"
    );
    let e = err(&base().replace(
        "switch_buffer = \"1000 cells\"",
        "switch_buffer = \"unlimited\"",
    ));
    assert!(
        e.contains("threshold") && e.contains("finite buffer"),
        "{e}"
    );
    let e = err(&base().replace(
        "[defaults]",
        "[defaults]\ntcp = { window = \"600000 B\", window_scaling = false }",
    ));
    assert!(
        e.contains("defaults.tcp.window") && e.contains("window_scaling"),
        "{e}"
    );
    let e = err(&base().replace(
        "traffic = { kind = \"tcp\" }",
        "service = \"cbr\"\ntraffic = { kind = \"tcp\" }",
    ));
    assert!(
        e.contains("connection[0].service") && e.contains("\"abr\", \"ubr\""),
        "{e}"
    );
    let e = err(&base().replace(
        "name = \"d1\"\nkind = \"host\"",
        "name = \"s1\"\nkind = \"host\"",
    ));
    assert!(e.contains("node[") && e.contains("twice"), "{e}");
}

#[test]
fn syntax_errors_give_a_line() {
    let e = err("[measurement\nduration = \"1 s\"\n");
    assert!(e.contains("line"), "{e}");
}

#[test]
fn json_errors_name_the_path() {
    let e = atmsim::run_json("{\"measurement\": {\"duration\": \"1 s\"}, \"node\": [{\"name\": \"a\", \"kind\": \"router\"}], \"link\": [], \"connection\": []}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("node[0].kind") && e.contains("host"), "{e}");
}

#[test]
fn schema_is_generated() {
    let s = atmsim::scenario::json_schema();
    assert!(s.contains("\"measurement\"") && s.contains("\"connection\""));
}

#[test]
fn default_threshold_policy_with_per_port_buffers_is_accepted() {
    // The default policy needs a finite buffer; the ports that carry it set one.
    let mut t = n_source(
        1,
        "unlimited",
        "{ kind = \"epd\", threshold = \"80 %\" }",
        "0.05 s",
        1,
    );
    for (a, b) in [
        ("sw1", "sw2"),
        ("sw2", "sw1"),
        ("sw1", "s1"),
        ("s1", "sw1"),
        ("sw2", "d1"),
    ] {
        if a.starts_with("sw") {
            t += &format!("[[port]]\nnode = \"{a}\"\ntoward = \"{b}\"\nbuffer = \"500 cells\"\n");
        }
    }
    atmsim::run_toml(&t).unwrap_or_else(|e| panic!("{e}"));
    // ... and a port left unlimited is named in the error.
    let t = n_source(
        1,
        "unlimited",
        "{ kind = \"epd\", threshold = \"80 %\" }",
        "0.05 s",
        1,
    );
    let e = err(&t);
    assert!(
        e.contains("defaults.policy.threshold") && e.contains("at port"),
        "{e}"
    );
}

/// A link joins two nodes: a longer or shorter `between` is refused with its count, never
/// cut to its first two names (issue 14's newcomer review: TOML took the first two).
#[test]
fn a_link_between_three_nodes_is_refused() {
    let text = base().replace(
        "between = [\"sw1\", \"sw2\"]",
        "between = [\"sw1\", \"sw2\", \"s1\"]",
    );
    assert_ne!(text, base());
    let e = atmsim::scenario::from_toml_str(&text).unwrap_err();
    assert_eq!(e.path, "link[0].between", "{e}");
    assert!(
        e.message
            .starts_with("3 names; a link joins exactly two nodes"),
        "{e}"
    );
    let one = base().replace("between = [\"sw1\", \"sw2\"]", "between = [\"sw1\"]");
    let e = atmsim::scenario::from_toml_str(&one).unwrap_err();
    assert!(
        e.message
            .starts_with("1 names; a link joins exactly two nodes"),
        "{e}"
    );
}

/// A TOML `nan` or `inf` is refused at its key, never taken as "not set" (it was written
/// out as JSON `null`, so an optional setting took its default without a word).
#[test]
fn nan_and_inf_are_refused_at_their_key() {
    let text = base().replace(
        "{ kind = \"epd\", threshold = \"80 %\" }",
        "{ kind = \"fba\", threshold = \"80 %\", z = nan }",
    );
    assert_ne!(text, base());
    let e = atmsim::scenario::from_toml_str(&text).unwrap_err();
    assert!(e.message.starts_with("nan is not a finite number"), "{e}");
    assert!(e.path.ends_with("policy.z"), "{e}");
}

/// An error inside a table tagged by `kind` (traffic, policy, allocator) names its key, as
/// elsewhere, not only the table (`scenario::tagged`; the newcomer's review of the
/// fifty-third session: `connection[0].traffic: invalid type: string "yes", expected a
/// boolean`).
#[test]
fn an_error_inside_a_tagged_table_names_its_key() {
    let text = base().replacen(
        "traffic = { kind = \"tcp\" }",
        "traffic = { kind = \"tcp\", tcp = { window_scaling = \"yes\" } }",
        1,
    );
    assert_ne!(text, base());
    let e = atmsim::scenario::from_toml_str(&text).unwrap_err();
    assert_eq!(e.path, "connection[0].traffic.tcp.window_scaling", "{e}");
    assert!(
        e.message
            .starts_with("invalid type: string \"yes\", expected a boolean (line "),
        "{e}"
    );
    let text = base().replace("threshold = \"80 %\"", "threshold = \"-5 %\"");
    let e = atmsim::scenario::from_toml_str(&text).unwrap_err();
    assert_eq!(e.path, "defaults.policy.threshold", "{e}");
    assert!(e.message.contains("negative"), "{e}");
}

/// A bulk application takes no keys: a size given to it is refused, not ignored (a unit
/// variant of the tagged enum took any key; found by review).
#[test]
fn bulk_application_takes_no_keys() {
    let text = crate::support::small_toml().replacen(
        "traffic = { kind = \"tcp\" }",
        "traffic = { kind = \"tcp\", application = { kind = \"bulk\", size = \"1 MB\" } }",
        1,
    );
    let e = err(&text);
    assert!(
        e.contains("connection[0].traffic.application") && e.contains("size"),
        "{e}"
    );
    let ok = crate::support::small_toml().replacen(
        "traffic = { kind = \"tcp\" }",
        "traffic = { kind = \"tcp\", application = { kind = \"bulk\" } }",
        1,
    );
    assert!(atmsim::run_toml(&ok).is_ok());
}
