//! Heyman video source (seed 004 section 5.2; spec ALGORITHMS.md section 7): DAR(1)
//! negative-binomial frame sizes ([`crate::video::FrameSizes`]), each frame handed to the
//! transmitter's token bucket at the frame's start (`frame_arrival = "burst"`) or spread
//! evenly over the frame time (`"spread"`). The first frame starts at a random phase
//! (spec 7: avoid frame alignment).

use super::{Start, TrafficCfg, TrafficModel};
use crate::network::CellDir;
use crate::video::{FrameSizes, TokenBucket};
use atmsim_kernel::{RngStream, Time};

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

impl TrafficCfg for VideoParams {
    type Model = Video;

    fn build(&self, seed: u64, conn: &str) -> Video {
        Video {
            frame_time: self.frame_time,
            spread: self.spread,
            sizes: FrameSizes::new(
                RngStream::new(seed, &format!("video/{conn}")),
                self.mean,
                self.sd,
                self.rho,
            ),
            left: 0,
            spacing: 0,
            next_frame: 0,
        }
    }

    fn demand(&self) -> Option<f64> {
        Some(self.mean / atmsim_kernel::time::to_secs_f64(self.frame_time))
    }

    fn shaper(&self) -> Option<TokenBucket> {
        Some(TokenBucket::new(self.bucket, self.bucket_rate))
    }
}

impl TrafficModel for Video {
    fn start(&mut self, now: Time, _fwd: &mut CellDir, rng: &mut RngStream) -> Start {
        let phase = rng.below(self.frame_time);
        Start::GenAt(now + phase)
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
