//! No allocator: the port gives no ABR feedback (every hook keeps its default). A real
//! type, as smoltcp's `NoControl`, so "no algorithm" needs no special case anywhere.

use super::{PortEnv, RateAllocator};
use crate::config::ConfigError;
use crate::registry::{Build, Resolve};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A port without a rate allocator.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoAllocator;

impl RateAllocator for NoAllocator {
    #[inline]
    fn is_active(&self) -> bool {
        false
    }

    fn cells_taken(&self) -> super::CellsTaken {
        super::CellsTaken::None
    }
}

/// `kind = "none"`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoAllocatorSpec {}

impl Resolve<()> for NoAllocatorSpec {
    type Cfg = NoAllocator;
    fn resolve(&self, _path: &str, _: &()) -> Result<NoAllocator, ConfigError> {
        Ok(NoAllocator)
    }
}

impl Build<NoAllocator, PortEnv<'_>> for NoAllocator {
    fn build(_: &NoAllocator, _: &PortEnv) -> Self {
        NoAllocator
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::Cell;

    #[test]
    fn gives_no_feedback() {
        let mut a = NoAllocator;
        let mut c = Cell::data(0, 0, false);
        let before = c;
        assert!(!a.on_arrival(0, &mut c, 10));
        a.on_backward_rm(0, &mut c);
        assert_eq!(format!("{c:?}"), format!("{before:?}"));
        assert_eq!(a.interval_deadline(), None);
        assert!(!a.is_active());
    }
}
