//! Request/response exchanges (seed 003 section 5.7): the client sends a request of
//! `request` cells; when it has arrived the server answers with `response` cells; when
//! the response has arrived the client thinks for `think`, then asks again.

use super::{OnMessage, Start, TrafficCfg, TrafficModel};
use crate::network::CellDir;
use atmsim_kernel::{RngStream, Time};

/// Resolved configuration of a request/response exchange.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestResponseCfg {
    /// Request size, cells.
    pub request: u32,
    /// Response size, cells.
    pub response: u32,
    /// Pause after a response before the next request.
    pub think: Time,
}

/// A running request/response exchange.
#[derive(Clone, Debug)]
pub struct RequestResponse {
    cfg: RequestResponseCfg,
}

impl TrafficCfg for RequestResponseCfg {
    type Model = RequestResponse;

    fn build(&self, _seed: u64, _conn: &str) -> RequestResponse {
        RequestResponse { cfg: self.clone() }
    }

    /// No steady demand: outside the max-min allocation.
    fn demand(&self) -> Option<f64> {
        Some(0.0)
    }

    fn message_cells(&self) -> [u32; 2] {
        [self.request, self.response]
    }

    fn reverse_sends(&self) -> bool {
        true
    }
}

impl TrafficModel for RequestResponse {
    fn start(&mut self, _now: Time, fwd: &mut CellDir, _rng: &mut RngStream) -> Start {
        fwd.add_backlog(self.cfg.request as u64);
        Start::Kick
    }

    fn on_think(&mut self, fwd: &mut CellDir) {
        fwd.add_backlog(self.cfg.request as u64);
    }

    fn on_message(&mut self, now: Time, reverse: bool, dirs: &mut [CellDir; 2]) -> OnMessage {
        if reverse {
            // The response arrived: the client thinks, then asks again.
            return OnMessage::ThinkUntil(now + self.cfg.think);
        }
        // The request arrived: the server answers.
        if dirs[1].is_stopped() {
            return OnMessage::Nothing;
        }
        dirs[1].add_backlog(self.cfg.response as u64);
        OnMessage::KickReverse
    }
}
