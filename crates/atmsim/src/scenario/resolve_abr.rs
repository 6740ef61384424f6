//! Validation of the ABR parts of a scenario: source parameters (TM 4.0 5.10.2), rate
//! allocators (ERICA, ERICA+, EFCI) and cell-level traffic. Every error names the key
//! path, the value and what is allowed.

use super::error::ScenarioError;
use super::schema::{
    AbrSpec, AllocatorSpec, EricaSpec, KvrSpec, LoadAveraging, SourcePolicySpec, TrafficSpec,
};
use crate::abr::{AbrParams, SourcePolicy};
use crate::allocator::{AllocatorCfg, EricaCfg, KvrCfg, LoadAvg, QueueControl};
use atmsim_kernel::{Time, PS_PER_MS, PS_PER_US};

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(path, msg))
}

pub use crate::traffic::{CellApp, VideoParams};
use crate::traffic::{CbrCfg, OnOffCfg, PersistentCfg, RequestResponseCfg, SessionsCfg};

/// Resolves a cell-level traffic spec (not `tcp`).
pub fn resolve_cell_app(
    path: &str,
    t: &TrafficSpec,
    start: Time,
) -> Result<Option<CellApp>, ScenarioError> {
    Ok(Some(match t {
        TrafficSpec::Tcp { .. } => return Ok(None),
        TrafficSpec::Persistent {
            rate_cap,
            cap_until,
        } => {
            let cap = match (rate_cap, cap_until) {
                (None, None) => None,
                (None, Some(_)) => {
                    return err(
                        format!("{path}.cap_until"),
                        "is set without rate_cap; give the application's rate limit too",
                    )
                }
                (Some(r), u) => {
                    if !(r.cells_per_sec() > 0.0) || !r.bps().is_finite() {
                        return err(
                            format!("{path}.rate_cap"),
                            format!("{r} is not allowed; a rate cap must be above 0 bps"),
                        );
                    }
                    if let Some(u) = u {
                        if u.ps() <= start {
                            return err(
                                format!("{path}.cap_until"),
                                format!("{u} is not after the connection's start"),
                            );
                        }
                    }
                    Some((r.cells_per_sec(), u.map(|d| d.ps())))
                }
            };
            CellApp::Persistent(PersistentCfg { cap })
        }
        TrafficSpec::RequestResponse {
            request,
            response,
            think_time,
        } => {
            let request = request.map(|c| c.0).unwrap_or(16);
            if request == 0 {
                return err(
                    format!("{path}.request"),
                    "0 cells is not allowed; a request is at least 1 cell",
                );
            }
            if response.0 == 0 {
                return err(
                    format!("{path}.response"),
                    "0 cells is not allowed; a response is at least 1 cell",
                );
            }
            CellApp::RequestResponse(RequestResponseCfg {
                request,
                response: response.0,
                think: think_time.map(|d| d.ps()).unwrap_or(0),
            })
        }
        TrafficSpec::OnOff {
            peak_rate,
            on,
            off,
            phase,
        } => {
            if !(peak_rate.cells_per_sec() > 0.0) || !peak_rate.bps().is_finite() {
                return err(
                    format!("{path}.peak_rate"),
                    format!("{peak_rate} is not allowed; the peak rate must be above 0 bps"),
                );
            }
            if on.ps() == 0 {
                return err(format!("{path}.on"), "must be longer than 0 s");
            }
            CellApp::OnOff(OnOffCfg {
                peak: peak_rate.cells_per_sec(),
                on: on.ps(),
                off: off.ps(),
                phase: phase.map(|d| d.ps()).unwrap_or(0),
            })
        }
        TrafficSpec::Cbr { rate } => {
            if !(rate.cells_per_sec() > 0.0) || !rate.bps().is_finite() {
                return err(
                    format!("{path}.rate"),
                    format!("{rate} is not allowed; the rate must be above 0 bps"),
                );
            }
            CellApp::Cbr(CbrCfg {
                rate: rate.cells_per_sec(),
            })
        }
        TrafficSpec::Sessions {
            on,
            off,
            distribution,
        } => {
            for (k, d) in [("on", on), ("off", off)] {
                if d.ps() == 0 {
                    return err(format!("{path}.{k}"), "must be longer than 0 s");
                }
            }
            CellApp::Sessions(SessionsCfg {
                on: on.ps(),
                off: off.ps(),
                exponential: distribution.unwrap_or_default()
                    == super::schema::PeriodDistribution::Exponential,
            })
        }
        TrafficSpec::Video {
            frame_rate,
            mean_cells,
            sd_cells,
            correlation,
            frame_arrival,
            bucket,
            bucket_rate,
        } => {
            let fr = frame_rate.unwrap_or(25.0);
            if !(fr.is_finite() && fr > 0.0 && fr <= 1000.0) {
                return err(
                    format!("{path}.frame_rate"),
                    format!(
                        "{fr} is not allowed; frames per second must be in (0, 1000] (PAL: 25)"
                    ),
                );
            }
            let mean = mean_cells.unwrap_or(130.0);
            if !(mean.is_finite() && mean > 0.0) {
                return err(
                    format!("{path}.mean_cells"),
                    format!("{mean} is not allowed; the mean frame size must be above 0 cells"),
                );
            }
            let sd = sd_cells.unwrap_or(30.0);
            if !(sd.is_finite() && sd * sd > mean) {
                return err(
                    format!("{path}.sd_cells"),
                    format!(
                        "{sd} is not allowed; a negative binomial needs variance > mean, so sd_cells > sqrt(mean_cells) = {:.3}",
                        mean.sqrt()
                    ),
                );
            }
            let rho = correlation.unwrap_or(0.98);
            if !(rho.is_finite() && (0.0..1.0).contains(&rho)) {
                return err(
                    format!("{path}.correlation"),
                    format!("{rho} is not allowed; the correlation must satisfy 0 <= rho < 1"),
                );
            }
            let depth = bucket.map(|c| c.0).unwrap_or(50);
            if depth == 0 {
                return err(
                    format!("{path}.bucket"),
                    "0 cells is not allowed; the token bucket holds at least 1 cell",
                );
            }
            let br = bucket_rate.map(|r| r.cells_per_sec()).unwrap_or(4500.0);
            if !(br.is_finite() && br > 0.0) {
                return err(
                    format!("{path}.bucket_rate"),
                    "must be above 0 bps (seed 004: 4500 cells/s)",
                );
            }
            CellApp::Video(VideoParams {
                frame_time: ((atmsim_kernel::PS_PER_S as f64) / fr).round() as Time,
                mean,
                sd,
                rho,
                bucket: depth as f64,
                bucket_rate: br,
                spread: frame_arrival.unwrap_or_default() == super::schema::FrameArrival::Spread,
            })
        }
    }))
}

