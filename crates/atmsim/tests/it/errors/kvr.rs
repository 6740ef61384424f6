//! Invalid seed 004 settings (the UCSC source, the KVR allocator, reservations, sessions
//! and video traffic, `[[fault]]` tables): one error whose path names the key, as set,
//! and whose message names the value given and what is allowed, never a panic.

use super::assert_err;

/// Two greedy UCSC sources `a` (s1 -> d1) and `b` (s2 -> d2) over sw1 -> sw2 with KVR,
/// 10 ms long. `defaults` is added under `[defaults]`, `a` to connection 0's table, and
/// `extra` at the end (more connections, faults).
fn base(defaults: &str, a: &str, extra: &str) -> String {
    let mut s = format!(
        "[measurement]\nduration = \"10 ms\"\n[defaults]\nlink_rate = \"155 Mbps\"\n{defaults}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\ndelay = \"10 us\"\n"
    );
    for i in 1..=3 {
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw1\"]\ndelay = \"10 us\"\n\
             [[link]]\nbetween = [\"sw2\", \"d{i}\"]\ndelay = \"10 us\"\n"
        );
    }
    s += &format!(
        "[[connection]]\nname = \"a\"\nfrom = \"s1\"\nto = \"d1\"\nservice = \"abr\"\n\
         traffic = {{ kind = \"persistent\" }}\n{a}\n\
         [[connection]]\nname = \"b\"\nfrom = \"s2\"\nto = \"d2\"\nservice = \"abr\"\n\
         traffic = {{ kind = \"persistent\" }}\n{extra}"
    );
    s
}

/// UCSC sources (defaults) and KVR on every switch port.
const SEED_004: &str = "abr = { policy = \"ucsc\" }\nallocator = { kind = \"kvr\" }";

/// [`base`] with seed 004 defaults and a third connection `v` (s3 -> d3) whose table body
/// is `body` (service, traffic, ...).
fn third(body: &str) -> String {
    base(
        SEED_004,
        "",
        &format!("[[connection]]\nname = \"v\"\nfrom = \"s3\"\nto = \"d3\"\n{body}\n"),
    )
}

/// [`base`] with seed 004 defaults and one `[[fault]]` table with `keys`.
fn fault(keys: &str) -> String {
    base(SEED_004, "", &format!("[[fault]]\n{keys}\n"))
}

#[test]
fn valid_seed_004_scenarios_run() {
    let ok = |text: &str| {
        atmsim::run_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    };
    ok(&base(SEED_004, "", ""));
    ok(&base(
        "abr = { policy = \"ucsc\", air = \"90 cells/s\", nrm = 16, icr = \"1 Mbps\", pcr = \"100 Mbps\" }\n\
         allocator = { kind = \"kvr\", target_utilization = 1.0, update_backward_rm = true }",
        "setup = \"pre_established\"",
        "",
    ));
    ok(&third(
        "service = \"vbr\"\nreserve = \"1.9 Mbps\"\nstart = \"1 ms\"\nstop = \"5 ms\"\n\
         traffic = { kind = \"video\", frame_rate = 30, mean_cells = 50, sd_cells = 7.1, correlation = 0.0, \
         bucket = \"1 cells\", bucket_rate = \"1 Mbps\" }",
    ));
    ok(&third(
        "service = \"cbr\"\nreserve = \"2 Mbps\"\ntraffic = { kind = \"cbr\", rate = \"1 Mbps\" }",
    ));
    ok(&third(
        "service = \"abr\"\ntraffic = { kind = \"sessions\", on = \"1 ms\", off = \"2 ms\", distribution = \"fixed\" }",
    ));
    ok(&fault(
        "connection = \"a\"\nat = \"10 ms\"\ndirection = \"reverse\"\ncell = \"any\"\ncount = 3\nnode = \"sw2\"",
    ));
}

// ------------------------------------------------------------------ UCSC source

#[test]
fn ucsc_refuses_tm40_parameters_where_they_are_set() {
    // In the connection's own table.
    assert_err(
        &base(SEED_004, "abr = { rif = 0.5 }", ""),
        "connection[0].abr.rif",
        &["rif = 0.5", "TM 4.0", "ucsc"],
    );
    // In defaults.abr, next to policy = "ucsc": the path is where the user wrote it.
    assert_err(
        &base(
            "abr = { policy = \"ucsc\", rdf = 0.25 }\nallocator = { kind = \"kvr\" }",
            "",
            "",
        ),
        "defaults.abr.rdf",
        &["rdf = 0.25", "TM 4.0", "tm40"],
    );
    // The connection asks for UCSC, defaults carry a TM 4.0 key.
    assert_err(
        &base(
            "abr = { trm = \"10 ms\" }\nallocator = { kind = \"kvr\" }",
            "abr = { policy = \"ucsc\" }",
            "",
        ),
        "defaults.abr.trm",
        &["trm = 10 ms", "TM 4.0"],
    );
    for (key, value, shown) in [
        ("mrm", "4", "mrm = 4"),
        ("tbe", "1000", "tbe = 1000"),
        ("crm", "10", "crm = 10"),
        ("cdf", "0.5", "cdf = 0.5"),
        ("adtf", "\"1 s\"", "adtf = 1 s"),
        ("tcr", "\"10 cells/s\"", "tcr = "),
        ("frtt", "\"1 ms\"", "frtt = 1 ms"),
    ] {
        assert_err(
            &base(SEED_004, &format!("abr = {{ {key} = {value} }}"), ""),
            &format!("connection[0].abr.{key}"),
            &[shown, "TM 4.0", "ucsc"],
        );
    }
}

