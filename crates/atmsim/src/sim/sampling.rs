//! Time-series sampling: the recorder takes a sample every `sample_interval`.

use super::{Ev, Sim};
use atmsim_kernel::Time;

impl Sim<'_> {
    /// Records a time-series sample and schedules the next one.
    pub(super) fn on_sample(&mut self, now: Time) {
        self.rec.sample(now, &mut self.net);
        if let Some(si) = self.sc.sample_interval {
            self.q.schedule(now + si, Ev::Sample);
        }
    }
}
