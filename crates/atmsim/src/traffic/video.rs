//! Heyman video source (seed 004 section 5.2; spec ALGORITHMS.md section 7): DAR(1)
//! negative-binomial frame sizes ([`crate::video::FrameSizes`]), each frame handed to the
//! transmitter's token bucket at the frame's start (`frame_arrival = "burst"`) or spread
//! evenly over the frame time (`"spread"`). The first frame starts at a random phase
//! (spec 7: avoid frame alignment).

use super::{EventLoad, SourceEnv, Start, TrafficCfg, TrafficModel};
use crate::cell::ServiceClass;
use crate::config::{err, ConfigError};
use crate::network::CellDir;
use crate::registry::{Build, Resolve};
use crate::units::{CellCount, Rate};
use crate::video::{FrameSizes, TokenBucket};
use atmsim_kernel::{RngStream, Time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `kind = "video"`: variable-rate video, Heyman et al.'s teleconference model (seed 004
/// section 5.2; spec section 7): one frame per 1/`frame_rate`; frame sizes in cells follow
/// a negative binomial marginal with geometrically decaying correlation (DAR(1): keep the
/// last size with probability `correlation`, else draw afresh); each frame's cells enter a
/// token bucket (`bucket` cells deep, filled at `bucket_rate`) at once or spread over the
/// frame time (`frame_arrival`) and leave at most at the access link rate. The first frame
/// starts at a random phase within one frame time.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VideoSpec {
    /// Frames per second (default 25, PAL).
    #[serde(default)]
    pub frame_rate: Option<f64>,
    /// Mean frame size, cells (default 130, Heyman's teleconference sequence).
    #[serde(default)]
    pub mean_cells: Option<f64>,
    /// Standard deviation of the frame size, cells (default 30).
    #[serde(default)]
    pub sd_cells: Option<f64>,
    /// Lag-1 autocorrelation rho of frame sizes, 0 <= rho < 1 (default 0.98).
    #[serde(default)]
    pub correlation: Option<f64>,
    /// How a frame's cells reach the token bucket: `burst` (default: all at the frame's
    /// start, so up to a bucket of cells leaves at the link rate, as seed 004 5.2
    /// describes: "cells may be transmitted at peak rate when there are tokens") or
    /// `spread` (evenly over the frame time, spec section 7).
    #[serde(default)]
    pub frame_arrival: Option<FrameArrival>,
    /// Token bucket depth (default `"50 cells"`, seed 004).
    #[serde(default)]
    pub bucket: Option<CellCount>,
    /// Token rate (default `"4500 cells/s"`, seed 004; about 1.9 Mbps).
    #[serde(default)]
    pub bucket_rate: Option<Rate>,
}

/// How a video frame's cells reach the shaper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FrameArrival {
    /// All at the frame's start.
    #[default]
    Burst,
    /// Evenly over the frame time.
    Spread,
}

impl Resolve<Time> for VideoSpec {
    type Cfg = VideoParams;
    /// Defaults (seed 004 5.2; spec 7): PAL 25 frames/s, mean 130 cells, sd 30 cells,
    /// rho 0.98, a 50-cell bucket at 4500 cells/s.
    fn resolve(&self, path: &str, _start: &Time) -> Result<VideoParams, ConfigError> {
        let fr = self.frame_rate.unwrap_or(25.0);
        if !(fr.is_finite() && fr > 0.0 && fr <= 1000.0) {
            return err(
                format!("{path}.frame_rate"),
                format!("{fr} is not allowed; frames per second must be in (0, 1000] (PAL: 25)"),
            );
        }
        let (mean, sd) = frame_size(path, self.mean_cells, self.sd_cells)?;
        let rho = self.correlation.unwrap_or(0.98);
        if !(rho.is_finite() && (0.0..1.0).contains(&rho)) {
            return err(
                format!("{path}.correlation"),
                format!("{rho} is not allowed; the correlation must satisfy 0 <= rho < 1"),
            );
        }
        let (bucket, bucket_rate) = token_bucket(path, self.bucket, self.bucket_rate)?;
        Ok(VideoParams {
            frame_time: ((atmsim_kernel::PS_PER_S as f64) / fr).round() as Time,
            mean,
            sd,
            rho,
            bucket,
            bucket_rate,
            spread: self.frame_arrival.unwrap_or_default() == FrameArrival::Spread,
        })
    }
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

/// Token bucket depth (at least 1 cell, default 50) and rate (above 0, default 4500
/// cells/s), seed 004.
fn token_bucket(
    path: &str,
    depth: Option<CellCount>,
    rate: Option<Rate>,
) -> Result<(f64, f64), ConfigError> {
    let depth = depth.map(|c| c.0).unwrap_or(50);
    if depth == 0 {
        return err(
            format!("{path}.bucket"),
            "0 cells is not allowed; the token bucket holds at least 1 cell",
        );
    }
    let br = rate.map(|r| r.cells_per_sec()).unwrap_or(4500.0);
    if !(br.is_finite() && br > 0.0) {
        return err(
            format!("{path}.bucket_rate"),
            "must be above 0 bps (seed 004: 4500 cells/s)",
        );
    }
    Ok((depth as f64, br))
}

/// Resolved parameters of the Heyman video source.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoParams {
    /// Time between frames.
    pub frame_time: Time,
    /// Mean frame size, cells.
    pub mean: f64,
    /// Standard deviation of the frame size, cells.
    pub sd: f64,
    /// DAR(1) correlation rho.
    pub rho: f64,
    /// Token bucket depth, cells.
    pub bucket: f64,
    /// Token rate, cells/s.
    pub bucket_rate: f64,
    /// Frames spread over the frame time (else: a burst at the frame's start).
    pub spread: bool,
}

