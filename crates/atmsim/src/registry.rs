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

/// A configuration chosen by a bare name (`tcp.congestion = "reno"`) whose parameters are
/// keys written beside that name, read from the context `Ctx` (e.g. the TCP table).
pub trait ResolveNamed<Ctx: ?Sized>: Sized {
    /// The keys beside the name that it reads; the extension point refuses the keys of
    /// other implementations, naming them.
    const KEYS: &'static [&'static str];
    /// Checks its keys in `ctx` and fills the defaults (from the type's `impl Default`);
    /// `path` is where the name was written.
    fn resolve_named(path: &str, ctx: &Ctx) -> Result<Self, ConfigError>;
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
///
/// Two variants of the spec enum:
///
/// * `spec: Name;` (above): a table tagged by `kind`, `{ kind = "epd", threshold = ... }`;
///   each entry's spec type holds its keys and implements [`Resolve`]. Optionally
///   `spec_only: [ Tcp = "tcp", "doc": TcpTrafficSpec; ]` before `entries` adds kinds
///   that the spec enum accepts and lists but that another part of the engine resolves
///   and runs (TCP traffic: `sim::tcp_host`, not a cell source); `resolve` then returns
///   `Ok(None)` for them.
/// * `spec: Name by name;`: a bare name, `congestion = "reno"`, whose parameters are keys
///   beside it in the context; each entry's spec type is its resolved configuration and
///   implements [`ResolveNamed`] (`KEYS`: the keys it reads). `Name::ALL` lists the
///   variants and `keys()` each one's keys, so the extension point refuses a key of another
///   implementation by name.
///
/// The generated dispatch macro forwards to the running implementation
/// (`dispatch!(any, x => x.method())`), or to the resolved configuration
/// (`dispatch!(@cfg cfg, c => c.query())`), optionally naming the implementation's type
/// (`dispatch!(@cfg cfg, c: T => T::associated(c))`).
macro_rules! registry {
    // The cfg enum, the `Any` enum and the dispatch macro, shared by both spec forms.
    (@common $d:tt
        [$(#[$cmeta:meta])*] $Cfg:ident; [$(#[$ameta:meta])*] $Any:ident;
        $Env:ty; $dispatch:ident;
        $( $Var:ident = $name:literal, $doc:literal : $VCfg:ty => $Field:ty as $Impl:ty; )+
    ) => {
        $(#[$cmeta])*
        #[derive(Clone, Debug, PartialEq)]
        pub enum $Cfg {
            $( #[doc = $doc] $Var($VCfg), )+
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
                        <$Impl as $crate::registry::Build<$VCfg, $Env>>::build(c, env)
                    )), )+
                }
            }
            /// The registered name (`kind`).
            pub fn name(&self) -> &'static str {
                match self { $( $Any::$Var(_) => $name, )+ }
            }
        }

        /// Forwards to the running implementation, `dispatch!(value, x => x.method())`, or
        /// to the resolved configuration, `dispatch!(@cfg cfg, c => c.query())`, optionally
        /// with the implementation's type, `dispatch!(@cfg cfg, c: T => T::query(c))`.
        #[allow(unused_macros)]
        macro_rules! $dispatch {
            (@cfg $d value:expr, $d x:ident : $d T:ident => $d body:expr) => {
                match $d value { $( $Cfg::$Var($d x) => { type $d T = $Impl; $d body } )+ }
            };
            (@cfg $d value:expr, $d x:ident => $d body:expr) => {
                match $d value { $( $Cfg::$Var($d x) => $d body, )+ }
            };
            ($d value:expr, $d x:ident => $d body:expr) => {
                match $d value { $( $Any::$Var($d x) => $d body, )+ }
            };
        }
    };

    // `resolve` of a tagged spec enum whose kinds all resolve here.
    (@resolve [] $Spec:ident $Cfg:ident $Ctx:ty; $( $Var:ident : $VSpec:ty; )+) => {
        impl $Spec {
            /// Validates the spec at key path `path` into its configuration.
            pub fn resolve(&self, path: &str, ctx: &$Ctx) -> Result<$Cfg, $crate::config::ConfigError> {
                Ok(match self {
                    $( $Spec::$Var(s) => $Cfg::$Var(
                        <$VSpec as $crate::registry::Resolve<$Ctx>>::resolve(s, path, ctx)?
                    ), )+
                })
            }
        }
    };

    // `resolve` of a tagged spec enum with spec-only kinds (resolved elsewhere: `None`).
    (@resolve [$($XVar:ident)+] $Spec:ident $Cfg:ident $Ctx:ty; $( $Var:ident : $VSpec:ty; )+) => {
        impl $Spec {
            /// Validates the spec at key path `path` into its configuration; `None` for a
            /// spec-only kind, which another part of the engine resolves.
            pub fn resolve(&self, path: &str, ctx: &$Ctx) -> Result<Option<$Cfg>, $crate::config::ConfigError> {
                Ok(Some(match self {
                    $( $Spec::$XVar(_) => return Ok(None), )+
                    $( $Spec::$Var(s) => $Cfg::$Var(
                        <$VSpec as $crate::registry::Resolve<$Ctx>>::resolve(s, path, ctx)?
                    ), )+
                }))
            }
        }
    };

    // A spec written as a bare name, its parameters beside it.
    (
        $d:tt
        $(#[$nmeta:meta])* names: $NAMES:ident;
        $(#[$smeta:meta])* spec: $Spec:ident by name;
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
        #[derive(Clone, Copy, Debug, PartialEq, Eq, ::serde::Deserialize, ::serde::Serialize, ::schemars::JsonSchema)]
        pub enum $Spec {
            $( #[doc = $doc] #[serde(rename = $name)] $Var, )+
        }

        impl $Spec {
            /// Every registered implementation, in registry order.
            pub const ALL: &'static [$Spec] = &[ $( $Spec::$Var, )+ ];
            /// The registered name.
            pub fn name(&self) -> &'static str {
                match self { $( $Spec::$Var => $name, )+ }
            }
            /// The keys beside the name that this implementation reads.
            pub fn keys(&self) -> &'static [&'static str] {
                match self { $( $Spec::$Var => <$VSpec as $crate::registry::ResolveNamed<$Ctx>>::KEYS, )+ }
            }
            /// Validates the implementation's keys in `ctx` into its configuration.
            pub fn resolve(&self, path: &str, ctx: &$Ctx) -> Result<$Cfg, $crate::config::ConfigError> {
                Ok(match self {
                    $( $Spec::$Var => $Cfg::$Var(
                        <$VSpec as $crate::registry::ResolveNamed<$Ctx>>::resolve_named(path, ctx)?
                    ), )+
                })
            }
        }

        $crate::registry::registry!(@common $d [$(#[$cmeta])*] $Cfg; [$(#[$ameta])*] $Any; $Env; $dispatch;
            $( $Var = $name, $doc : $VSpec => $Field as $Impl; )+);
    };

    // A spec tagged by `kind`, optionally with spec-only kinds.
    (
        $d:tt
        $(#[$nmeta:meta])* names: $NAMES:ident;
        $(#[$smeta:meta])* spec: $Spec:ident;
        $(#[$cmeta:meta])* cfg: $Cfg:ident;
        $(#[$ameta:meta])* any: $Any:ident;
        context: $Ctx:ty; environment: $Env:ty; dispatch: $dispatch:ident;
        $( spec_only: [ $( $XVar:ident = $xname:literal, $xdoc:literal : $XSpec:ty; )+ ] )?
        entries: [ $( $Var:ident = $name:literal, $doc:literal : $VSpec:ty => $Field:ty as $Impl:ty; )+ ]
    ) => {
        $(#[$nmeta])*
        pub const $NAMES: &[$crate::registry::Registered] = &[
            $($( $crate::registry::Registered { name: $xname, doc: $xdoc }, )+)?
            $( $crate::registry::Registered { name: $name, doc: $doc }, )+
        ];

        $(#[$smeta])*
        #[derive(Clone, Debug, PartialEq, ::serde::Deserialize, ::serde::Serialize, ::schemars::JsonSchema)]
        #[serde(tag = "kind")]
        pub enum $Spec {
            $($( #[doc = $xdoc] #[serde(rename = $xname)] $XVar($XSpec), )+)?
            $( #[doc = $doc] #[serde(rename = $name)] $Var($VSpec), )+
        }

        impl $Spec {
            /// The registered name (`kind`).
            pub fn name(&self) -> &'static str {
                match self {
                    $($( $Spec::$XVar(_) => $xname, )+)?
                    $( $Spec::$Var(_) => $name, )+
                }
            }

            /// Where the table `value` (its `kind` a registered name) fails to read, as the
            /// key path below the table and the message, or None if it reads (or its kind is
            /// unknown: the tagged read says so itself). The tagged read buffers the table
            /// and loses the key paths below it (`connection[0].traffic: invalid type ...`
            /// for a wrong `traffic.tcp.window_scaling`); this reads it as its kind's
            /// table, with them (`crate::scenario::tagged`).
            pub fn locate_error(mut value: ::serde_json::Value) -> Option<(String, String)> {
                let kind = value.get("kind")?.as_str()?.to_owned();
                value.as_object_mut()?.remove("kind");
                let err = match kind.as_str() {
                    $($( $xname => ::serde_path_to_error::deserialize::<_, $XSpec>(value).err(), )+)?
                    $( $name => ::serde_path_to_error::deserialize::<_, $VSpec>(value).err(), )+
                    _ => None,
                }?;
                Some((err.path().to_string(), err.into_inner().to_string()))
            }
        }

        $crate::registry::registry!(@resolve [$($($XVar)+)?] $Spec $Cfg $Ctx; $( $Var : $VSpec; )+);

        $crate::registry::registry!(@common $d [$(#[$cmeta])*] $Cfg; [$(#[$ameta])*] $Any; $Env; $dispatch;
            $( $Var = $name, $doc : <$VSpec as $crate::registry::Resolve<$Ctx>>::Cfg => $Field as $Impl; )+);
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
            entries: crate::tcp::congestion::CONGESTION_CONTROLS.to_vec(),
        },
        ExtensionPoint {
            title: "traffic sources",
            key: "connection traffic = { kind = ... }",
            entries: crate::traffic::TRAFFIC_KINDS.to_vec(),
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
                    r.name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit()),
                    "{}: {:?} is not snake_case",
                    p.title,
                    r.name
                );
                assert!(
                    !r.doc.is_empty() && !r.doc.contains('\n'),
                    "{}: {}",
                    p.title,
                    r.name
                );
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
