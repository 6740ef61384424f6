//! Extension points as registries: one line per implementation generates everything else.
//!
//! An extension point (rate allocators, drop policies, TCP congestion control, traffic
//! sources) is a trait with default hooks plus one [`registry!`] invocation in its module.
//! Each registry line names an implementation: its name in scenario files, a one-line
//! description, its spec type (the keys a user writes), and its running type. From the
//! lines the macro generates
//!
//! * the tagged **spec enum** (`kind = "name"`), so the JSON Schema and the "unknown
//!   variant, expected one of ..." error stay generated;
//! * the resolved **cfg enum** (validated values, `Clone + PartialEq`, stored in the
//!   resolved scenario);
//! * the **`Any...` enum** with static dispatch (a `match`, no `dyn`, on the per-cell path),
//!   with `build` from a cfg;
//! * `name()` on all three, for results;
//! * the list of names with their one-line docs ([`Registered`]), which `atmsim list`,
//!   the CLI help, the Python API and the docs index read;
//! * a `dispatch` macro that forwards a trait method to the running implementation.
//!
//! An implementation provides [`Resolve`] on its spec (spec -> cfg, the only place its
//! defaults and ranges are checked; defaults come from the cfg's `impl Default`) and
//! [`Build`] on its running type (cfg -> state at a port or connection).
//! See CONTRIBUTING.md for the recipe of each extension point.

use crate::config::ConfigError;

/// A registered implementation: its name in scenario files and a one-line description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registered {
    /// The `kind` that selects it.
    pub name: &'static str,
    /// One line saying what it does, with its source.
    pub doc: &'static str,
}

/// A user-facing spec that resolves into a validated configuration, given the context
/// `Ctx` of its extension point (e.g. the port's buffer size for a drop policy).
pub trait Resolve<Ctx: ?Sized> {
    /// The resolved configuration.
    type Cfg: Clone + std::fmt::Debug + PartialEq;
    /// Checks every value and fills the defaults; errors name `path.key`, the value and
    /// what is allowed.
    fn resolve(&self, path: &str, ctx: &Ctx) -> Result<Self::Cfg, ConfigError>;
}

/// A running implementation built from its resolved configuration in an environment
/// `Env` (e.g. the port's link rate and the flows that cross it).
pub trait Build<Cfg, Env: ?Sized>: Sized {
    /// The initial state.
    fn build(cfg: &Cfg, env: &Env) -> Self;
}

/// Looks a name up in a registry.
pub fn find(reg: &[Registered], name: &str) -> Option<Registered> {
    reg.iter().copied().find(|r| r.name == name)
}

