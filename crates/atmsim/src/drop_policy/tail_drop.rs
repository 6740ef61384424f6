//! Tail drop: the plain UBR switch (seed 001, "UBR"). A cell is dropped only when the buffer
//! is full; the later cells of a damaged frame are still queued and waste link capacity.

use super::DropPolicy;

/// Tail drop: every frame admitted, no partial discard.
#[derive(Clone, Copy, Debug, Default)]
pub struct TailDrop;

impl DropPolicy for TailDrop {}

#[cfg(test)]
mod tests {
    use super::super::view;
    use super::*;

    #[test]
    fn admits_everything_and_keeps_damaged_frames() {
        assert!(TailDrop.admit_frame(&view(999, 1000, 5, 900)));
        assert!(!TailDrop.partial_discard());
    }
}
