//! Cell-level traffic: the resolved applications and the checks of their keys (seed 003
//! sections 5.2-5.7; seed 004 sections 5.2 and 6). Every error names the key path, the
//! value and what is allowed.

use super::schema::{FrameArrival, PeriodDistribution, TrafficSpec};
use crate::config::{err, ConfigError};
use crate::units::{CellCount, Duration, Rate};
use atmsim_kernel::Time;

pub use crate::traffic::{CellApp, VideoParams};
use crate::traffic::{CbrCfg, OnOffCfg, PersistentCfg, RequestResponseCfg, SessionsCfg};

/// Resolves a cell-level traffic spec (None for `tcp`, which has its own resolver).
pub fn resolve_cell_app(
    path: &str,
    t: &TrafficSpec,
    start: Time,
) -> Result<Option<CellApp>, ConfigError> {
    Ok(Some(match t {
        TrafficSpec::Tcp { .. } => return Ok(None),
        TrafficSpec::Persistent {
            rate_cap,
            cap_until,
        } => CellApp::Persistent(PersistentCfg {
            cap: rate_cap_until(path, *rate_cap, *cap_until, start)?,
        }),
        TrafficSpec::RequestResponse {
            request,
            response,
            think_time,
        } => request_response(path, *request, *response, *think_time)?,
        TrafficSpec::OnOff {
            peak_rate,
            on,
            off,
            phase,
        } => CellApp::OnOff(OnOffCfg {
            peak: positive_rate(&format!("{path}.peak_rate"), *peak_rate, "the peak rate")?,
            on: positive_time(&format!("{path}.on"), *on)?,
            off: off.ps(),
            phase: phase.map(|d| d.ps()).unwrap_or(0),
        }),
        TrafficSpec::Cbr { rate } => CellApp::Cbr(CbrCfg {
            rate: positive_rate(&format!("{path}.rate"), *rate, "the rate")?,
        }),
        TrafficSpec::Sessions {
            on,
            off,
            distribution,
        } => CellApp::Sessions(SessionsCfg {
            on: positive_time(&format!("{path}.on"), *on)?,
            off: positive_time(&format!("{path}.off"), *off)?,
            exponential: distribution.unwrap_or_default() == PeriodDistribution::Exponential,
        }),
        TrafficSpec::Video { .. } => CellApp::Video(video(path, t)?),
    }))
}

/// A rate above 0 (and finite), in cells/s.
fn positive_rate(key: &str, r: Rate, what: &str) -> Result<f64, ConfigError> {
    if !(r.cells_per_sec() > 0.0) || !r.bps().is_finite() {
        return err(
            key,
            format!("{r} is not allowed; {what} must be above 0 bps"),
        );
    }
    Ok(r.cells_per_sec())
}

/// A period longer than 0 s.
fn positive_time(key: &str, d: Duration) -> Result<Time, ConfigError> {
    if d.ps() == 0 {
        return err(key, "must be longer than 0 s");
    }
    Ok(d.ps())
}

/// An ACR-retaining source's cap (seed 003 5.7): a rate, until an optional time.
fn rate_cap_until(
    path: &str,
    rate_cap: Option<Rate>,
    cap_until: Option<Duration>,
    start: Time,
) -> Result<Option<(f64, Option<Time>)>, ConfigError> {
    match (rate_cap, cap_until) {
        (None, None) => Ok(None),
        (None, Some(_)) => err(
            format!("{path}.cap_until"),
            "is set without rate_cap; give the application's rate limit too",
        ),
        (Some(r), u) => {
            let rate = positive_rate(&format!("{path}.rate_cap"), r, "a rate cap")?;
            if let Some(u) = u {
                if u.ps() <= start {
                    return err(
                        format!("{path}.cap_until"),
                        format!("{u} is not after the connection's start"),
                    );
                }
            }
            Ok(Some((rate, u.map(|d| d.ps()))))
        }
    }
}

/// Request and response sizes (>= 1 cell; request default 16 cells) and think time.
fn request_response(
    path: &str,
    request: Option<CellCount>,
    response: CellCount,
    think_time: Option<Duration>,
) -> Result<CellApp, ConfigError> {
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
    Ok(CellApp::RequestResponse(RequestResponseCfg {
        request,
        response: response.0,
        think: think_time.map(|d| d.ps()).unwrap_or(0),
    }))
}

/// Heyman video (seed 004 5.2; spec 7): defaults PAL 25 frames/s, mean 130 cells,
/// sd 30 cells, rho 0.98, a 50-cell bucket at 4500 cells/s.
fn video(path: &str, t: &TrafficSpec) -> Result<VideoParams, ConfigError> {
    let TrafficSpec::Video {
        frame_rate,
        mean_cells,
        sd_cells,
        correlation,
        frame_arrival,
        bucket,
        bucket_rate,
    } = t
    else {
        unreachable!("video() is only called for video traffic")
    };
    let fr = frame_rate.unwrap_or(25.0);
    if !(fr.is_finite() && fr > 0.0 && fr <= 1000.0) {
        return err(
            format!("{path}.frame_rate"),
            format!("{fr} is not allowed; frames per second must be in (0, 1000] (PAL: 25)"),
        );
    }
    let (mean, sd) = frame_size(path, *mean_cells, *sd_cells)?;
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
    Ok(VideoParams {
        frame_time: ((atmsim_kernel::PS_PER_S as f64) / fr).round() as Time,
        mean,
        sd,
        rho,
        bucket: depth as f64,
        bucket_rate: br,
        spread: frame_arrival.unwrap_or_default() == FrameArrival::Spread,
    })
}

/// Mean and standard deviation of the frame size: a negative binomial needs sd^2 > mean.
fn frame_size(path: &str, mean: Option<f64>, sd: Option<f64>) -> Result<(f64, f64), ConfigError> {
    let mean = mean.unwrap_or(130.0);
    if !(mean.is_finite() && mean > 0.0) {
        return err(
            format!("{path}.mean_cells"),
            format!("{mean} is not allowed; the mean frame size must be above 0 cells"),
        );
    }
    let sd = sd.unwrap_or(30.0);
    if !(sd.is_finite() && sd * sd > mean) {
        return err(
            format!("{path}.sd_cells"),
            format!(
                "{sd} is not allowed; a negative binomial needs variance > mean, so sd_cells > sqrt(mean_cells) = {:.3}",
                mean.sqrt()
            ),
        );
    }
    Ok((mean, sd))
}