/// Generates an extension point's spec, cfg and `Any` enums, its name list and its
/// dispatch macro from one line per implementation. See the module documentation.
///
/// ```text
/// registry! { $
///     /// docs of the name list
///     names: POLICIES;
///     /// docs of the spec enum
///     spec: PolicySpec;
///     /// docs of the cfg enum
///     cfg: PolicyCfg;
///     /// docs (and derives) of the running enum
///     #[derive(Clone, Copy, Debug)]
///     any: AnyPolicy;
///     context: Option<u32>; environment: (); dispatch: dispatch_policy;
///     entries: [
///         Epd = "epd", "early packet discard ...": EpdSpec => Epd as Epd;
///     ]
/// }
/// ```
macro_rules! registry {
    (
        $d:tt
        $(#[$nmeta:meta])* names: $NAMES:ident;
        $(#[$smeta:meta])* spec: $Spec:ident;
        $(#[$cmeta:meta])* cfg: $Cfg:ident;
        $(#[$ameta:meta])* any: $Any:ident;
        context: $Ctx:ty; environment: $Env:ty; dispatch: $dispatch:ident;
        entries: [ $( $Var:ident = $name:literal, $doc:literal : $VSpec:ty => $Field:ty as $Impl:ty; )+ ]
    ) => {
        $(#[$nmeta])*
        pub const $NAMES: &[$crate::registry::Registered] = &[
            $( $crate::registry::Registered { name: $name, doc: $doc }, )+
        ];

        $(#[$smeta])*
        #[derive(Clone, Debug, PartialEq, ::serde::Deserialize, ::serde::Serialize, ::schemars::JsonSchema)]
        #[serde(tag = "kind")]
        pub enum $Spec {
            $( #[doc = $doc] #[serde(rename = $name)] $Var($VSpec), )+
        }

        impl $Spec {
            /// The registered name (`kind`).
            pub fn name(&self) -> &'static str {
                match self { $( $Spec::$Var(_) => $name, )+ }
            }
            /// Validates the spec at key path `path` into its configuration.
            pub fn resolve(&self, path: &str, ctx: &$Ctx) -> Result<$Cfg, $crate::config::ConfigError> {
                Ok(match self {
                    $( $Spec::$Var(s) => $Cfg::$Var(
                        <$VSpec as $crate::registry::Resolve<$Ctx>>::resolve(s, path, ctx)?
                    ), )+
                })
            }
        }

        $(#[$cmeta])*
        #[derive(Clone, Debug, PartialEq)]
        pub enum $Cfg {
            $( #[doc = $doc] $Var(<$VSpec as $crate::registry::Resolve<$Ctx>>::Cfg), )+
        }

        impl $Cfg {
            /// The registered name (`kind`).
            pub fn name(&self) -> &'static str {
                match self { $( $Cfg::$Var(_) => $name, )+ }
            }
        }

        $(#[$ameta])*
        pub enum $Any {
            $( #[doc = $doc] $Var($Field), )+
        }

        impl $Any {
            /// Builds the running implementation of `cfg` in `env`.
            pub fn build(cfg: &$Cfg, env: &$Env) -> Self {
                match cfg {
                    $( $Cfg::$Var(c) => $Any::$Var(<$Field>::from(
                        <$Impl as $crate::registry::Build<
                            <$VSpec as $crate::registry::Resolve<$Ctx>>::Cfg, $Env>>::build(c, env)
                    )), )+
                }
            }
            /// The registered name (`kind`).
            pub fn name(&self) -> &'static str {
                match self { $( $Any::$Var(_) => $name, )+ }
            }
        }

        /// Forwards to the running implementation: `dispatch!(value, x => x.method())`.
        macro_rules! $dispatch {
            ($d value:expr, $d x:ident => $d body:expr) => {
                match $d value { $( $Any::$Var($d x) => $d body, )+ }
            };
        }
    };
}
pub(crate) use registry;

/// An extension point: what it is called, the scenario key that selects an
/// implementation, and its registry.
#[derive(Clone, Debug)]
pub struct ExtensionPoint {
    /// Plural name, e.g. `"rate allocators"`.
    pub title: &'static str,
    /// Where a scenario names an implementation, e.g. `"port allocator kind"`.
    pub key: &'static str,
    /// The registered implementations.
    pub entries: Vec<Registered>,
}

/// Every extension point of the engine: the one list that `atmsim list`, the CLI help,
/// the Python API and the docs index are derived from.
pub fn extension_points() -> Vec<ExtensionPoint> {
    vec![
        ExtensionPoint {
            title: "drop policies",
            key: "port policy = { kind = ... }",
            entries: crate::drop_policy::POLICIES.to_vec(),
        },
        ExtensionPoint {
            title: "rate allocators",
            key: "port allocator = { kind = ... }",
            entries: crate::allocator::ALLOCATORS.to_vec(),
        },
        ExtensionPoint {
            title: "TCP congestion control",
            key: "tcp.congestion = ...",
            entries: crate::tcp::CongestionConfig::NAMES
                .iter()
                .map(|&(name, doc)| Registered { name, doc })
                .collect(),
        },
        ExtensionPoint {
            title: "traffic sources",
            key: "connection traffic = { kind = ... }",
            entries: std::iter::once(crate::scenario::schema::TCP_TRAFFIC)
                .chain(
                    crate::traffic::TRAFFIC_KINDS
                        .iter()
                        .map(|&(name, doc)| Registered { name, doc: doc.trim() }),
                )
                .collect(),
        },
        ExtensionPoint {
            title: "service classes",
            key: "connection service = ...",
            entries: crate::scenario::schema::SERVICES.to_vec(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_snake_case_and_documented() {
        for p in extension_points() {
            let mut seen = std::collections::BTreeSet::new();
            for r in &p.entries {
                assert!(seen.insert(r.name), "{}: {} twice", p.title, r.name);
                assert!(
                    r.name.chars().all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit()),
                    "{}: {:?} is not snake_case",
                    p.title,
                    r.name
                );
                assert!(!r.doc.is_empty() && !r.doc.contains('\n'), "{}: {}", p.title, r.name);
            }
        }
    }

    #[test]
    fn every_registered_name_is_in_the_json_schema() {
        let schema = crate::scenario::json_schema();
        for p in extension_points() {
            for r in &p.entries {
                assert!(
                    schema.contains(&format!("\"{}\"", r.name)),
                    "{} {:?} missing from the JSON Schema",
                    p.title,
                    r.name
                );
            }
        }
    }

    #[test]
    fn an_unknown_kind_lists_every_registered_name() {
        let e: Result<crate::drop_policy::PolicySpec, _> =
            serde_json::from_str(r#"{"kind": "red"}"#);
        let msg = e.unwrap_err().to_string();
        for r in crate::drop_policy::POLICIES {
            assert!(msg.contains(r.name), "{msg}");
        }
        let e: Result<crate::allocator::AllocatorSpec, _> =
            serde_json::from_str(r#"{"kind": "phantom"}"#);
        let msg = e.unwrap_err().to_string();
        for r in crate::allocator::ALLOCATORS {
            assert!(msg.contains(r.name), "{msg}");
        }
    }
}
