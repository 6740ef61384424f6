//! The engine side of tracing: filters, per-kind row buffers of bounded size, and the
//! small per-port and per-connection state some kinds need (the queue intervals, TCP
//! recovery).

use super::{Kind, TraceCfg, TraceSink, CHUNK_ROWS, N_KINDS};
use atmsim_kernel::{time, Time};

/// A port's queue over the current `queue_interval`.
#[derive(Clone, Copy, Debug, Default)]
struct QueueTrack {
    /// Occupancy now, cells.
    q: u32,
    /// Time of the last change.
    at: Time,
    /// Start of the current interval.
    start: Time,
    /// Largest occupancy in the interval.
    max: u32,
    /// Integral of the occupancy over the interval, cell-ps.
    area: f64,
}

/// What the `load` trace counts for one connection at one port over the current averaging
/// interval (seed 000, slide 'Out-Of Phase Effect': the forward load and the backward RM
/// cells of the same VC, per interval at the switch).
#[derive(Clone, Copy, Debug, Default)]
struct LoadCount {
    /// Cells of the connection that arrived at the port (data and forward RM cells).
    cells: u32,
    /// Its backward RM cells the port's allocator gave feedback on.
    brm: u32,
    /// The connection was seen at the port (either count) since the trace began: it gets
    /// a row at every interval end from then on, zeros included.
    seen: bool,
}

/// What the TCP trace remembers of a connection: the sender's state when it last looked
/// (a row is written when it changed), whether it is in fast recovery, and the `recover`
/// point that ends it (RFC 6582: one past the highest segment sent when it started).
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpTrack {
    /// In fast recovery.
    pub in_recovery: bool,
    /// The recovery ends with an ACK at or past this segment.
    pub recover: u32,
    /// cwnd, bytes.
    pub cwnd: u64,
    /// ssthresh, bytes.
    pub ssthresh: u64,
    /// RTO, s.
    pub rto: f64,
    /// The sender's timeouts counter.
    pub timeouts: u64,
    /// Its fast retransmits counter.
    pub fast_retransmits: u64,
    /// Its duplicate ACKs counter.
    pub dup_acks: u64,
    /// snd_una.
    pub una: u32,
}

/// The trace recorder of a run. Off (the default) it holds nothing and records nothing.
pub struct Tracer<'a> {
    /// Any kind on and a sink attached: the one flag the engine's hooks test.
    pub on: bool,
    mask: u8,
    from: Time,
    to: Time,
    ports: Vec<bool>,
    conns: Vec<bool>,
    bufs: [Vec<f64>; N_KINDS],
    sink: Option<Box<dyn TraceSink + 'a>>,
    queue_interval: Time,
    queues: Vec<QueueTrack>,
    /// The load trace's counts, port-major (`p * connections + c`); empty unless recorded.
    load: Vec<LoadCount>,
    /// Per port, the end of its last averaging interval (the load trace's `interval_s`).
    load_start: Vec<Time>,
    /// Per connection, for the TCP trace.
    pub tcp: Vec<TcpTrack>,
    /// Per flow, the ACR (cells/s) the ACR trace last saw.
    pub acr: Vec<f64>,
    rows: [u64; N_KINDS],
    error: Option<String>,
}

impl Default for Tracer<'_> {
    fn default() -> Self {
        Tracer {
            on: false,
            mask: 0,
            from: 0,
            to: 0,
            ports: Vec::new(),
            conns: Vec::new(),
            bufs: Default::default(),
            sink: None,
            queue_interval: 1,
            queues: Vec::new(),
            load: Vec::new(),
            load_start: Vec::new(),
            tcp: Vec::new(),
            acr: Vec::new(),
            rows: [0; N_KINDS],
            error: None,
        }
    }
}

impl<'a> Tracer<'a> {
    /// A recorder for `cfg`, writing to `sink`.
    pub fn new(cfg: &TraceCfg, sink: Box<dyn TraceSink + 'a>) -> Self {
        let bufs = std::array::from_fn(|k| {
            if cfg.mask & (1 << k) != 0 {
                Vec::with_capacity(CHUNK_ROWS * Kind::ALL[k].info().columns.len())
            } else {
                Vec::new()
            }
        });
        let load_on = cfg.mask & Kind::Load.bit() != 0;
        let (np, nc) = (cfg.ports.len(), cfg.connections.len());
        Tracer {
            on: cfg.mask != 0,
            mask: cfg.mask,
            from: cfg.from,
            to: cfg.to,
            ports: cfg.ports.clone(),
            conns: cfg.connections.clone(),
            bufs,
            sink: Some(sink),
            queue_interval: cfg.queue_interval,
            queues: vec![
                QueueTrack {
                    start: cfg.from,
                    ..QueueTrack::default()
                };
                cfg.ports.len()
            ],
            load: vec![LoadCount::default(); if load_on { np * nc } else { 0 }],
            load_start: vec![0; if load_on { np } else { 0 }],
            tcp: vec![TcpTrack::default(); cfg.connections.len()],
            acr: vec![f64::NAN; 2 * cfg.connections.len()],
            rows: [0; N_KINDS],
            error: None,
        }
    }

