//! The order in which cells reaching a switch at the same instant from several inputs
//! enter an output port's queue (`defaults.arrival_order`, issue 15 section 4).
//!
//! No seed states it (seed 001 only says "UBR: tail drop"); it decides which of the
//! cells arriving together a nearly full buffer drops. Unset (`event_order`), a cell
//! enters its output queue when its arrival event runs: events at one instant run in the
//! order they were scheduled, and this module is not used. Set, the cells of one instant
//! are held per output port and admitted together, after every other event of that
//! instant (transmissions included), in the chosen order:
//! - `input_order`: by input port (the order the links are declared; src1 first);
//! - `round_robin`: the input after the one served first last time goes first;
//! - `random`: a uniform shuffle from the run's stream `"arrival_order"`.

use crate::cell::Cell;
use crate::scenario::model::ArrivalOrder;
use atmsim_kernel::rng::RngStream;

/// Cells held until the end of their arrival instant, per output port.
pub struct Staging {
    order: ArrivalOrder,
    /// Per output port: (input port, cell) of the cells that arrived this instant.
    held: Vec<Vec<(u32, Cell)>>,
    /// Per output port: the input port served first next time (`round_robin`).
    next: Vec<u32>,
    n_ports: u32,
    rng: RngStream,
}

impl Staging {
    /// Staging for `n_ports` ports, or None for `event_order` (today's behaviour).
    pub fn new(order: ArrivalOrder, n_ports: usize, seed: u64) -> Option<Self> {
        if order == ArrivalOrder::EventOrder {
            return None;
        }
        Some(Staging {
            order,
            held: vec![Vec::new(); n_ports],
            next: vec![0; n_ports],
            n_ports: n_ports as u32,
            rng: RngStream::new(seed, "arrival_order"),
        })
    }

    /// Holds `cell`, arrived from port `input`, for output port `out`; true if it is the
    /// first of its instant there (the caller schedules the admission).
    #[inline]
    pub fn hold(&mut self, out: usize, input: usize, cell: Cell) -> bool {
        let h = &mut self.held[out];
        h.push((input as u32, cell));
        h.len() == 1
    }

    /// The cells held for `out`, in admission order (the vector keeps its capacity: give
    /// it back with [`Staging::give_back`]).
    pub fn take_ordered(&mut self, out: usize) -> Vec<(u32, Cell)> {
        let mut h = std::mem::take(&mut self.held[out]);
        match self.order {
            ArrivalOrder::EventOrder => {}
            ArrivalOrder::InputOrder => h.sort_unstable_by_key(|e| e.0),
            ArrivalOrder::RoundRobin => {
                let (start, n) = (self.next[out], self.n_ports);
                h.sort_unstable_by_key(|e| (e.0 + n - start) % n);
                if let Some(first) = h.first() {
                    self.next[out] = (first.0 + 1) % n;
                }
            }
            ArrivalOrder::Random => {
                for i in (1..h.len()).rev() {
                    let j = self.rng.below(i as u64 + 1) as usize;
                    h.swap(i, j);
                }
            }
        }
        h
    }

    /// Returns the emptied vector of `out` (keeps its capacity: nothing allocates per cell).
    pub fn give_back(&mut self, out: usize, mut h: Vec<(u32, Cell)>) {
        h.clear();
        self.held[out] = h;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held_inputs(s: &mut Staging, out: usize, inputs: &[usize]) -> Vec<u32> {
        for &i in inputs {
            s.hold(out, i, Cell::data(i as u32, 0, false));
        }
        let h = s.take_ordered(out);
        let order = h.iter().map(|e| e.0).collect();
        s.give_back(out, h);
        order
    }

    #[test]
    fn event_order_is_no_staging() {
        assert!(Staging::new(ArrivalOrder::EventOrder, 4, 1).is_none());
    }

    #[test]
    fn input_order_sorts_by_input_port() {
        let mut s = Staging::new(ArrivalOrder::InputOrder, 8, 1).unwrap();
        assert_eq!(held_inputs(&mut s, 0, &[5, 1, 3]), vec![1, 3, 5]);
        assert_eq!(held_inputs(&mut s, 0, &[3, 5, 1]), vec![1, 3, 5]);
    }

    #[test]
    fn round_robin_rotates_the_first_served_input() {
        let mut s = Staging::new(ArrivalOrder::RoundRobin, 8, 1).unwrap();
        assert_eq!(held_inputs(&mut s, 0, &[5, 1, 3]), vec![1, 3, 5]);
        assert_eq!(held_inputs(&mut s, 0, &[5, 1, 3]), vec![3, 5, 1]);
        assert_eq!(held_inputs(&mut s, 0, &[5, 1, 3]), vec![5, 1, 3]);
        assert_eq!(held_inputs(&mut s, 0, &[5, 1, 3]), vec![1, 3, 5]);
        // Each output port keeps its own position.
        assert_eq!(held_inputs(&mut s, 1, &[5, 1, 3]), vec![1, 3, 5]);
    }

    #[test]
    fn random_puts_every_input_first_sometimes() {
        let mut s = Staging::new(ArrivalOrder::Random, 8, 7).unwrap();
        let mut first = [0u32; 8];
        for _ in 0..300 {
            let o = held_inputs(&mut s, 2, &[1, 3, 5]);
            let mut sorted = o.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, vec![1, 3, 5]);
            first[o[0] as usize] += 1;
        }
        assert!(first[1] > 60 && first[3] > 60 && first[5] > 60, "{first:?}");
    }

    #[test]
    fn unknown_names_are_refused_with_the_allowed_ones() {
        let e = ArrivalOrder::parse(Some("fifo")).unwrap_err().to_string();
        assert!(
            e.contains("defaults.arrival_order")
                && e.contains("\"fifo\"")
                && e.contains("round_robin"),
            "{e}"
        );
        assert_eq!(ArrivalOrder::parse(None).unwrap(), ArrivalOrder::EventOrder);
        assert_eq!(
            ArrivalOrder::parse(Some("random")).unwrap(),
            ArrivalOrder::Random
        );
    }
}
