//! Request/response exchanges (seed 003 section 5.7): the client sends a request of
//! `request` cells; when it has arrived the server answers with `response` cells; when
//! the response has arrived the client thinks for `think`, then asks again.

use super::{EventLoad, OnMessage, SourceEnv, Start, TrafficCfg, TrafficModel};
use crate::config::err;
use crate::config::ConfigError;
use crate::network::CellDir;
use crate::registry::{Build, Resolve};
use crate::units::{CellCount, Duration};
use atmsim_kernel::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `kind = "request_response"`: the source sends a request of `request` cells; when the
/// destination has received it, it answers with `response` cells on the reverse direction;
/// when the whole response has arrived the source waits `think_time` and asks again (seed
/// 003, section 5.7.1). Both directions are sources and destinations.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestResponseSpec {
    /// Request size (default `"16 cells"`).
    #[serde(default)]
    pub request: Option<CellCount>,
    /// Response size, e.g. `"128 cells"`.
    pub response: CellCount,
    /// Pause between the end of a response and the next request (default `"0 s"`).
    #[serde(default)]
    pub think_time: Option<Duration>,
}

impl Resolve<Time> for RequestResponseSpec {
    type Cfg = RequestResponseCfg;
    /// Request and response of at least 1 cell (request default 16 cells); think time.
    fn resolve(&self, path: &str, _start: &Time) -> Result<RequestResponseCfg, ConfigError> {
        let request = self.request.map(|c| c.0).unwrap_or(16);
        if request == 0 {
            return err(
                format!("{path}.request"),
                "0 cells is not allowed; a request is at least 1 cell",
            );
        }
        if self.response.0 == 0 {
            return err(
                format!("{path}.response"),
                "0 cells is not allowed; a response is at least 1 cell",
            );
        }
        Ok(RequestResponseCfg {
            request,
            response: self.response.0,
            think: self.think_time.map(|d| d.ps()).unwrap_or(0),
        })
    }
}

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

impl Build<RequestResponseCfg, SourceEnv<'_>> for RequestResponse {
    fn build(cfg: &RequestResponseCfg, _: &SourceEnv<'_>) -> Self {
        RequestResponse { cfg: cfg.clone() }
    }
}

impl TrafficCfg for RequestResponseCfg {
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

    /// A think event per think time (none without thinking).
    fn event_loads(&self, _hops: usize) -> Vec<EventLoad> {
        if self.think == 0 {
            return Vec::new();
        }
        vec![EventLoad::every("traffic.think_time", self.think, 1.0)]
    }
}

impl TrafficModel for RequestResponse {
    fn start(&mut self, _now: Time, fwd: &mut CellDir) -> Start {
        fwd.add_backlog(self.cfg.request as u64);
        Start::Kick
    }

    fn on_think(&mut self, fwd: &mut CellDir) {
        fwd.add_backlog(self.cfg.request as u64);
    }

    fn on_message(&mut self, now: Time, reverse: bool, rev: Option<&mut CellDir>) -> OnMessage {
        if reverse {
            // The response arrived: the client thinks, then asks again.
            return OnMessage::ThinkUntil(now + self.cfg.think);
        }
        // The request arrived: the server answers (on the reverse direction, which the
        // connection has: `reverse_sends`).
        let Some(server) = rev.filter(|r| !r.is_stopped()) else {
            return OnMessage::Nothing;
        };
        server.add_backlog(self.cfg.response as u64);
        OnMessage::KickReverse
    }
}