/// A running video source: the frame generator and the frame in progress.
#[derive(Clone, Debug)]
pub struct Video {
    frame_time: Time,
    /// The first frame's offset from the connection's start, less than a frame time: the
    /// first draw of the stream `app/<connection>` of the run seed, made when the source is
    /// built (the stream is drawn from nowhere else).
    phase: Time,
    spread: bool,
    /// Frame sizes.
    sizes: FrameSizes,
    /// Cells of the current frame not yet handed to the shaper (spread frames).
    left: u32,
    /// Time between the current frame's cells (spread frames).
    spacing: Time,
    /// When the next frame starts (spread frames).
    next_frame: Time,
}

impl Build<VideoParams, SourceEnv<'_>> for Video {
    /// Frame sizes from the stream `video/<connection>` of the run seed.
    fn build(cfg: &VideoParams, env: &SourceEnv<'_>) -> Self {
        Video {
            frame_time: cfg.frame_time,
            phase: RngStream::named(env.seed, &["app/", env.conn]).below(cfg.frame_time),
            spread: cfg.spread,
            sizes: FrameSizes::new(
                RngStream::new(env.seed, &format!("video/{}", env.conn)),
                cfg.mean,
                cfg.sd,
                cfg.rho,
            ),
            left: 0,
            spacing: 0,
            next_frame: 0,
        }
    }
}

impl TrafficCfg for VideoParams {
    fn demand(&self) -> Option<f64> {
        Some(self.mean / atmsim_kernel::time::to_secs_f64(self.frame_time))
    }

    fn shaper(&self) -> Option<TokenBucket> {
        Some(TokenBucket::new(self.bucket, self.bucket_rate))
    }

    /// Reserved-rate traffic (CBR, VBR) or best effort.
    fn classes(&self) -> &'static [ServiceClass] {
        &[ServiceClass::Cbr, ServiceClass::Vbr, ServiceClass::Ubr]
    }

    /// A frame event per frame time and the shaper's cells.
    fn event_loads(&self, _hops: usize) -> Vec<EventLoad> {
        vec![
            EventLoad::every("traffic.frame_rate", self.frame_time, 1.0),
            EventLoad::cells("traffic.bucket_rate", self.bucket_rate),
        ]
    }
}

impl TrafficModel for Video {
    fn start(&mut self, now: Time, _fwd: &mut CellDir) -> Start {
        Start::GenAt(now + self.phase)
    }

    #[inline]
    fn on_gen(&mut self, now: Time, dir: &mut CellDir) -> Option<Time> {
        if !self.spread {
            // Frames as bursts: the whole frame enters the shaper at once.
            let x = self.sizes.next_frame();
            dir.add_backlog(x as u64);
            return Some(now + self.frame_time);
        }
        // A new frame's cells are spread evenly over the frame time.
        if self.left == 0 {
            let x = self.sizes.next_frame();
            self.next_frame = now + self.frame_time;
            self.left = x;
            self.spacing = self.frame_time / x.max(1) as Time;
        }
        if self.left > 0 {
            dir.add_backlog(1);
            self.left -= 1;
        }
        Some(if self.left > 0 {
            now + self.spacing
        } else {
            self.next_frame
        })
    }
}
