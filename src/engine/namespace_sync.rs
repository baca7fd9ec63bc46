//! karmada-controller-manager's `namespace` controller, enabled by default
//! (`cmd/controller-manager/app/controllermanager.go:237,246` at v1.19.0-rc.0: it is not among
//! `controllersDisabledByDefault`), copies every Namespace of the control plane to every member
//! cluster, whether a policy selects it or not
//! (`pkg/controllers/namespace/namespace_sync_controller.go:70-175`: one Work per Cluster, with
//! the ClusterOverridePolicies applied). A policy that claims a Namespace decides its binding,
//! not which member clusters have it; deleting that policy orphans nothing.
//!
//! It skips the namespaces Karmada reserves (`karmada-system`, `karmada-cluster`,
//! `karmada-es-*`; `pkg/util/names/names.go:189-193`), `default`, those
//! `--skipped-propagating-namespaces` matches (default `kube-.*`, anchored:
//! `cmd/controller-manager/app/options/options.go:194,230-236`), and a Namespace labelled
//! `namespace.karmada.io/skip-auto-propagation: "true"` (any case). The flag and `--controllers`
//! are read as the installation or the configuration sets them (a `--controllers` list without
//! `namespace` runs no namespace controller,
//! [`crate::model::controller_flags::namespace_controller_runs`]).

use super::claim::Filters;
use crate::model::StringMap;

/// The label that keeps a Namespace from being propagated by the namespace controller
/// (`pkg/apis/policy/v1alpha1/well_known_constants.go:43`).
pub const SKIP_AUTO_PROPAGATION_LABEL: &str = "namespace.karmada.io/skip-auto-propagation";

/// Whether the namespace controller propagates the object (`apiVersion`, `kind`, `name`,
/// `labels`) to every member cluster, skipping the namespaces `filters` skip
/// (`--skipped-propagating-namespaces`).
pub fn auto_propagated(
    api_version: &str,
    kind: &str,
    name: &str,
    labels: &StringMap,
    filters: &Filters,
) -> bool {
    api_version == "v1"
        && kind == "Namespace"
        && !reserved(name)
        && name != "default"
        && filters.skipped_namespace(name).is_none()
        && !labels
            .get(SKIP_AUTO_PROPAGATION_LABEL)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// [`auto_propagated`] of a template of the engine's state, where the namespace controller
/// runs: a `--controllers` list that leaves it out copies no Namespace.
pub fn synced(state: &super::state::State, t: &super::state::TemplateEntry) -> bool {
    let runs = state
        .options
        .gates
        .flags()
        .why_no_namespace_controller()
        .is_none();
    runs && auto_propagated(
        &t.api_version,
        &t.kind,
        &t.name,
        &t.labels,
        &state.options.filters,
    )
}

/// `names.IsReservedNamespace`.
fn reserved(name: &str) -> bool {
    name == "karmada-system" || name == "karmada-cluster" || name.starts_with("karmada-es-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> StringMap {
        StringMap::from_pairs(pairs.to_vec())
    }

    #[test]
    fn every_namespace_but_the_reserved_the_skipped_and_the_labelled() {
        let none = labels(&[]);
        let defaults = Filters::default();
        let auto_propagated = |api: &str, kind: &str, name: &str, labels: &StringMap| {
            auto_propagated(api, kind, name, labels, &defaults)
        };
        assert!(auto_propagated("v1", "Namespace", "shop", &none));
        for skipped in [
            "default",
            "karmada-system",
            "karmada-cluster",
            "karmada-es-member1",
            "kube-system",
            "kube-public",
        ] {
            assert!(
                !auto_propagated("v1", "Namespace", skipped, &none),
                "{skipped}"
            );
        }
        // `kube-.*` is anchored: a name that only contains it is propagated.
        assert!(auto_propagated("v1", "Namespace", "my-kube-tools", &none));
        let skip = labels(&[(SKIP_AUTO_PROPAGATION_LABEL, "True")]);
        assert!(!auto_propagated("v1", "Namespace", "shop", &skip));
        let not_skip = labels(&[(SKIP_AUTO_PROPAGATION_LABEL, "false")]);
        assert!(auto_propagated("v1", "Namespace", "shop", &not_skip));
        assert!(!auto_propagated("apps/v1", "Deployment", "shop", &none));
    }

    /// `--skipped-propagating-namespaces` replaces its default: `kube-system` is copied unless
    /// listed, and the listed ones are not; `default` and the reserved ones never are.
    #[test]
    fn the_flag_replaces_the_default_skipped_namespaces() {
        let none = labels(&[]);
        let set = Filters::new(&["ns1".into(), "team-.*".into()], &[]).unwrap();
        let copied = |name: &str| auto_propagated("v1", "Namespace", name, &none, &set);
        assert!(copied("kube-system"));
        assert!(copied("shop"));
        assert!(!copied("ns1"));
        assert!(!copied("team-a"));
        assert!(copied("my-team-a"), "anchored");
        assert!(!copied("default"));
        assert!(!copied("karmada-system"));
    }
}