#[test]
fn air_belongs_to_the_ucsc_policy() {
    assert_err(
        &base("abr = { policy = \"tm40\", air = \"100 cells/s\" }", "", ""),
        "defaults.abr.air",
        &["42.4 kbps", "TM 4.0", "ucsc"],
    );
    // TM 4.0 is the default policy.
    assert_err(
        &base("", "abr = { air = \"180 cells/s\" }", ""),
        "connection[0].abr.air",
        &["76.32 kbps", "TM 4.0"],
    );
    assert_err(
        &base(SEED_004, "abr = { air = \"0 cells/s\" }", ""),
        "connection[0].abr.air",
        &["0 bps", "AIR must be above 0"],
    );
}

// ------------------------------------------------------------------ KVR

#[test]
fn kvr_target_utilization_in_0_1() {
    for u in ["0.0", "1.5", "-0.2"] {
        assert_err(
            &base(
                &format!(
                    "abr = {{ policy = \"ucsc\" }}\nallocator = {{ kind = \"kvr\", target_utilization = {u} }}"
                ),
                "",
                "",
            ),
            "defaults.allocator.target_utilization",
            &[u.trim_end_matches(".0"), "(0, 1]"],
        );
    }
    assert_err(
        &base(
            "abr = { policy = \"ucsc\" }\nallocator = { kind = \"kvr\", queue_target = 10 }",
            "",
            "",
        ),
        // An unknown key of a `kind`-tagged table is reported at the key, as elsewhere
        // (`scenario::tagged`; before, at the table).
        "defaults.allocator.queue_target",
        &["queue_target", "target_utilization", "update_backward_rm"],
    );
}

// ------------------------------------------------------------------ reservations, setup

#[test]
fn only_vbr_and_cbr_reserve_and_only_above_0() {
    assert_err(
        &base(SEED_004, "reserve = \"1.9 Mbps\"", ""),
        "connection[0].reserve",
        &["1.9 Mbps", "abr", "only vbr and cbr"],
    );
    assert_err(
        &third("service = \"cbr\"\nreserve = \"0 Mbps\"\ntraffic = { kind = \"cbr\", rate = \"1 Mbps\" }"),
        "connection[2].reserve",
        &["0 bps", "above 0"],
    );
    assert_err(
        &third("service = \"vbr\"\nreserve = \"-1 Mbps\"\ntraffic = { kind = \"video\" }"),
        "connection[2].reserve",
        &["-1 Mbps"],
    );
    assert_err(
        &base(SEED_004, "setup = \"later\"", ""),
        "connection[0].setup",
        &["later", "in_band", "pre_established"],
    );
}

// ------------------------------------------------------------------ video

#[test]
fn video_parameters() {
    let v = |keys: &str| {
        third(&format!(
            "service = \"vbr\"\ntraffic = {{ kind = \"video\", {keys} }}"
        ))
    };
    assert_err(
        &v("mean_cells = 100, sd_cells = 9"),
        "connection[2].traffic.sd_cells",
        &["9", "variance > mean", "10.000"],
    );
    // The default sd (30) is too small for a mean of 1000 frames.
    assert_err(
        &v("mean_cells = 1000"),
        "connection[2].traffic.sd_cells",
        &["30", "31.623"],
    );
    for rho in ["1.0", "1.5", "-0.1"] {
        assert_err(
            &v(&format!("correlation = {rho}")),
            "connection[2].traffic.correlation",
            &[rho.trim_end_matches(".0"), "0 <= rho < 1"],
        );
    }
    assert_err(
        &v("frame_rate = 0"),
        "connection[2].traffic.frame_rate",
        &["0 is not allowed", "(0, 1000]"],
    );
    assert_err(
        &v("mean_cells = 0"),
        "connection[2].traffic.mean_cells",
        &["0 is not allowed", "above 0 cells"],
    );
    assert_err(
        &v("bucket = \"0 cells\""),
        "connection[2].traffic.bucket",
        &["0 cells", "at least 1 cell"],
    );
    assert_err(
        &v("bucket_rate = \"0 cells/s\""),
        "connection[2].traffic.bucket_rate",
        &["above 0 bps"],
    );
    assert_err(
        &third("service = \"abr\"\ntraffic = { kind = \"video\" }"),
        "connection[2].service",
        &["\"abr\"", "video", "\"vbr\""],
    );
}

// ------------------------------------------------------------------ sessions