    /// Whether `kind` is recorded at `now`.
    #[inline]
    pub fn wants(&self, kind: Kind, now: Time) -> bool {
        self.mask & kind.bit() != 0 && now >= self.from && now < self.to
    }

    /// Whether `kind` is recorded at all (time aside).
    #[inline]
    pub fn records(&self, kind: Kind) -> bool {
        self.mask & kind.bit() != 0
    }

    /// Whether port `p` is traced.
    #[inline]
    pub fn port(&self, p: usize) -> bool {
        self.ports.get(p).copied().unwrap_or(false)
    }

    /// Whether connection `c` is traced.
    #[inline]
    pub fn conn(&self, c: usize) -> bool {
        self.conns.get(c).copied().unwrap_or(false)
    }

    /// Records one row of `kind` (its columns in order); hands the buffer to the sink
    /// when it holds [`CHUNK_ROWS`] rows.
    pub fn push(&mut self, kind: Kind, row: &[f64]) {
        debug_assert_eq!(row.len(), kind.info().columns.len());
        let k = kind as usize;
        self.bufs[k].extend_from_slice(row);
        self.rows[k] += 1;
        if self.bufs[k].len() >= CHUNK_ROWS * row.len() {
            self.flush(kind);
        }
    }

    fn flush(&mut self, kind: Kind) {
        let k = kind as usize;
        if let Some(s) = self.sink.as_mut() {
            if !self.bufs[k].is_empty() {
                if let Err(e) = s.write(kind, &self.bufs[k]) {
                    // The sink failed (a full disk, a Python error): stop tracing, keep running.
                    self.error = Some(e);
                    self.on = false;
                    self.mask = 0;
                }
            }
        }
        self.bufs[k].clear();
    }

    /// Rows recorded so far, per kind.
    pub fn rows(&self) -> [u64; N_KINDS] {
        self.rows
    }

    /// Port `p`'s occupancy became `q` cells at `now`: closes the queue intervals that
    /// ended before `now` (one row each) and updates the current one.
    pub fn queue_changed(&mut self, now: Time, p: usize, q: u32) {
        let iv = self.queue_interval;
        let mut t = self.queues[p];
        if now >= t.start {
            let end = self.to;
            while now >= t.start + iv && t.start < end {
                let close = t.start + iv;
                t.area += t.q as f64 * (close - t.at.max(t.start)) as f64;
                self.push(
                    Kind::Queue,
                    &[
                        time::to_secs_f64(t.start),
                        p as f64,
                        t.q as f64,
                        t.max as f64,
                        t.area / iv as f64,
                    ],
                );
                t.start = close;
                t.at = close;
                t.max = t.q;
                t.area = 0.0;
            }
            if t.start < end {
                t.area += t.q as f64 * (now - t.at.max(t.start)) as f64;
                t.max = t.max.max(q);
            }
        } else {
            t.max = q;
        }
        t.q = q;
        t.at = now;
        self.queues[p] = t;
    }

    /// A cell of connection `c` that port `p`'s allocator counts as load (an ABR cell that
    /// is not a backward RM cell) arrived at the port.
    #[inline]
    pub fn count_load(&mut self, p: usize, c: usize) {
        if let Some(n) = self.load_slot(p, c) {
            n.cells += 1;
            n.seen = true;
        }
    }

    /// A backward RM cell of connection `c` passed the node of port `p`, whose allocator
    /// gave feedback on it.
    #[inline]
    pub fn count_brm(&mut self, p: usize, c: usize) {
        if let Some(n) = self.load_slot(p, c) {
            n.brm += 1;
            n.seen = true;
        }
    }

    fn load_slot(&mut self, p: usize, c: usize) -> Option<&mut LoadCount> {
        let nc = self.conns.len();
        if self.load.is_empty() || c >= nc {
            return None;
        }
        self.load.get_mut(p * nc + c)
    }

    /// Port `p`'s allocator ended an averaging interval at `now`: one `load` row per
    /// traced connection seen at the port so far (in the window, for a traced port), and
    /// the counts start again.
    pub fn load_interval(&mut self, now: Time, p: usize) {
        if self.load.is_empty() || p >= self.load_start.len() {
            return;
        }
        let start = std::mem::replace(&mut self.load_start[p], now);
        let write = self.wants(Kind::Load, now) && self.port(p);
        let nc = self.conns.len();
        for c in 0..nc {
            let n = self.load[p * nc + c];
            if write && n.seen && self.conns[c] {
                self.push(
                    Kind::Load,
                    &[
                        time::to_secs_f64(now),
                        p as f64,
                        c as f64,
                        time::to_secs_f64(now - start),
                        n.cells as f64,
                        n.brm as f64,
                    ],
                );
            }
            self.load[p * nc + c] = LoadCount {
                seen: n.seen,
                ..LoadCount::default()
            };
        }
    }

