"""Bad scenarios: each raises atmsim.ScenarioError (a ValueError) whose message names the
key path, the value given and what is allowed, from a dict and from TOML alike."""

from __future__ import annotations

import copy
from typing import Any, Callable

import pytest

import atmsim
from conftest import small

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    """A mutation that sets the value at a dotted path ("a.b.0.c")."""

    def f(sc: dict[str, Any]) -> None:
        keys = path.split(".")
        d: Any = sc
        for k in keys[:-1]:
            d = d[int(k)] if isinstance(d, list) else d.setdefault(k, {})
        last = keys[-1]
        if isinstance(d, list):
            d[int(last)] = value
        else:
            d[last] = value

    return f


def _both(*fs: Mutation) -> Mutation:
    def f(sc: dict[str, Any]) -> None:
        for g in fs:
            g(sc)

    return f


def _from_switch(sc: dict[str, Any]) -> None:
    sc["connection"][0]["from"] = "sw1"
    sc["connection"][0]["route"] = ["sw1", "sw2", "dst1"]


#: (id, mutation of the base scenario, substrings the message must contain).
CASES: list[tuple[str, Mutation, list[str]]] = [
    ("unknown-top-level-key", _set("bogus", "1"), ["bogus", "unknown field", "measurement", "connection"]),
    ("unknown-key-in-measurement", _set("measurement.durration", "1 s"), ["measurement.durration", "unknown field", "`duration`"]),
    ("unknown-key-in-link", _set("link.1.speed", "1 Mbps"), ["link[1].speed", "unknown field", "`rate`", "`delay`"]),
    ("unknown-key-in-defaults-tcp", _set("defaults.tcp", {"windw": "64 KB"}), ["defaults.tcp.windw", "unknown field", "`window`"]),
    ("unknown-key-in-connection", _set("connection.1.sevice", "ubr"), ["connection[1].sevice", "unknown field", "`service`"]),
    ("bad-unit", _set("defaults.link_rate", "155 furlongs"), ["defaults.link_rate", "155 furlongs", "Mbps", "cells/s"]),
    ("bad-unit-duration", _set("measurement.duration", "2 fortnights"), ["measurement.duration", "2 fortnights", "ms"]),
    ("bare-number-rate", _set("defaults.link_rate", 155), ["defaults.link_rate", "155", "unit is missing", "Mbps"]),
    ("bare-number-link-rate", _set("link.0.rate", 155), ["link[0].rate", "unit is missing", "Mbps"]),
    ("bare-number-delay", _set("link.2.delay", 0.005), ["link[2].delay", "unit is missing", "ms"]),
    ("route-through-missing-link", _set("connection.0.route", ["src1", "sw2", "dst1"]),
     ["connection[0].route[1]", "no link joins", '"src1"', '"sw2"']),
    ("route-naming-undefined-node", _set("connection.0.route", ["src1", "sw1", "sw9", "dst1"]),
     ["connection[0].route[2]", '"sw9"', "not defined", '"sw1"', '"sw2"']),
    ("negative-buffer", _set("defaults.switch_buffer", "-5 cells"), ["defaults.switch_buffer", "-5 cells", "cells", "unlimited"]),
    ("zero-buffer", _set("defaults.switch_buffer", "0 cells"), ["defaults.switch_buffer", "0 cells", "at least 1 cell"]),
    ("zero-duration", _set("measurement.duration", "0 s"), ["measurement.duration", "longer than 0 s"]),
    ("warmup-equal-to-duration", _set("measurement.warmup", "0.2 s"), ["measurement.warmup", "200 ms", "not shorter than", "measurement.duration"]),
    ("warmup-above-duration", _set("measurement.warmup", "1 s"), ["measurement.warmup", "1 s", "not shorter than", "measurement.duration"]),
    ("seed-above-toml-integers", _set("seed", 2**63), ["seed", "9223372036854775808", "too large", "0 to 9223372036854775807"]),
    ("seed-above-64-bits", _set("seed", 2**64), ["seed", "not a whole number in range", "0 to 9223372036854775807"]),
    ("seed-negative", _set("seed", -1), ["seed", "-1", "negative", "0 to 9223372036854775807"]),
    ("seed-fraction", _set("seed", 1.5), ["seed", "1.5", "0 to 9223372036854775807"]),
    ("allocator-as-a-string", _set("defaults.allocator", "erica"),
     ["defaults.allocator", 'string "erica"', 'expected a table naming its kind, e.g. allocator = { kind = "erica" }', '"kvr"']),
    ("policy-as-a-string", _set("defaults.policy", "epd"),
     ["defaults.policy", 'string "epd"', "policy = { kind = ", '"fba"']),
    ("traffic-as-a-string", _set("connection.0.traffic", "tcp"),
     ["connection[0].traffic", 'string "tcp"', "traffic = { kind = ", '"persistent"']),
    ("line-break-in-a-kind", _set("defaults.policy", {"kind": "a\nb"}),
     ["defaults.policy.kind", "unknown variant `a\\nb`", "`fba`"]),
    ("seed-string", _set("seed", "1"), ["seed", 'string "1"', "expected a whole number from 0 to 9223372036854775807"]),
    ("epd-threshold-on-unlimited-buffer",
     _both(_set("defaults.switch_buffer", "unlimited"), _set("defaults.policy", {"kind": "epd", "threshold": "80 %"})),
     ["defaults.policy.threshold", "finite buffer", "tail_drop"]),
    ("fba-threshold-on-unlimited-port",
     _set("port", [{"node": "sw1", "toward": "sw2", "buffer": "unlimited", "policy": {"kind": "fba", "threshold": "50 %", "z": 0.8}}]),
     ["port[0].policy.threshold", "finite buffer"]),
    ("threshold-above-100-percent", _set("defaults.policy", {"kind": "epd", "threshold": "150 %"}),
     ["defaults.policy.threshold", "150 %", "0 % to 100 %"]),
    ("threshold-above-buffer-cells", _set("defaults.policy", {"kind": "epd", "threshold": "600 cells"}),
     ["defaults.policy.threshold", "600 cells", "500 cells"]),
    ("window-above-65535-without-scaling", _set("defaults.tcp", {"window": "600000 B", "window_scaling": False}),
     ["defaults.tcp.window", "600000 B", "window_scaling = true", "65535 B"]),
    ("window-above-65535-without-scaling-per-connection",
     _set("connection.1.traffic", {"kind": "tcp", "tcp": {"window": "100000 B", "window_scaling": False}}),
     ["connection[1].traffic.tcp.window", "100000 B", "65535 B"]),
    ("duplicated-node-name", _set("node.3", {"name": "sw1", "kind": "switch"}), ["node[3].name", '"sw1"', "defined twice", "unique"]),
    ("connection-from-a-switch", _from_switch, ["connection[0].from", '"sw1"', "switch", "hosts"]),
    ("vbr-service-for-tcp", _set("connection.1.service", "vbr"), ["connection[1].service", '"vbr"', "not available", '"abr", "ubr"']),
    ("unknown-service", _set("connection.0.service", "gold"), ["connection[0].service", "gold", "`ubr`", "`abr`"]),
    ("unknown-policy-kind", _set("defaults.policy", {"kind": "red"}), ["defaults.policy.kind", "red", "`epd`", "`fba`"]),
    ("unknown-node-kind", _set("node.0.kind", "router"), ["node[0].kind", "router", "`host`", "`switch`"]),
    ("fba-z-negative", _set("defaults.policy", {"kind": "fba", "threshold": "50 %", "z": -1}), ["defaults.policy.z", "-1", "positive"]),
    ("missing-duration", lambda sc: sc["measurement"].pop("duration"), ["measurement", "duration"]),
    ("mss-zero", _set("defaults.tcp", {"mss": "0 B"}), ["defaults.tcp.mss", "0 B", "1 B to 65495 B"]),
    ("route-that-loops", _set("connection.0.route", ["src1", "sw1", "sw2", "sw1", "sw2", "dst1"]),
     ["connection[0].route[3]", '"sw1"', "appears twice", "may not loop"]),
    ("link-given-twice", _set("link.4", {"between": ["dst1", "sw2"]}),
     ["link[4].between", '"dst1"', '"sw2"', "already linked", "at most one link"]),
    # The connections are listed sorted, whatever their order in the file.
    ("fault-on-unknown-connection",
     _both(_set("connection.0.name", "zeta"), _set("connection.1.name", "alpha"),
           _set("fault", [{"connection": "tcp9", "at": "0.1 s"}])),
     ["fault[0].connection", '"tcp9"', "not a connection", '"alpha", "zeta"']),
]


