//! The SACK sender's scoreboard (RFC 6675 section 3, `Update()`, `IsLost()`, `SetPipe()`), in
//! whole segments: the segments at or above snd_una that the receiver reported held, as sorted,
//! disjoint, non-adjacent half-open ranges. Its size is the number of holes, not the window.

use super::congestion::SackBlock;

/// SACKed segments above snd_una.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    /// Sorted, disjoint, non-adjacent `(start, end)` ranges.
    ranges: Vec<(u32, u32)>,
}

impl Scoreboard {
    /// An empty scoreboard with room for `holes` ranges before it allocates.
    pub fn with_capacity(holes: usize) -> Self {
        Scoreboard {
            ranges: Vec::with_capacity(holes),
        }
    }

    /// The SACKed ranges, lowest first.
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    /// Forgets segments below `una` (they are acknowledged cumulatively).
    pub fn advance(&mut self, una: u32) {
        let gone = self.ranges.iter().take_while(|r| r.1 <= una).count();
        self.ranges.drain(..gone);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(una);
        }
    }

    /// RFC 6675 `Update()`: records `blocks`, clipped to `una..max` (a block below snd_una, such
    /// as a D-SACK report of a duplicate, or beyond what was sent, adds nothing). Returns the
    /// number of segments SACKed for the first time.
    pub fn update(&mut self, una: u32, max: u32, blocks: &[SackBlock]) -> u32 {
        let mut new = 0;
        for b in blocks {
            let (start, end) = (b.start.max(una), b.end.min(max));
            if start < end {
                new += (end - start) - self.sacked_in(start, end);
                self.insert(start, end);
            }
        }
        new
    }

    fn insert(&mut self, start: u32, end: u32) {
        // Ranges touching or overlapping start..end merge with it.
        let i = self.ranges.partition_point(|r| r.1 < start);
        let j = self.ranges.partition_point(|r| r.0 <= end);
        if i == j {
            self.ranges.insert(i, (start, end));
            return;
        }
        let merged = (start.min(self.ranges[i].0), end.max(self.ranges[j - 1].1));
        self.ranges[i] = merged;
        self.ranges.drain(i + 1..j);
    }

    /// Segment `seg` was SACKed.
    pub fn is_sacked(&self, seg: u32) -> bool {
        let i = self.ranges.partition_point(|r| r.1 <= seg);
        self.ranges.get(i).is_some_and(|r| r.0 <= seg)
    }

    /// SACKed segments in `a..b`.
    pub fn sacked_in(&self, a: u32, b: u32) -> u32 {
        self.ranges
            .iter()
            .map(|&(s, e)| e.min(b).saturating_sub(s.max(a)))
            .sum()
    }

    /// SACKed segments above `seg`.
    pub fn sacked_above(&self, seg: u32) -> u32 {
        self.sacked_in(seg + 1, u32::MAX)
    }

    /// RFC 6675 `IsLost()` with whole segments: at least `dupthresh` segments above `seg` are
    /// SACKed (the RFC's "more than (DupThresh - 1) * SMSS bytes").
    pub fn is_lost(&self, seg: u32, dupthresh: u32) -> bool {
        self.sacked_above(seg) >= dupthresh
    }

    /// One past the highest SACKed segment, if any.
    pub fn highest_end(&self) -> Option<u32> {
        self.ranges.last().map(|r| r.1)
    }

    /// The holes (un-SACKed ranges) from `una` up to `max`, lowest first, each with the number
    /// of SACKed segments above it.
    fn holes(&self, una: u32, max: u32) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        let mut above = self.sacked_in(una, max);
        let mut cur = una;
        let tail = std::iter::once((max, max));
        self.ranges
            .iter()
            .copied()
            .chain(tail)
            .filter_map(move |(s, e)| {
                let hole = (cur, s.max(cur), above);
                above -= e.min(max).saturating_sub(s);
                cur = cur.max(e);
                (hole.0 < hole.1).then_some(hole)
            })
    }

    /// RFC 6675 `SetPipe()`: segments from `una` to `max` not SACKed count once if not lost
    /// and once more if retransmitted (below `rxt_end`, one past RFC 6675's HighRxt).
    pub fn pipe(&self, una: u32, max: u32, rxt_end: u32, dupthresh: u32) -> u32 {
        self.holes(una, max)
            .map(|(a, b, above)| {
                let in_flight = if above >= dupthresh { 0 } else { b - a };
                in_flight + rxt_end.min(b).saturating_sub(a)
            })
            .sum()
    }

    /// RFC 6675 `NextSeg()` rule 1 (`lost`) or rule 3: the lowest un-SACKed segment at or above
    /// `from`, below the highest SACKed one, that is lost (rule 1) or any (rule 3).
    pub fn next_hole(&self, una: u32, from: u32, lost: Option<u32>) -> Option<u32> {
        let top = self.highest_end()?;
        self.holes(una, top)
            .filter(|&(_, b, above)| b > from && lost.is_none_or(|d| above >= d))
            .map(|(a, _, _)| a.max(from))
            .next()
    }

    /// The highest un-SACKed segment below `max` and at or above `una` (RFC 6675 rule 4).
    pub fn highest_hole(&self, una: u32, max: u32) -> Option<u32> {
        let seg = match self.ranges.last() {
            Some(&(s, e)) if e >= max => s.checked_sub(1)?,
            _ => max.checked_sub(1)?,
        };
        (seg >= una).then_some(seg)
    }

    /// The first segment at or above `seg` that is not SACKed.
    pub fn skip_sacked(&self, seg: u32) -> u32 {
        let i = self.ranges.partition_point(|r| r.1 <= seg);
        match self.ranges.get(i) {
            Some(&(s, e)) if s <= seg => e,
            _ => seg,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(start: u32, end: u32) -> SackBlock {
        SackBlock { start, end }
    }

    #[test]
    fn reordered_blocks_merge_into_ranges() {
        let mut sb = Scoreboard::default();
        // Segments 10 and 14 lost; 11..14 and 15..20 arrive, the ACKs reordered.
        assert_eq!(sb.update(10, 20, &[b(15, 17)]), 2);
        assert_eq!(sb.update(10, 20, &[b(11, 13), b(15, 17)]), 2);
        assert_eq!(sb.update(10, 20, &[b(15, 20), b(11, 14)]), 4);
        assert_eq!(sb.ranges(), &[(11, 14), (15, 20)]);
        // An older ACK arriving late adds nothing.
        assert_eq!(sb.update(10, 20, &[b(11, 12)]), 0);
        assert_eq!(sb.ranges(), &[(11, 14), (15, 20)]);
        assert!(sb.is_sacked(11) && !sb.is_sacked(10) && !sb.is_sacked(14) && sb.is_sacked(19));
        assert_eq!(sb.sacked_above(10), 8);
        assert_eq!(sb.sacked_above(14), 5);
    }

    #[test]
    fn duplicate_overlapping_and_stale_blocks() {
        let mut sb = Scoreboard::default();
        assert_eq!(sb.update(5, 30, &[b(8, 12), b(8, 12), b(10, 15)]), 7);
        assert_eq!(sb.ranges(), &[(8, 15)]);
        // D-SACK-like report of a duplicate below snd_una, and a block covering acked data.
        assert_eq!(sb.update(5, 30, &[b(1, 3), b(2, 9)]), 3);
        assert_eq!(sb.ranges(), &[(5, 15)]);
        // A block beyond what was sent is clipped; an adjacent block merges.
        assert_eq!(sb.update(5, 30, &[b(15, 40)]), 15);
        assert_eq!(sb.ranges(), &[(5, 30)]);
        sb.advance(12);
        assert_eq!(sb.ranges(), &[(12, 30)]);
        sb.advance(30);
        assert!(sb.ranges().is_empty());
    }

    #[test]
    fn bridging_block_merges_three_ranges() {
        let mut sb = Scoreboard::default();
        sb.update(0, 100, &[b(10, 12), b(20, 22), b(30, 32), b(40, 42)]);
        assert_eq!(sb.update(0, 100, &[b(11, 31)]), 16);
        assert_eq!(sb.ranges(), &[(10, 32), (40, 42)]);
    }

    #[test]
    fn pipe_lost_and_next_segment() {
        let mut sb = Scoreboard::default();
        // una 0, sent 0..12; holes 0, 4..6; SACKed 1..4, 6..8; 8..12 in flight.
        sb.update(0, 12, &[b(1, 4), b(6, 8)]);
        assert!(sb.is_lost(0, 3), "5 SACKed above segment 0");
        assert!(
            !sb.is_lost(4, 3) && !sb.is_lost(5, 3),
            "2 SACKed above 4 and 5"
        );
        // Not lost: 4, 5, 8..12 = 6; retransmitted 0 (rxt_end 1) adds 1.
        assert_eq!(sb.pipe(0, 12, 0, 3), 6);
        assert_eq!(sb.pipe(0, 12, 1, 3), 7);
        assert_eq!(sb.next_hole(0, 0, Some(3)), Some(0));
        assert_eq!(
            sb.next_hole(0, 1, Some(3)),
            None,
            "4 and 5 are not lost yet"
        );
        assert_eq!(sb.next_hole(0, 1, None), Some(4), "rule 3");
        assert_eq!(
            sb.next_hole(0, 6, None),
            None,
            "nothing un-SACKed below the highest SACK"
        );
        assert_eq!(sb.highest_hole(0, 12), Some(11));
        sb.update(0, 12, &[b(8, 12)]);
        assert_eq!(sb.highest_hole(0, 12), Some(5));
        assert_eq!(sb.skip_sacked(1), 4);
        assert_eq!(sb.skip_sacked(4), 4);
    }
}