#[test]
fn sessions_parameters() {
    let s = |keys: &str| {
        third(&format!(
            "service = \"abr\"\ntraffic = {{ kind = \"sessions\", {keys} }}"
        ))
    };
    assert_err(
        &s("on = \"0 ms\", off = \"10 ms\""),
        "connection[2].traffic.on",
        &["longer than 0 s"],
    );
    assert_err(
        &s("on = \"10 ms\", off = \"0 s\""),
        "connection[2].traffic.off",
        &["longer than 0 s"],
    );
    assert_err(
        &s("on = \"10 ms\", off = \"10 ms\", distribution = \"uniform\""),
        "connection[2].traffic.distribution",
        &["uniform", "exponential", "fixed"],
    );
    assert_err(
        &third(
            "service = \"vbr\"\ntraffic = { kind = \"sessions\", on = \"1 ms\", off = \"1 ms\" }",
        ),
        "connection[2].service",
        &["\"vbr\"", "sessions", "\"abr\""],
    );
}

// ------------------------------------------------------------------ faults

#[test]
fn fault_connection_must_exist() {
    assert_err(
        &fault("connection = \"zz\"\nat = \"1 ms\""),
        "fault[0].connection",
        &["\"zz\"", "not a connection", "\"a\"", "\"b\""],
    );
}

#[test]
fn fault_node_must_send_the_connection_s_cells() {
    // s2 is not on a's route.
    assert_err(
        &fault("connection = \"a\"\nat = \"1 ms\"\nnode = \"s2\""),
        "fault[0].node",
        &["\"s2\"", "\"a\"", "\"s1\"", "\"sw1\"", "\"sw2\""],
    );
    // The destination sends no forward cells; in reverse it is the first hop.
    assert_err(
        &fault("connection = \"a\"\nat = \"1 ms\"\nnode = \"d1\""),
        "fault[0].node",
        &["\"d1\"", "in that direction"],
    );
    assert_err(
        &fault("connection = \"a\"\nat = \"1 ms\"\nnode = \"s1\"\ndirection = \"reverse\""),
        "fault[0].node",
        &["\"s1\"", "\"d1\"", "\"sw2\""],
    );
    assert_err(
        &fault("connection = \"a\"\nat = \"1 ms\"\nnode = \"nowhere\""),
        "fault[0].node",
        &["\"nowhere\"", "not defined"],
    );
}

#[test]
fn fault_count_time_and_keys() {
    assert_err(
        &fault("connection = \"a\"\nat = \"1 ms\"\ncount = 0"),
        "fault[0].count",
        &["0 is not allowed", "at least 1"],
    );
    assert_err(
        &fault("connection = \"a\"\nat = \"11 ms\""),
        "fault[0].at",
        &["11 ms", "after the end", "10 ms"],
    );
    assert_err(
        &fault("connection = \"a\"\nat = \"1 ms\"\ncell = \"header\""),
        "fault[0].cell",
        &["header", "data", "rm", "any"],
    );
    assert_err(
        &fault("connection = \"a\"\nat = \"1 ms\"\ndirection = \"up\""),
        "fault[0].direction",
        &["up", "forward", "reverse"],
    );
    assert_err(
        &fault("connection = \"a\"\nat = \"1 ms\"\ncells = \"rm\""),
        "fault[0].cells",
        &["unknown field", "cell"],
    );
    // The second fault table is the one named.
    assert_err(
        &base(
            SEED_004,
            "",
            "[[fault]]\nconnection = \"a\"\nat = \"1 ms\"\n[[fault]]\nconnection = \"b\"\nat = \"1 ms\"\ncount = 0\n",
        ),
        "fault[1].count",
        &["0 is not allowed"],
    );
}

/// A fault that could never take a cell is refused (a review found a reverse fault on a
/// one-way CBR connection and an RM fault on a UBR one accepted and dropping nothing).
#[test]
fn fault_must_be_able_to_take_a_cell() {
    // The seed-004 base's connections are ABR cell traffic: backward RM cells only.
    assert_err(
        &fault("connection = \"a\"\nat = \"1 ms\"\ndirection = \"reverse\""),
        "fault[0].cell",
        &["\"data\"", "backward RM", "\"rm\" or \"any\""],
    );
    let ok = fault("connection = \"a\"\nat = \"1 ms\"\ndirection = \"reverse\"\ncell = \"rm\"");
    atmsim::run_toml(&ok).unwrap_or_else(|e| panic!("{e}"));
    let cbr = third("service = \"cbr\"\ntraffic = { kind = \"cbr\", rate = \"1 Mbps\" }")
        + "[[fault]]\nconnection = \"v\"\nat = \"1 ms\"\n";
    assert_err(
        &cbr.replace(
            "at = \"1 ms\"\n",
            "at = \"1 ms\"\ndirection = \"reverse\"\n",
        ),
        "fault[0].direction",
        &["\"reverse\"", "one-way", "\"forward\""],
    );
    assert_err(
        &cbr.replace("at = \"1 ms\"\n", "at = \"1 ms\"\ncell = \"rm\"\n"),
        "fault[0].cell",
        &["\"rm\"", "not ABR", "\"data\" or \"any\""],
    );
    atmsim::run_toml(&cbr).unwrap_or_else(|e| panic!("{e}"));
}
