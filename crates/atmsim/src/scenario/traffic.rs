//! Cell-level traffic (seed 003 sections 5.2-5.7; seed 004 sections 5.2 and 6): each
//! kind's keys, defaults and checks live with the kind in [`crate::traffic`], whose
//! registry generates [`crate::traffic::TrafficSpec`] and resolves it.

pub use crate::traffic::{CellApp, VideoParams};