/// Resolves ABR source parameters: the connection's own, then `defaults.abr`, then the
/// TM 4.0 defaults. `access_rate` is the source's access link rate in cells/s.
pub fn resolve_abr(
    path: &str,
    c: &AbrSpec,
    d: &AbrSpec,
    access_rate: f64,
) -> Result<AbrParams, ScenarioError> {
    macro_rules! pick {
        ($f:ident) => {
            match (c.$f.clone(), d.$f.clone()) {
                (Some(v), _) => (Some(v), format!("{path}.{}", stringify!($f))),
                (None, Some(v)) => (Some(v), format!("defaults.abr.{}", stringify!($f))),
                (None, None) => (None, format!("{path}.{}", stringify!($f))),
            }
        };
    }
    let rate = |v: Option<crate::units::Rate>,
                p: &str,
                what: &str|
     -> Result<Option<f64>, ScenarioError> {
        match v {
            None => Ok(None),
            Some(r) if r.bps() < 0.0 || !r.bps().is_finite() => err(
                p,
                format!("{r} is not allowed; {what} must be a rate of 0 bps or more"),
            ),
            Some(r) => Ok(Some(r.cells_per_sec())),
        }
    };
    let (v, policy_p) = pick!(policy);
    let ucsc = v == Some(SourcePolicySpec::Ucsc);
    let (air_v, air_p) = pick!(air);
    if ucsc {
        // The UCSC source has none of TM 4.0's other knobs (seed 004 section 2.1). The error
        // names where the key is set (the connection's table or defaults.abr) and its value.
        macro_rules! refuse {
            ($($f:ident),*) => {$(
                if let (Some(v), p) = pick!($f) {
                    return err(
                        p,
                        format!(
                            "{} = {v} is set, but {} is a TM 4.0 source parameter and policy = \"ucsc\" (seed 004) does not use it; remove it, or use policy = \"tm40\"",
                            stringify!($f),
                            stringify!($f)
                        ),
                    );
                }
            )*};
        }
        refuse!(rif, rdf, mrm, trm, tbe, crm, cdf, adtf, tcr, frtt);
    } else if let Some(a) = air_v {
        return err(
            air_p,
            format!("{a} is set but the source policy is TM 4.0 ({policy_p}); AIR belongs to policy = \"ucsc\" (TM 4.0 increases by RIF x PCR)"),
        );
    }
    let (v, pcr_p) = pick!(pcr);
    let pcr = rate(v, &pcr_p, "PCR")?.unwrap_or(access_rate);
    if pcr <= 0.0 {
        return err(pcr_p, "0 bps is not allowed; PCR must be above 0 bps");
    }
    let (v, mcr_p) = pick!(mcr);
    let mcr = rate(v, &mcr_p, "MCR")?.unwrap_or(0.0);
    if mcr > pcr {
        return err(
            mcr_p,
            format!(
                "{:.6} Mbps is above PCR = {:.6} Mbps; allowed: 0 <= MCR <= PCR",
                mcr * 424e-6,
                pcr * 424e-6
            ),
        );
    }
    let (v, icr_p) = pick!(icr);
    let mut icr = rate(v, &icr_p, "ICR")?.unwrap_or(if ucsc { pcr / 50.0 } else { pcr });
    if icr > pcr || icr < mcr {
        return err(
            icr_p,
            format!(
                "{:.6} Mbps is outside [MCR, PCR] = [{:.6}, {:.6}] Mbps",
                icr * 424e-6,
                mcr * 424e-6,
                pcr * 424e-6
            ),
        );
    }
    let factor = |v: Option<f64>,
                  p: String,
                  def: f64,
                  zero_ok: bool,
                  what: &str|
     -> Result<f64, ScenarioError> {
        let x = v.unwrap_or(def);
        let ok = x.is_finite() && x <= 1.0 && (x > 0.0 || (zero_ok && x == 0.0));
        if !ok {
            let range = if zero_ok { "0 <= x <= 1" } else { "0 < x <= 1" };
            return err(
                p,
                format!(
                    "{x} is not allowed; {what} must satisfy {range} (TM 4.0 uses powers of 2)"
                ),
            );
        }
        Ok(x)
    };
    let (v, p) = pick!(rif);
    let rif = factor(v, p, 1.0 / 16.0, false, "RIF")?;
    let (v, p) = pick!(rdf);
    let rdf = factor(v, p, 1.0 / 16.0, false, "RDF")?;
    let (v, p) = pick!(cdf);
    let cdf = factor(v, p, 1.0 / 16.0, true, "CDF")?;
    let (v, nrm_p) = pick!(nrm);
    let nrm = v.unwrap_or(32);
    if !(2..=256).contains(&nrm) {
        return err(
            nrm_p,
            format!("{nrm} is not allowed; Nrm must be 2 to 256 cells"),
        );
    }
    let (v, mrm_p) = pick!(mrm);
    let mrm = v.unwrap_or(2);
    if mrm == 0 || mrm > nrm {
        return err(
            mrm_p,
            format!("{mrm} is not allowed; Mrm must be 1 to Nrm ({nrm})"),
        );
    }
    let (v, trm_p) = pick!(trm);
    let trm = v.map(|d| d.ps()).unwrap_or(100 * PS_PER_MS);
    if trm == 0 {
        return err(trm_p, "must be longer than 0 s");
    }
    let (v, tbe_p) = pick!(tbe);
    let tbe = v.unwrap_or(16_777_215);
    if tbe == 0 {
        return err(tbe_p, "0 is not allowed; TBE must be at least 1 cell");
    }
    let (v, crm_p) = pick!(crm);
    let crm = v.unwrap_or(tbe.div_ceil(nrm));
    if crm == 0 {
        return err(crm_p, "0 is not allowed; CRM must be at least 1");
    }
    let (v, adtf_p) = pick!(adtf);
    let adtf = v.map(|d| d.ps()).unwrap_or(500 * PS_PER_MS);
    if adtf == 0 {
        return err(adtf_p, "must be longer than 0 s");
    }
    let (v, tcr_p) = pick!(tcr);
    let tcr = rate(v, &tcr_p, "TCR")?.unwrap_or(10.0);
    if tcr <= 0.0 {
        return err(
            tcr_p,
            "0 bps is not allowed; TCR must be above 0 (TM 4.0: 10 cells/s)",
        );
    }
    let (v, _) = pick!(frtt);
    if let Some(frtt) = v {
        if frtt.ps() > 0 {
            icr = icr.min(tbe as f64 / frtt.secs()).max(mcr);
        }
    }
    let (v, sq_p) = pick!(source_queue);
    let source_queue = match v {
        Some(n) if n.0 == 0 => {
            return err(
                sq_p,
                "0 cells is not allowed; the source queue must hold at least one segment (omit it for unlimited)",
            )
        }
        v => v.map(|n| n.0 as u64),
    };
    let policy = if ucsc {
        let air = rate(air_v, &air_p, "AIR")?.unwrap_or(180.0);
        if air <= 0.0 {
            return err(
                air_p,
                "0 bps is not allowed; AIR must be above 0 (seed 004: 180 cells/s)",
            );
        }
        SourcePolicy::Ucsc {
            increase: nrm as f64 * air,
        }
    } else {
        SourcePolicy::Tm40
    };
    Ok(AbrParams {
        policy,
        pcr,
        mcr,
        icr,
        rif,
        rdf,
        nrm,
        mrm,
        trm,
        crm,
        cdf,
        adtf,
        tcr,
        source_queue,
    })
}

