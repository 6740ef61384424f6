//! Invalid ABR parameters, allocators and cell-level traffic: one error whose path names
//! the key and whose message names the value given, never a panic.

use super::assert_err;

/// Two ABR sources over sw1 -> sw2 with ERICA (the shape of examples/abr_two_sources.toml).
/// `defaults` goes under `[defaults]`; `c0` is added to connection 0's table.
fn base(defaults: &str, c0: &str) -> String {
    let mut s = format!(
        "[measurement]\nduration = \"10 ms\"\n[defaults]\n{defaults}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\nlength = \"1 km\"\n"
    );
    for i in 1..=2 {
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw1\"]\nlength = \"1 km\"\n\
             [[link]]\nbetween = [\"sw2\", \"d{i}\"]\nlength = \"1 km\"\n"
        );
    }
    s += &format!(
        "[[connection]]\nname = \"a\"\nfrom = \"s1\"\nto = \"d1\"\n{c0}\n\
         [[connection]]\nname = \"b\"\nfrom = \"s2\"\nto = \"d2\"\nservice = \"abr\"\ntraffic = {{ kind = \"persistent\" }}\n"
    );
    s
}

const ERICA: &str = "allocator = { kind = \"erica\", target_utilization = 0.95 }";
const ABR_PERSISTENT: &str = "service = \"abr\"\ntraffic = { kind = \"persistent\" }";

/// Connection 0 as an ABR persistent source with its own `abr` inline table.
fn with_abr(abr: &str) -> String {
    base(ERICA, &format!("{ABR_PERSISTENT}\nabr = {{ {abr} }}"))
}

/// Defaults with ERICA and `defaults.abr = { abr }`.
fn with_default_abr(abr: &str) -> String {
    base(&format!("{ERICA}\nabr = {{ {abr} }}"), ABR_PERSISTENT)
}

