//! Whether the run loop's look-ahead (`sim::prefetch`) pays, found out while the run goes
//! (issue 14).
//!
//! The hints name to the cache the lines the next events will touch. They pay where those
//! lines would miss, and cost their instructions (and the lines they bring in) where they
//! would not. No size of the network tells the two apart, and one run can be on both sides:
//! measured at 10 000 VCs (docs/performance-journal.md, "Look-ahead chosen while the run goes,
//! fortieth session"), the event loop took with the hints 1.14x its time without them in the
//! KVR bottleneck row and 0.875x in the KVR parking-lot row, 1.14x in the ERICA bottleneck row's
//! first 50 ms (every source starting at its PCR) and 0.81x in the ERICA parking-lot row's.
//!
//! So a large network's run is cut into windows of [`WINDOW`] events, and a [`Chooser`]
//! times them: a trial of [`TRIAL_PAIRS`] pairs of windows, one with the hints and one
//! without (in the order on-off, off-on, ... so that a steady drift of the events' cost
//! falls on both sides alike), then [`KEPT_WINDOWS`] windows with the hints if the median
//! of the pairs' ratios of time per event, with them over without (the mean of the middle
//! two), is below 1, else without; then another trial. A
//! window cut by the end of a slice of the run ([`super::Sim::run_until`]) goes on in the
//! next slice; its time is the sum of its pieces'.
//!
//! Hints only read state and name lines to the processor; which windows get them cannot
//! change a result (`tests/it/look_ahead.rs` runs every scenario with windows of a few
//! events and compares the bits). Only the time a run takes depends on the machine's clock.

/// Events in one window.
pub const WINDOW: u32 = 16_384;
/// Pairs of windows in a trial, one of each pair with the hints and one without.
pub const TRIAL_PAIRS: usize = 4;
/// Windows run with the trial's winner before the next trial.
pub const KEPT_WINDOWS: u32 = 48;

/// How the run loop decides on its look-ahead at the events in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookAhead {
    /// Never (a network whose state fits the caches, or hints forced off).
    Off,
    /// At every event (hints forced on).
    On,
    /// Chosen window by window by timing both ([`Chooser`]).
    Chosen,
}

/// Times windows of events with and without the hints and says which the next window gets.
#[derive(Clone, Debug)]
pub struct Chooser {
    /// Events in a window.
    window: u32,
    /// Events done in the current window so far.
    done: u32,
    /// Nanoseconds spent in the current window so far.
    nanos: u64,
    /// The window's place in the cycle: `0..2 * TRIAL_PAIRS` the trial's, then the kept ones.
    step: u32,
    /// Whether the current window gets the hints.
    on: bool,
    /// The winner of the last trial.
    kept: bool,
    /// Nanoseconds per event of the current pair's first window.
    first: f64,
    /// The trial's pairs: time per event with the hints over that without.
    ratios: [f64; TRIAL_PAIRS],
    /// Windows completed with the hints, and without.
    windows: [u64; 2],
}

impl Default for Chooser {
    fn default() -> Self {
        Chooser::with_window(WINDOW)
    }
}

impl Chooser {
    /// A chooser of windows of `window` events (at least 1), starting with a trial.
    pub fn with_window(window: u32) -> Chooser {
        Chooser {
            window: window.max(1),
            done: 0,
            nanos: 0,
            step: 0,
            on: true,
            kept: true,
            first: 0.0,
            ratios: [1.0; TRIAL_PAIRS],
            windows: [0, 0],
        }
    }

    /// Whether the current window gets the hints.
    #[inline]
    pub fn hints(&self) -> bool {
        self.on
    }

    /// Events left in the current window.
    #[inline]
    pub fn left(&self) -> u32 {
        self.window - self.done
    }

    /// Windows completed with the hints and without (for measurements).
    pub fn windows(&self) -> (u64, u64) {
        (self.windows[1], self.windows[0])
    }

    /// Counts `events` (at most [`Chooser::left`]) done in `nanos` nanoseconds in the
    /// current window; at its end, decides on the next one.
    pub fn record(&mut self, events: u32, nanos: u64) {
        debug_assert!(events <= self.left());
        self.done += events;
        self.nanos = self.nanos.saturating_add(nanos);
        if self.done == self.window {
            let per_event = self.nanos as f64 / self.window as f64;
            self.windows[usize::from(self.on)] += 1;
            self.done = 0;
            self.nanos = 0;
            self.end_window(per_event);
        }
    }

    /// The decision at the end of a window that took `per_event` ns per event.
    fn end_window(&mut self, per_event: f64) {
        let trial = 2 * TRIAL_PAIRS as u32;
        if self.step < trial {
            let pair = (self.step / 2) as usize;
            if self.step.is_multiple_of(2) {
                self.first = per_event;
            } else {
                let (with, without) = if self.on {
                    (per_event, self.first)
                } else {
                    (self.first, per_event)
                };
                self.ratios[pair] = ratio(with, without);
            }
            if self.step + 1 == trial {
                self.kept = median(self.ratios) < 1.0;
            }
        }
        self.step = (self.step + 1) % (trial + KEPT_WINDOWS);
        self.on = if self.step < trial {
            // Pairs alternate on-off and off-on: the 2nd and 3rd windows of a trial
            // (positions 1 and 2 within each four) go without.
            matches!(self.step % 4, 0 | 3)
        } else {
            self.kept
        };
    }
}

/// The events run since a moment, to be given to a [`Chooser`] with their time.
pub(super) struct WindowClock {
    since: std::time::Instant,
    /// Events run since.
    pub events: u32,
}