/// The option defaults of seed 000's "modified ERICA" (spec 2.7) under `e`'s own keys.
pub fn modified_erica(e: &EricaSpec) -> EricaSpec {
    let mut m = e.clone();
    m.fair_share_first.get_or_insert(true);
    m.one_er_per_interval.get_or_insert(true);
    m.bidirectional_counting.get_or_insert(true);
    m.immediate_fair_share.get_or_insert(true);
    m.max_min.get_or_insert(true);
    m
}

/// Resolves an allocator spec at `path`.
pub fn resolve_allocator(path: &str, a: &AllocatorSpec) -> Result<AllocatorCfg, ScenarioError> {
    Ok(match a {
        AllocatorSpec::None => AllocatorCfg::None,
        AllocatorSpec::Efci { threshold } => AllocatorCfg::Efci {
            threshold: threshold.0,
        },
        AllocatorSpec::Erica(e) => AllocatorCfg::Erica(resolve_erica(path, e, false)?),
        AllocatorSpec::EricaPlus(e) => AllocatorCfg::Erica(resolve_erica(path, e, true)?),
        AllocatorSpec::Kvr(k) => AllocatorCfg::Kvr(resolve_kvr(path, k)?),
        AllocatorSpec::ModifiedErica(e) => {
            AllocatorCfg::Erica(resolve_erica(path, &modified_erica(e), false)?)
        }
    })
}