def _apply(m: Mutation) -> dict[str, Any]:
    sc = copy.deepcopy(small(2))
    m(sc)
    return sc


@pytest.mark.parametrize("mutation, expected", [(m, e) for _, m, e in CASES], ids=[c[0] for c in CASES])
def test_bad_scenario_raises_scenario_error_naming_the_key(mutation, expected):
    sc = _apply(mutation)
    with pytest.raises(atmsim.ScenarioError) as info:
        atmsim.validate(sc)
    msg = str(info.value)
    assert isinstance(info.value, ValueError)
    for s in expected:
        assert s in msg, f"{s!r} not in {msg!r}"
    assert "\n" not in msg, msg  # one line, fit for a CLI message
    # run refuses it with the same message, before simulating anything.
    with pytest.raises(atmsim.ScenarioError) as info2:
        atmsim.run(sc)
    assert str(info2.value) == msg


#: The same kind of mistakes written in TOML: the message also gives the line.
TOML_CASES = [
    ("unknown-top-level-key", "seed = 1\n", "seed = 1\nbogus = 2\n", ["bogus", "unknown field", "(line 3)"]),
    ("unknown-key-in-table", "[defaults]\n", '[defaults]\nspeed = "1 s"\n',
     ["defaults.speed", "unknown field", "`link_rate`"]),
    ("unknown-key-in-array-of-tables", 'name = "tcp2"\n', 'name = "tcp2"\nbogus = 3\n', ["connection[1].bogus", "unknown field", "`route`"]),
    ("bare-number-without-unit", 'link_rate = "155.52 Mbps"', "link_rate = 155", ["defaults.link_rate", "unit is missing", "Mbps"]),
    ("bad-unit", 'link_rate = "155.52 Mbps"', 'link_rate = "155 furlongs"', ["defaults.link_rate", "155 furlongs", "Mbps"]),
    ("negative-buffer", 'switch_buffer = "500 cells"', 'switch_buffer = "-5 cells"', ["defaults.switch_buffer", "-5 cells", "unlimited"]),
    ("seed-negative", "seed = 1\n", "seed = -1\n", ["seed", "-1", "negative", "0 to 9223372036854775807"]),
    ("seed-above-toml-integers", "seed = 1\n", "seed = 9223372036854775808\n", ["seed", "2^63 - 1"]),
]


@pytest.mark.parametrize("old, new, expected", [(o, n, e) for _, o, n, e in TOML_CASES], ids=[c[0] for c in TOML_CASES])
def test_bad_toml_raises_scenario_error_naming_the_key_and_line(old, new, expected):
    text = atmsim.to_toml(small(2))
    assert old in text
    bad = text.replace(old, new, 1)
    with pytest.raises(atmsim.ScenarioError) as info:
        atmsim.validate(bad)
    msg = str(info.value)
    for s in expected:
        assert s in msg, f"{s!r} not in {msg!r}"
    assert "(line " in msg
    with pytest.raises(atmsim.ScenarioError):
        atmsim.load_scenario(bad)  # key errors are caught already when loading


def test_good_scenario_validates(small_toml):
    assert atmsim.validate(small(2))["connections"] == 2
    assert atmsim.validate(small_toml)["connections"] == 3


def test_toml_syntax_error_names_the_line():
    text = atmsim.to_toml(small(2)).replace("[measurement]", "[measurement", 1)
    with pytest.raises(atmsim.ScenarioError) as info:
        atmsim.validate(text)
    line = text.splitlines().index("[measurement") + 1  # where to_toml (tomli-w) put the table
    assert f"(line {line})" in str(info.value)