    /// The end of the run at `end`: closes the queue intervals up to it, hands every
    /// buffer to the sink. Returns the sink's error, if it failed.
    pub fn finish(&mut self, end: Time) -> Result<(), String> {
        if self.on && self.records(Kind::Queue) {
            for p in 0..self.queues.len() {
                if self.ports[p] {
                    let q = self.queues[p].q;
                    self.queue_changed(end.saturating_add(1), p, q);
                }
            }
        }
        for k in Kind::ALL {
            self.flush(k);
        }
        self.on = false;
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Attaches nothing and records nothing (the engine's default).
    pub fn off() -> Self {
        Tracer::default()
    }

    /// The sink, once more (the engine tells it the names).
    pub(crate) fn sink_mut(&mut self) -> Option<&mut (dyn TraceSink + 'a)> {
        self.sink.as_deref_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{MemorySink, TraceCfg};
    use super::*;

    #[test]
    fn queue_intervals_hold_last_max_and_mean() {
        let cfg = TraceCfg {
            mask: Kind::Queue.bit(),
            connections: vec![],
            ports: vec![true],
            from: 0,
            to: 1000,
            queue_interval: 100,
        };
        let mut sink = MemorySink::default();
        let mut t = Tracer::new(&cfg, Box::new(&mut sink));
        t.queue_changed(10, 0, 4); // 0 until 10, then 4
        t.queue_changed(60, 0, 2); // 4 until 60, then 2
        t.queue_changed(250, 0, 0); // 2 until 250
        t.finish(299).expect("no sink error");
        drop(t);
        let rows: Vec<&[f64]> = sink.rows(Kind::Queue).collect();
        assert_eq!(rows.len(), 3);
        // [0, 100): 0*10 + 4*50 + 2*40 = 280 -> mean 2.8, max 4, last 2.
        assert_eq!(rows[0][2..], [2.0, 4.0, 2.8]);
        // [100, 200): 2 throughout.
        assert_eq!(rows[1][2..], [2.0, 2.0, 2.0]);
        // [200, 300): 2 until 250, then 0.
        assert_eq!(rows[2][2..], [0.0, 2.0, 1.0]);
    }

    #[test]
    fn load_rows_count_each_connection_per_interval() {
        let cfg = TraceCfg {
            mask: Kind::Load.bit(),
            connections: vec![true, true, false],
            ports: vec![true, true],
            from: 0,
            to: 1000,
            queue_interval: 1,
        };
        let mut sink = MemorySink::default();
        let mut t = Tracer::new(&cfg, Box::new(&mut sink));
        // Interval [0, 100) at port 1: connection 0 brings 3 cells, connection 1 one BRM,
        // connection 2 (not traced) a cell; port 0 sees connection 1 only.
        for _ in 0..3 {
            t.count_load(1, 0);
        }
        t.count_brm(1, 1);
        t.count_load(1, 2);
        t.count_load(0, 1);
        t.load_interval(100, 1);
        // Interval [100, 250): connection 1 brings 2 BRMs, connection 0 nothing (a zero row:
        // it was seen before).
        t.count_brm(1, 1);
        t.count_brm(1, 1);
        t.load_interval(250, 1);
        t.load_interval(2000, 1); // outside the window: no rows, counts restart
        t.finish(2000).expect("no sink error");
        drop(t);
        let rows: Vec<&[f64]> = sink.rows(Kind::Load).collect();
        let s = |ps: u64| time::to_secs_f64(ps);
        assert_eq!(
            rows,
            vec![
                &[s(100), 1.0, 0.0, s(100), 3.0, 0.0][..],
                &[s(100), 1.0, 1.0, s(100), 0.0, 1.0][..],
                &[s(250), 1.0, 0.0, s(150), 0.0, 0.0][..],
                &[s(250), 1.0, 1.0, s(150), 0.0, 2.0][..],
            ]
        );
    }

    #[test]
    fn buffers_are_handed_over_in_chunks() {
        let cfg = TraceCfg {
            mask: Kind::Drop.bit(),
            connections: vec![true],
            ports: vec![true],
            from: 0,
            to: 10,
            queue_interval: 1,
        };
        let mut sink = MemorySink::default();
        let mut t = Tracer::new(&cfg, Box::new(&mut sink));
        let row = [0.0; 7];
        for _ in 0..CHUNK_ROWS + 5 {
            t.push(Kind::Drop, &row);
        }
        assert!(t.bufs[0].len() == 5 * 7, "a full chunk went to the sink");
        t.finish(10).expect("ok");
        drop(t);
        assert_eq!(sink.rows(Kind::Drop).count(), CHUNK_ROWS + 5);
    }
}