fn resolve_kvr(path: &str, k: &KvrSpec) -> Result<KvrCfg, ScenarioError> {
    let u = k.target_utilization.unwrap_or(1.0);
    if !(u.is_finite() && u > 0.0 && u <= 1.0) {
        return err(
            format!("{path}.target_utilization"),
            format!("{u} is not allowed; target_utilization must be in (0, 1] (seed 004: 1.0)"),
        );
    }
    Ok(KvrCfg {
        target_utilization: u,
        update_backward_rm: k.update_backward_rm.unwrap_or(false),
    })
}

fn resolve_erica(path: &str, e: &EricaSpec, plus: bool) -> Result<EricaCfg, ScenarioError> {
    let unit = |v: Option<f64>, key: &str, def: f64, lo_open: bool| -> Result<f64, ScenarioError> {
        let x = v.unwrap_or(def);
        if !(x.is_finite() && x <= 1.0 && (x > 0.0 || (!lo_open && x == 0.0))) {
            return err(
                format!("{path}.{key}"),
                format!("{x} is not allowed; {key} must be in (0, 1]"),
            );
        }
        Ok(x)
    };
    if plus && e.target_utilization.is_some() {
        return err(
            format!("{path}.target_utilization"),
            "ERICA+ targets a queueing delay (t0), not a utilization; remove target_utilization or use kind = \"erica\"",
        );
    }
    if !plus {
        for (k, set) in [
            ("a", e.a.is_some()),
            ("b", e.b.is_some()),
            ("t0", e.t0.is_some()),
            ("qdlf", e.qdlf.is_some()),
        ] {
            if set {
                return err(
                    format!("{path}.{k}"),
                    format!("{k} is an ERICA+ parameter; use kind = \"erica_plus\" or remove it"),
                );
            }
        }
    }
    let u = unit(e.target_utilization, "target_utilization", 0.9, true)?;
    let cells = e.interval_cells.map(|c| c.0).unwrap_or(100);
    if cells == 0 {
        return err(
            format!("{path}.interval_cells"),
            "0 cells is not allowed; at least 1 cell",
        );
    }
    let itime = e.interval_time.map(|d| d.ps()).unwrap_or(PS_PER_MS);
    if itime == 0 {
        return err(format!("{path}.interval_time"), "must be longer than 0 s");
    }
    let delta = e.delta.unwrap_or(0.1);
    if !(delta.is_finite() && delta >= 0.0) {
        return err(
            format!("{path}.delta"),
            format!("{delta} is not allowed; delta must be 0 or more"),
        );
    }
    let max_min = e.max_min.unwrap_or(true);
    if !max_min && e.delta.is_some() {
        return err(
            format!("{path}.delta"),
            "is set but max_min = false; delta only matters with the max-min enhancement",
        );
    }
    let source_averaging = match e.source_averaging {
        None => None,
        Some(d) if d > 0.0 && d < 1.0 => Some(d),
        Some(d) => {
            return err(
                format!("{path}.source_averaging"),
                format!(
                "{d} is not allowed; the decay factor must be strictly between 0 and 1 (e.g. 0.9)"
            ),
            )
        }
    };
    let alpha = unit(e.alpha, "alpha", 0.8, true)?;
    let load_averaging = match e.load_averaging.unwrap_or(LoadAveraging::None) {
        LoadAveraging::None => {
            if e.alpha.is_some() {
                return err(
                    format!("{path}.alpha"),
                    "is set but load_averaging = \"none\"; choose \"ratio\" or \"counts\"",
                );
            }
            LoadAvg::None
        }
        LoadAveraging::Ratio => LoadAvg::Ratio(alpha),
        LoadAveraging::Counts => LoadAvg::Counts(alpha),
    };
    let plus_cfg = if plus {
        let a = e.a.unwrap_or(1.15);
        let b = e.b.unwrap_or(1.05);
        for (k, v) in [("a", a), ("b", b)] {
            if !(v.is_finite() && v > 1.0) {
                return err(
                    format!("{path}.{k}"),
                    format!(
                        "{v} is not allowed; {k} must be above 1 (seed 003: a = 1.15, b = 1.05)"
                    ),
                );
            }
        }
        let t0 = e.t0.map(|d| d.ps()).unwrap_or(500 * PS_PER_US);
        if t0 == 0 {
            return err(format!("{path}.t0"), "must be longer than 0 s");
        }
        let qdlf = unit(e.qdlf, "qdlf", 0.5, true)?;
        Some(QueueControl {
            a,
            b,
            t0: atmsim_kernel::time::to_secs_f64(t0),
            qdlf,
        })
    } else {
        None
    };
    Ok(EricaCfg {
        target_utilization: if plus { 1.0 } else { u },
        interval_cells: cells,
        interval_time: itime,
        max_min_delta: if max_min { Some(delta) } else { None },
        fair_share_first: e.fair_share_first.unwrap_or(true),
        bidirectional_counting: e.bidirectional_counting.unwrap_or(false),
        source_averaging,
        immediate_fair_share: e.immediate_fair_share.unwrap_or(false),
        per_vc_ccr: e.per_vc_ccr.unwrap_or(false),
        load_averaging,
        one_er_per_interval: e.one_er_per_interval.unwrap_or(true),
        count_backward_rm: e.count_backward_rm.unwrap_or(true),
        plus: plus_cfg,
    })
}