impl WindowClock {
    /// A clock started now, with no events.
    pub fn start() -> WindowClock {
        WindowClock {
            since: std::time::Instant::now(),
            events: 0,
        }
    }

    /// Gives `chooser` the events run since the last record and the time they took (none
    /// if no event ran), and starts again from now.
    pub fn record(&mut self, chooser: &mut Chooser) {
        let now = std::time::Instant::now();
        if self.events > 0 {
            let nanos = now.duration_since(self.since).as_nanos();
            chooser.record(self.events, u64::try_from(nanos).unwrap_or(u64::MAX));
        }
        self.since = now;
        self.events = 0;
    }
}

/// Time per event with the hints over that without: 1 (no side) if both are 0, infinite if
/// only the time without is.
fn ratio(with: f64, without: f64) -> f64 {
    if without > 0.0 {
        with / without
    } else if with > 0.0 {
        f64::INFINITY
    } else {
        1.0
    }
}

/// The median of the trial's ratios (the mean of the middle two).
fn median(mut r: [f64; TRIAL_PAIRS]) -> f64 {
    r.sort_by(f64::total_cmp);
    (r[TRIAL_PAIRS / 2 - 1] + r[TRIAL_PAIRS / 2]) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `c` over `windows` whole windows where an event takes `with` ns with the hints
    /// and `without` ns without; returns which windows got them.
    fn drive(c: &mut Chooser, windows: usize, with: u64, without: u64) -> Vec<bool> {
        (0..windows)
            .map(|_| {
                let on = c.hints();
                let n = c.left();
                c.record(n, n as u64 * if on { with } else { without });
                on
            })
            .collect()
    }

    #[test]
    fn a_trial_times_pairs_in_turn_then_keeps_the_faster_side() {
        let trial = 2 * TRIAL_PAIRS;
        let mut c = Chooser::with_window(10);
        let seen = drive(&mut c, trial + KEPT_WINDOWS as usize, 80, 100);
        assert_eq!(
            &seen[..8],
            &[true, false, false, true, true, false, false, true]
        );
        assert!(seen[trial..].iter().all(|&on| on), "hints faster: kept on");
        assert_eq!(c.windows(), (4 + KEPT_WINDOWS as u64, 4));
        // The next trial finds them slower and keeps them off.
        let seen = drive(&mut c, trial + KEPT_WINDOWS as usize, 120, 100);
        assert_eq!(seen[..trial].iter().filter(|&&on| on).count(), TRIAL_PAIRS);
        assert!(
            seen[trial..].iter().all(|&on| !on),
            "hints slower: kept off"
        );
        assert!(c.hints(), "then a trial again");
    }

    #[test]
    fn one_slow_window_does_not_decide_a_trial() {
        let mut c = Chooser::with_window(4);
        let mut seen = vec![];
        for w in 0..2 * TRIAL_PAIRS {
            let on = c.hints();
            // Hints 10 % faster, but the first window with them was hit by something else.
            let per = if on { 90 } else { 100 } * if w == 0 { 50 } else { 1 };
            seen.push(on);
            c.record(4, 4 * per);
        }
        assert!(c.hints(), "{seen:?}");
    }

    /// The side a trial whose pairs took `with[i]` and `without[i]` ns per event keeps.
    fn verdict(with: [u64; TRIAL_PAIRS], without: [u64; TRIAL_PAIRS]) -> bool {
        let mut c = Chooser::with_window(1);
        for _ in 0..2 * TRIAL_PAIRS {
            let pair = (c.step / 2) as usize;
            let t = if c.hints() { with[pair] } else { without[pair] };
            c.record(1, t);
        }
        assert_eq!(c.step as usize, 2 * TRIAL_PAIRS);
        c.hints()
    }

    #[test]
    fn a_trial_keeps_the_side_of_its_median_pair() {
        // One pair far faster with the hints, three a little slower: without.
        assert!(!verdict([10, 110, 110, 110], [100, 100, 100, 100]));
        // ... in any pair.
        assert!(!verdict([110, 110, 110, 10], [100, 100, 100, 100]));
        // One pair far slower with them, three a little faster: with.
        assert!(verdict([90, 90, 500, 90], [100, 100, 100, 100]));
        // Two pairs each way: the middle two ratios' mean, 0.8 and 1.1 -> 0.95: with.
        assert!(verdict([80, 110, 50, 300], [100, 100, 100, 100]));
        // ... 0.9 and 1.3 -> 1.1: without.
        assert!(!verdict([90, 130, 50, 300], [100, 100, 100, 100]));
        // A tie is no gain: without.
        assert!(!verdict([100; 4], [100; 4]));
        assert!(!verdict([0; 4], [0; 4]));
        // No time without them but some with: without.
        assert!(!verdict([5; 4], [0; 4]));
    }

    #[test]
    fn a_window_cut_into_pieces_counts_their_sum() {
        let mut c = Chooser::with_window(10);
        c.record(3, 300);
        assert_eq!((c.left(), c.hints()), (7, true));
        c.record(7, 700);
        assert_eq!((c.left(), c.hints()), (10, false));
        assert_eq!(c.windows(), (1, 0));
        // The off window of the pair takes 200 ns per event: hints were faster.
        c.record(10, 2000);
        assert_eq!(c.ratios[0], 0.5);
    }

    #[test]
    fn a_window_is_at_least_one_event() {
        let c = Chooser::with_window(0);
        assert_eq!(c.left(), 1);
    }
}
