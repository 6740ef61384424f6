//! A connection's service category and what depends on it: which traffic it may carry,
//! bandwidth reservations (VBR/CBR), ABR source parameters and TCP over ABR.

use super::model::ServiceClass;
use super::schema::{ServiceSpec, TrafficSpec};
use crate::config::{err, ConfigError};
use crate::units::Rate;

/// The class of a service spec.
pub fn class_of(s: ServiceSpec) -> ServiceClass {
    match s {
        ServiceSpec::Cbr => ServiceClass::Cbr,
        ServiceSpec::Vbr => ServiceClass::Vbr,
        ServiceSpec::Abr => ServiceClass::Abr,
        ServiceSpec::Ubr => ServiceClass::Ubr,
    }
}

/// The lower-case name of a class, as scenario files write it.
pub fn class_name(c: ServiceClass) -> String {
    format!("{c:?}").to_lowercase()
}

/// The traffic kind's name and the classes it may use: TCP and the greedy or
/// request/response sources need feedback or best effort (ABR, UBR); on/off runs in any
/// class; CBR and video are reserved-rate traffic (CBR, VBR) or UBR.
pub fn allowed_classes(t: &TrafficSpec) -> (&'static str, &'static [ServiceClass]) {
    use ServiceClass::*;
    match t {
        TrafficSpec::Tcp { .. } => ("tcp", &[Abr, Ubr]),
        TrafficSpec::Persistent { .. } => ("persistent", &[Abr, Ubr]),
        TrafficSpec::RequestResponse { .. } => ("request_response", &[Abr, Ubr]),
        TrafficSpec::Sessions { .. } => ("sessions", &[Abr, Ubr]),
        TrafficSpec::OnOff { .. } => ("on_off", &[Vbr, Cbr, Abr, Ubr]),
        TrafficSpec::Cbr { .. } => ("cbr", &[Cbr, Vbr, Ubr]),
        TrafficSpec::Video { .. } => ("video", &[Cbr, Vbr, Ubr]),
    }
}

/// Refuses a class the traffic kind cannot use, listing the allowed ones.
pub fn check_class(p: &str, class: ServiceClass, t: &TrafficSpec) -> Result<(), ConfigError> {
    let (kind, allowed) = allowed_classes(t);
    if allowed.contains(&class) {
        return Ok(());
    }
    let names: Vec<String> = allowed.iter().map(|c| format!("{:?}", class_name(*c))).collect();
    err(
        format!("{p}.service"),
        format!(
            "{:?} is not available for {kind} traffic; allowed: {}",
            class_name(class),
            names.join(", ")
        ),
    )
}

/// The reserved rate in cells/s (0: none): VBR and CBR only, above 0 bps.
pub fn reserve(p: &str, class: ServiceClass, r: Option<Rate>) -> Result<f64, ConfigError> {
    match r {
        None => Ok(0.0),
        Some(r) if !matches!(class, ServiceClass::Vbr | ServiceClass::Cbr) => err(
            format!("{p}.reserve"),
            format!(
                "{r} is set but service = {:?}; only vbr and cbr connections reserve bandwidth",
                class_name(class)
            ),
        ),
        Some(r) if !(r.bps() > 0.0 && r.bps().is_finite()) => err(
            format!("{p}.reserve"),
            format!("{r} is not allowed; a reservation must be above 0 bps"),
        ),
        Some(r) => Ok(r.cells_per_sec()),
    }
}