#[test]
fn valid_base_scenarios_run() {
    atmsim::run_toml(&base(ERICA, ABR_PERSISTENT)).unwrap_or_else(|e| panic!("{e}"));
    atmsim::run_toml(&with_abr("rif = 1.0, nrm = 2, mrm = 1, cdf = 0.0"))
        .unwrap_or_else(|e| panic!("{e}"));
    atmsim::run_toml(&with_abr(
        "pcr = \"100 Mbps\", mcr = \"100 Mbps\", icr = \"100 Mbps\"",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    atmsim::run_toml(&with_abr("nrm = 256")).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn rif_above_1() {
    assert_err(
        &with_abr("rif = 1.5"),
        "connection[0].abr.rif",
        &["1.5", "RIF"],
    );
    // Set in the defaults: the path is the defaults' key.
    assert_err(
        &with_default_abr("rif = 1.5"),
        "defaults.abr.rif",
        &["1.5", "RIF"],
    );
}

#[test]
fn rif_zero() {
    assert_err(
        &with_abr("rif = 0.0"),
        "connection[0].abr.rif",
        &["0 is not allowed", "RIF"],
    );
    assert_err(
        &with_abr("rdf = -0.5"),
        "connection[0].abr.rdf",
        &["-0.5", "RDF"],
    );
}

#[test]
fn mcr_above_pcr() {
    assert_err(
        &with_abr("pcr = \"10 Mbps\", mcr = \"20 Mbps\""),
        "connection[0].abr.mcr",
        &["20 Mbps is above PCR = 10 Mbps", "PCR"],
    );
}

#[test]
fn icr_above_pcr() {
    assert_err(
        &with_abr("icr = \"200 Mbps\""),
        "connection[0].abr.icr",
        &["200 Mbps is outside [MCR, PCR] = [0, 155.52] Mbps"],
    );
    // ... or below MCR.
    assert_err(
        &with_abr("mcr = \"20 Mbps\", icr = \"5 Mbps\""),
        "connection[0].abr.icr",
        &["5 Mbps is outside [MCR, PCR] = [20, 155.52] Mbps"],
    );
}

#[test]
fn nrm_below_2() {
    assert_err(
        &with_abr("nrm = 1"),
        "connection[0].abr.nrm",
        &["1 is not allowed", "2 to 256"],
    );
}

#[test]
fn nrm_above_256() {
    assert_err(
        &with_abr("nrm = 300"),
        "connection[0].abr.nrm",
        &["300", "2 to 256"],
    );
    assert_err(
        &with_default_abr("nrm = 512"),
        "defaults.abr.nrm",
        &["512", "2 to 256"],
    );
}

#[test]
fn negative_rate() {
    assert_err(
        &with_abr("pcr = \"-5 Mbps\""),
        "connection[0].abr.pcr",
        &["-5 Mbps"],
    );
    assert_err(
        &with_abr("tcr = \"-1 cells/s\""),
        "connection[0].abr.tcr",
        &["-1 cells/s"],
    );
    assert_err(
        &with_abr("pcr = \"0 Mbps\""),
        "connection[0].abr.pcr",
        &["0 bps", "PCR"],
    );
}

#[test]
fn cdf_above_1() {
    assert_err(
        &with_abr("cdf = 2.0"),
        "connection[0].abr.cdf",
        &["2 is not allowed", "CDF"],
    );
    assert_err(
        &with_abr("cdf = 1.5"),
        "connection[0].abr.cdf",
        &["1.5", "CDF"],
    );
}

#[test]
fn abr_table_on_a_ubr_connection() {
    let t = base(
        ERICA,
        "service = \"ubr\"\ntraffic = { kind = \"persistent\" }\nabr = { rif = 1.0 }",
    );
    assert_err(&t, "connection[0].abr", &["\"ubr\"", "service"]);
    // The default service is UBR too.
    let t = base(
        ERICA,
        "traffic = { kind = \"persistent\" }\nabr = { rif = 1.0 }",
    );
    assert_err(&t, "connection[0].abr", &["\"ubr\""]);
}

#[test]
fn tcp_over_abr_is_accepted() {
    let t = base(ERICA, "service = \"abr\"\ntraffic = { kind = \"tcp\" }");
    atmsim::scenario::load_toml(&t).expect("TCP over ABR is a valid scenario");
}

#[test]
fn source_queue_below_one_segment() {
    // MSS 512 B with LLC/SNAP is 12 cells.
    let t = base(
        ERICA,
        "service = \"abr\"\ntraffic = { kind = \"tcp\" }\nabr = { source_queue = \"11 cells\" }",
    );
    assert_err(
        &t,
        "connection[0].abr.source_queue",
        &["11 cells", "12 cells"],
    );
    let t = base(
        ERICA,
        "service = \"abr\"\ntraffic = { kind = \"tcp\" }\nabr = { source_queue = \"0 cells\" }",
    );
    assert_err(
        &t,
        "connection[0].abr.source_queue",
        &["0 cells", "unlimited"],
    );
}

#[test]
fn source_queue_on_cell_level_traffic() {
    let t = base(
        ERICA,
        &format!("{ABR_PERSISTENT}\nabr = {{ source_queue = \"100 cells\" }}"),
    );
    assert_err(&t, "connection[0].abr.source_queue", &["only for tcp"]);
}

#[test]
fn periodic_application_with_zero_interval() {
    let t = base(
        ERICA,
        "service = \"abr\"\ntraffic = { kind = \"tcp\", application = { kind = \"periodic\", segment_interval = \"0 s\", segments = 10 } }",
    );
    assert_err(
        &t,
        "connection[0].traffic.application.segment_interval",
        &["0 s", "above 0"],
    );
}

#[test]
fn erica_target_utilization_0_or_above_1() {
    let t = base(
        "allocator = { kind = \"erica\", target_utilization = 0.0 }",
        ABR_PERSISTENT,
    );
    assert_err(
        &t,
        "defaults.allocator.target_utilization",
        &["0 is not allowed", "(0, 1]"],
    );
    let t = base(
        "allocator = { kind = \"erica\", target_utilization = 1.2 }",
        ABR_PERSISTENT,
    );
    assert_err(
        &t,
        "defaults.allocator.target_utilization",
        &["1.2", "(0, 1]"],
    );
}

#[test]
fn erica_with_an_erica_plus_key() {
    let t = base(
        "allocator = { kind = \"erica\", t0 = \"100 us\" }",
        ABR_PERSISTENT,
    );
    assert_err(&t, "defaults.allocator.t0", &["t0", "erica_plus"]);
    let t = base(
        "allocator = { kind = \"erica\", qdlf = 0.5 }",
        ABR_PERSISTENT,
    );
    assert_err(&t, "defaults.allocator.qdlf", &["qdlf", "erica_plus"]);
}

#[test]
fn erica_plus_with_target_utilization() {
    let t = base(
        "allocator = { kind = \"erica_plus\", target_utilization = 0.9 }",
        ABR_PERSISTENT,
    );
    assert_err(
        &t,
        "defaults.allocator.target_utilization",
        &["t0", "erica"],
    );
}

#[test]
fn source_averaging_1() {
    let t = base(
        "allocator = { kind = \"erica\", source_averaging = 1.0 }",
        ABR_PERSISTENT,
    );
    assert_err(
        &t,
        "defaults.allocator.source_averaging",
        &["1 is not allowed", "between 0 and 1"],
    );
    let t = base(
        "allocator = { kind = \"erica\", source_averaging = 0.0 }",
        ABR_PERSISTENT,
    );
    assert_err(
        &t,
        "defaults.allocator.source_averaging",
        &["0 is not allowed"],
    );
}

#[test]
fn allocator_on_a_host_port() {
    let mut t = base("", ABR_PERSISTENT);
    t += "[[port]]\nnode = \"s1\"\ntoward = \"sw1\"\nallocator = { kind = \"erica\" }\n";
    assert_err(&t, "port[0].allocator", &["\"s1\"", "host"]);
    // The same on a switch port is fine.
    let mut t = base("", ABR_PERSISTENT);
    t += "[[port]]\nnode = \"sw1\"\ntoward = \"sw2\"\nallocator = { kind = \"erica\" }\n";
    atmsim::run_toml(&t).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn request_response_with_response_0_cells() {
    let t = base(
        ERICA,
        "service = \"abr\"\ntraffic = { kind = \"request_response\", response = \"0 cells\" }",
    );
    assert_err(&t, "connection[0].traffic.response", &["0 cells"]);
    let t = base(
        ERICA,
        "service = \"abr\"\ntraffic = { kind = \"request_response\", request = \"0 cells\", response = \"8 cells\" }",
    );
    assert_err(&t, "connection[0].traffic.request", &["0 cells"]);
}
