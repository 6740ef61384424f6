//! Tail drop: the plain UBR switch (seed 001, "UBR"). A cell is dropped only when the buffer
//! is full; the later cells of a damaged frame are still queued and waste link capacity.

use super::{Buffer, DropPolicy};
use crate::config::ConfigError;
use crate::registry::{Build, Resolve};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Tail drop: every frame admitted, no partial discard.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TailDrop;

/// `kind = "tail_drop"`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TailDropSpec {}

impl Resolve<Buffer> for TailDropSpec {
    type Cfg = TailDrop;
    fn resolve(&self, _path: &str, _buffer: &Buffer) -> Result<TailDrop, ConfigError> {
        Ok(TailDrop)
    }
}

impl Build<TailDrop, ()> for TailDrop {
    fn build(cfg: &TailDrop, _: &()) -> Self {
        *cfg
    }
}

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
