//! Engine events as the event queue holds them: three 32-bit words (issue 14,
//! docs/performance.md, "Events and cells kept whole, thirty-sixth session").
//!
//! An [`Ev`] is an enum of a tag and up to two 32-bit fields. Handed to the queue as it
//! is, the compiler writes it to the stack field by field (a 4-byte tag, then each field)
//! and copies it into the queue's node with one 8-byte and one 4-byte load. A load that
//! spans two earlier stores cannot take its bytes from the processor's store buffer: it
//! waits until both stores, and every store before them, have reached the cache. On
//! `atmsim bench` those two loads were the hottest instructions of every cell-hop; at
//! 10 000 VCs, where the stores before them miss the cache, they waited for each miss.
//!
//! As three words ([`PackedEv`]), an event is an array the compiler keeps in registers and
//! stores into the node word by word, and reads back word by word when it pops: no load
//! spans two stores. The conversion is a `match` that folds away where the event's kind is
//! known (every call site of `schedule`).

use super::Ev;
use crate::cell::FlowId;

/// An [`Ev`] as three words: its kind, then its fields (0 where it has fewer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackedEv([u32; 3]);

impl From<Ev> for PackedEv {
    #[inline(always)]
    fn from(ev: Ev) -> PackedEv {
        let flow = FlowId::raw;
        PackedEv(match ev {
            Ev::TxDone(p) => [0, p, 0],
            Ev::Arrive(p) => [1, p, 0],
            Ev::TxDoneRuns(p) => [2, p, 0],
            Ev::ArriveRuns(p) => [3, p, 0],
            Ev::Start(c) => [4, c, 0],
            Ev::Stop(c) => [5, c, 0],
            Ev::Tick(r) => [6, r, 0],
            Ev::Rexmt(c, g) => [7, c, g],
            Ev::DelAck(c) => [8, c, 0],
            Ev::Sample => [9, 0, 0],
            Ev::Send(f, g) => [10, flow(f), g],
            Ev::Gen(f) => [11, flow(f), 0],
            Ev::Write(c) => [12, c, 0],
            Ev::Burst(c) => [13, c, 0],
            Ev::Think(c) => [14, c, 0],
            Ev::Interval(p, g) => [15, p, g],
            Ev::Signal(f, h) => [16, flow(f), h],
            Ev::Session(c) => [17, c, 0],
            Ev::Admit(p) => [18, p, 0],
        })
    }
}

impl From<PackedEv> for Ev {
    #[inline(always)]
    fn from(PackedEv([kind, a, b]): PackedEv) -> Ev {
        let flow = |a: u32| FlowId::from_index(a as usize);
        match kind {
            0 => Ev::TxDone(a),
            1 => Ev::Arrive(a),
            2 => Ev::TxDoneRuns(a),
            3 => Ev::ArriveRuns(a),
            4 => Ev::Start(a),
            5 => Ev::Stop(a),
            6 => Ev::Tick(a),
            7 => Ev::Rexmt(a, b),
            8 => Ev::DelAck(a),
            9 => Ev::Sample,
            10 => Ev::Send(flow(a), b),
            11 => Ev::Gen(flow(a)),
            12 => Ev::Write(a),
            13 => Ev::Burst(a),
            14 => Ev::Think(a),
            15 => Ev::Interval(a, b),
            16 => Ev::Signal(flow(a), b),
            17 => Ev::Session(a),
            18 => Ev::Admit(a),
            _ => unreachable!("only an Ev is packed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of event, with fields that tell them apart, comes back as it went in, and
    /// no two kinds pack alike.
    #[test]
    fn every_event_comes_back_as_it_went_in() {
        let (f, g) = (FlowId::from_index(7), 0xdead_beef);
        let all = [
            Ev::TxDone(3),
            Ev::Arrive(4),
            Ev::TxDoneRuns(5),
            Ev::ArriveRuns(u32::MAX),
            Ev::Start(6),
            Ev::Stop(7),
            Ev::Tick(8),
            Ev::Rexmt(9, g),
            Ev::DelAck(10),
            Ev::Sample,
            Ev::Send(f, g),
            Ev::Gen(f),
            Ev::Write(11),
            Ev::Burst(12),
            Ev::Think(13),
            Ev::Interval(14, g),
            Ev::Signal(f, 0b1110),
            Ev::Session(15),
            Ev::Admit(16),
        ];
        let mut kinds = std::collections::BTreeSet::new();
        for ev in all {
            let packed = PackedEv::from(ev);
            assert!(kinds.insert(packed.0[0]), "{ev:?}: a kind packed twice");
            assert_eq!(format!("{:?}", Ev::from(packed)), format!("{ev:?}"));
        }
    }
}
