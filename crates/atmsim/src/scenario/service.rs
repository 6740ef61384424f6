//! A connection's service category and what depends on it: which traffic it may carry,
//! bandwidth reservations (VBR/CBR), ABR source parameters and TCP over ABR.

use super::model::ServiceClass;
use super::schema::ServiceSpec;
use super::traffic::CellApp;
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

/// The classes TCP traffic may use: it needs feedback or best effort (ABR, UBR).
pub const TCP_CLASSES: &[ServiceClass] = &[ServiceClass::Abr, ServiceClass::Ubr];

/// Refuses a class that traffic of kind `kind` cannot use, listing the allowed ones: those
/// of its resolved cell-level application (`TrafficCfg::classes`), or TCP's without one.
pub fn check_class(
    p: &str,
    class: ServiceClass,
    kind: &str,
    app: Option<&CellApp>,
) -> Result<(), ConfigError> {
    let allowed = app.map_or(TCP_CLASSES, |a| a.classes());
    if allowed.contains(&class) {
        return Ok(());
    }
    let names: Vec<String> = allowed
        .iter()
        .map(|c| format!("{:?}", class_name(*c)))
        .collect();
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
