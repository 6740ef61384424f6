//! Signalling: connections opening and closing at the ports on their routes.
//!
//! An ABR connection's opening/closing and a VBR/CBR connection's reservation travel
//! hop by hop on a signalling channel of their own (seed 004 5.2), as [`Ev::Signal`]
//! events; each port's allocator learns of them.

use super::{Ev, Sim};
use crate::allocator::RateAllocator;
use crate::cell::FlowId;
use atmsim_kernel::Time;

/// Signalling: an ABR connection opens.
pub const SIG_OPEN: u32 = 0;
/// Signalling: an ABR connection closes.
pub const SIG_CLOSE: u32 = 1;
/// Signalling: a VBR/CBR connection's reservation starts.
pub const SIG_RESERVE: u32 = 2;
/// Signalling: a VBR/CBR connection's reservation ends.
pub const SIG_RELEASE: u32 = 3;

impl Sim<'_> {
    /// Connection `c` opens (`open`) or closes: its ABR directions signal open/close to
    /// the ports on their routes (sessions traffic signals per session instead), and a
    /// VBR/CBR reservation starts or ends.
    pub(super) fn signal_connection(&mut self, now: Time, c: usize, open: bool) {
        let cfg = &self.sc.connections[c];
        if cfg.reserve > 0.0 {
            let a = if open { SIG_RESERVE } else { SIG_RELEASE };
            self.signal(now, FlowId::forward(c), 0, a);
        }
        if cfg.app.as_deref().is_some_and(|a| a.signals_per_session()) {
            return;
        }
        for d in 0..2 {
            let has_abr = self
                .net
                .conns
                .dir(c, d)
                .is_some_and(|dir| dir.abr().is_some());
            if has_abr {
                let action = if open { SIG_OPEN } else { SIG_CLOSE };
                self.signal(now, FlowId::of(c, d), 0, action);
            }
        }
    }

    /// A signalling message of flow `f` reaches hop `hop` of its route: the port's
    /// allocator learns of it, and the message goes on to the next hop after the link's
    /// propagation delay (seed 004 5.2: "a special cell through the path of the
    /// connection"). It travels on a signalling channel of its own, ahead of the data:
    /// it never waits in a queue and is never lost. A pre-established connection's
    /// opening reaches every hop at once.
    pub(super) fn signal(&mut self, now: Time, f: FlowId, hop: usize, action: u32) {
        let p = self.net.route_port(f, hop);
        let rate = self.sc.connections[f.conn()].reserve;
        let alloc = self.net.alloc_mut(p);
        match action {
            SIG_OPEN => alloc.on_open(f.index()),
            SIG_CLOSE => alloc.on_close(f.index()),
            SIG_RESERVE => alloc.on_reserve(rate),
            _ => alloc.on_reserve(-rate),
        }
        if hop + 1 < self.net.flow(f).route_len as usize {
            let instant = self.sc.connections[f.conn()].pre_established
                && (action == SIG_OPEN || action == SIG_RESERVE);
            if instant {
                return self.signal(now, f, hop + 1, action);
            }
            let at = now + self.net.timing(p).prop;
            self.q
                .schedule(at, Ev::Signal(f, ((hop as u32 + 1) << 2) | action));
        }
    }
}
