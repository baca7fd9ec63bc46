//! What a lint run is told: the context's release and gates, the member clusters, the rule
//! settings of the configuration file, and whether inline ignores apply.

use std::collections::BTreeMap;

use crate::context::{Context, RuleSetting};
use crate::model::feature_gates::GateSet;
use crate::model::schedulers::Schedulers;

/// Everything that changes what `lint` reports.
#[derive(Clone, Debug, Default)]
pub struct LintOptions {
    /// The release's feature gates in effect (the release is `gates.version`).
    pub gates: GateSet,
    pub known_clusters: Vec<String>,
    /// Scheduler names served besides `default-scheduler`: the configuration's `schedulers`
    /// and the repository's karmada-schedulers ([`Context::schedulers`]).
    pub schedulers: Schedulers,
    /// Cluster objects read from the control plane (`lint --live`); the inputs' own are
    /// found among the documents.
    pub cluster_objects: Vec<crate::model::cluster::Cluster>,
    pub rules: BTreeMap<String, RuleSetting>,
    pub inline_ignores: bool,
    /// ClusterTaintPolicy's NoExecute taints are admitted: karmada-webhook runs with
    /// `--allow-no-execute-taint-policy`, or no webhook checks them
    /// ([`Context::no_execute_taints_admitted`]).
    pub allow_no_execute_taint_policy: bool,
    /// The objects were read from the control plane (`lint --live`): stored, so they take part
    /// in the semantic rules whatever the admission chain says of them now.
    pub live: bool,
}

impl LintOptions {
    /// A run in `context`: its gates and known clusters, its configuration's rule settings.
    pub fn of(context: &Context, inline_ignores: bool) -> LintOptions {
        LintOptions {
            gates: context.gates.clone(),
            known_clusters: context.known_clusters().to_vec(),
            schedulers: context.schedulers.clone(),
            cluster_objects: Vec::new(),
            rules: context.config.rules.clone(),
            inline_ignores,
            allow_no_execute_taint_policy: context.no_execute_taints_admitted,
            live: false,
        }
    }

    /// These options under `context`'s release, gates and schedulers (a Karmada installation
    /// the inputs hold may change them: [`Context::for_plain`]), or `None` when they are
    /// already these options' own and nothing need be judged again.
    pub fn in_context(&self, context: &Context) -> Option<LintOptions> {
        (context.gates != self.gates
            || context.schedulers != self.schedulers
            || context.no_execute_taints_admitted != self.allow_no_execute_taint_policy)
            .then(|| self.under(context))
    }

    /// These options with what `context` says of the control plane: its release, gates and
    /// schedulers, and whether NoExecute taints are admitted.
    pub fn under(&self, context: &Context) -> LintOptions {
        LintOptions {
            gates: context.gates.clone(),
            schedulers: context.schedulers.clone(),
            allow_no_execute_taint_policy: context.no_execute_taints_admitted,
            ..self.clone()
        }
    }

    /// The Karmada release whose rules apply.
    pub fn version(&self) -> crate::model::KarmadaVersion {
        self.gates.version
    }
}
