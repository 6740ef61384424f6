//! The "modified ERICA" of the TCP-over-ABR buffer studies (seed 000; spec 2.7): ERICA
//! whose option defaults are the three changes of ATMF 96-0517. No unneeded spikes (fair
//! share first, one ER per VC per interval), bursty sources counted correctly
//! (bidirectional counting, immediate fair-share update) and max-min fairness (the delta
//! step). Every key of `erica` may still be set; it runs as [`super::Erica`].

use super::erica::EricaCfg;
use super::erica_config::EricaSpec;
use crate::config::ConfigError;
use crate::registry::Resolve;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `kind = "modified_erica"`: the keys of `erica`, with seed 000's option defaults.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct ModifiedEricaSpec(pub EricaSpec);

impl ModifiedEricaSpec {
    /// The ERICA spec with seed 000's option defaults under the user's own keys.
    pub fn preset(&self) -> EricaSpec {
        let mut m = self.0.clone();
        m.fair_share_first.get_or_insert(true);
        m.one_er_per_interval.get_or_insert(true);
        m.bidirectional_counting.get_or_insert(true);
        m.immediate_fair_share.get_or_insert(true);
        m.max_min.get_or_insert(true);
        m
    }
}

impl Resolve<()> for ModifiedEricaSpec {
    type Cfg = std::sync::Arc<EricaCfg>;
    fn resolve(&self, path: &str, ctx: &()) -> Result<Self::Cfg, ConfigError> {
        self.preset().resolve(path, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_the_three_changes_but_keeps_user_keys() {
        let m = ModifiedEricaSpec(EricaSpec {
            bidirectional_counting: Some(false),
            ..Default::default()
        });
        let c = m.resolve("a", &()).unwrap();
        assert!(c.fair_share_first && c.one_er_per_interval && c.immediate_fair_share);
        assert!(!c.bidirectional_counting);
        assert_eq!(c.max_min_delta, Some(0.1));
    }
}
