//! Partial Packet Discard (spec section 4): once a cell of a frame is lost, the rest of the
//! frame is dropped, except its EOM cell, which is queued if it fits so the receiver can
//! delimit the damaged frame. (YATS drops the EOM too; that corrupts two frames.)

use super::{Buffer, DropPolicy};
use crate::config::ConfigError;
use crate::registry::{Build, Resolve};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// PPD: every frame admitted; partial discard after a loss.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ppd;

/// `kind = "ppd"`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PpdSpec {}

impl Resolve<Buffer> for PpdSpec {
    type Cfg = Ppd;
    fn resolve(&self, _path: &str, _buffer: &Buffer) -> Result<Ppd, ConfigError> {
        Ok(Ppd)
    }
}

impl Build<Ppd, ()> for Ppd {
    fn build(cfg: &Ppd, _: &()) -> Self {
        *cfg
    }
}

impl DropPolicy for Ppd {
    fn partial_discard(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::view;
    use super::*;

    #[test]
    fn admits_and_discards_partially() {
        assert!(Ppd.admit_frame(&view(1000, 1000, 1, 1000)));
        assert!(Ppd.partial_discard());
    }
}
