//! The replicas Karmada's third-party resource interpreters read: the `replicaResource` scripts
//! of `pkg/resourceinterpreter/default/thirdparty/resourcecustomizations/<group>/<version>/<kind>/customizations.yaml`,
//! which Karmada consults before its default interpreter with no configuration
//! (`pkg/resourceinterpreter/interpreter.go` GetReplicas). Their pod templates are the ones the
//! same customizations hand to the dependency interpreter (`crate::model::dependencies`).
//! Each script's result goes through `ConvertLuaResultToInt` (a number, else the script fails)
//! and `kube.accuratePodRequirements` is `GenerateReplicaRequirements` of a pod template
//! (`pkg/resourceinterpreter/customized/declarative/luavm/lua.go`, `kube.go`).

use serde_json::{json, Value};

use super::{requirements, Read, Requirements, Resource, Unread};
use crate::engine::replicas::quantity::Quantity;

/// `GetReplicas` of the customization Karmada ships for `api_version`/`kind`; `None` when it
/// ships none with a `replicaResource`.
pub(super) fn third_party(
    api_version: &str,
    kind: &str,
    t: &Value,
) -> Option<Result<Read, Unread>> {
    Some(match (api_version, kind) {
        // apps.kruise.io/v1alpha1/CloneSet, apps.kruise.io/v1alpha1/UnitedDeployment,
        // apps.kruise.io/v1beta1/StatefulSet: `obj.spec.replicas` as it is (no default: an
        // absent one fails the script), the requirements of `spec.template` (a
        // UnitedDeployment's holds workload templates, no pod spec: none).
        ("apps.kruise.io/v1alpha1", "CloneSet" | "UnitedDeployment")
        | ("apps.kruise.io/v1beta1", "StatefulSet") => count_and_pod_template(t, "replicas", None),
        // apps.kruise.io/v1alpha1/BroadcastJob: `spec.parallelism`, 1 when absent (a
        // percentage is no number: the script fails).
        ("apps.kruise.io/v1alpha1", "BroadcastJob") => {
            count_and_pod_template(t, "parallelism", Some(1))
        }
        // apps.kruise.io/v1alpha1/SidecarSet: "SidecarSet doesn't manage replicas directly,
        // return 0", and no requirements.
        ("apps.kruise.io/v1alpha1", "SidecarSet") => Ok((0, None)),
        ("argoproj.io/v1alpha1", "Workflow") => workflow(t),
        ("flink.apache.org/v1beta1", "FlinkDeployment") => flink_deployment(t),
        // kubeflow.org/v1/Notebook: always 1, the requirements of `spec.template`.
        ("kubeflow.org/v1", "Notebook") => {
            spec(t).and_then(|s| Ok((1, accurate_pod_requirements(s.get("template"))?)))
        }
        ("ray.io/v1", "RayService") => ray_service(t),
        _ => return None,
    })
}

/// The fields whose values the script counts, where a count read from fields of the manifest
/// (rather than a constant) can differ: `None` for another kind, and for those whose count is
/// a constant (Notebook, SidecarSet) or lies in a list (RayService's worker groups).
pub(super) fn counted_fields(api_version: &str, kind: &str) -> Option<&'static [&'static str]> {
    Some(match (api_version, kind) {
        ("apps.kruise.io/v1alpha1", "CloneSet" | "UnitedDeployment")
        | ("apps.kruise.io/v1beta1", "StatefulSet") => &["/spec/replicas"],
        ("apps.kruise.io/v1alpha1", "BroadcastJob") | ("argoproj.io/v1alpha1", "Workflow") => {
            &["/spec/parallelism"]
        }
        ("flink.apache.org/v1beta1", "FlinkDeployment") => &[
            "/spec/jobManager/replicas",
            "/spec/taskManager/replicas",
            "/spec/job/parallelism",
            "/spec/flinkConfiguration/taskmanager.numberOfTaskSlots",
        ],
        _ => return None,
    })
}

/// `obj.spec`: indexing it fails the script when it is absent.
fn spec(t: &Value) -> Result<&Value, Unread> {
    t.get("spec")
        .filter(|s| s.is_object())
        .ok_or(Unread::Script("the template has no spec"))
}

/// `ConvertLuaResultToInt`: a number (truncated), anything else fails.
fn lua_int(v: Option<&Value>) -> Result<i64, Unread> {
    v.and_then(Value::as_f64)
        .map(|n| n.trunc() as i64)
        .ok_or(Unread::Script("GetReplicas returns no number"))
}

/// `kube.accuratePodRequirements(template)`: `GenerateReplicaRequirements` of the table read as
/// a pod template (fields it does not know are ignored); the script fails on one that is no
/// table.
fn accurate_pod_requirements(template: Option<&Value>) -> Result<Option<Requirements>, Unread> {
    let template = template
        .filter(|t| t.is_object())
        .ok_or(Unread::Script("the pod template is no table"))?;
    Ok(requirements(template.get("spec").unwrap_or(&Value::Null))?)
}

/// The OpenKruise scripts: `obj.spec.<field>` (or `default` when it is nil) and the
/// requirements of `obj.spec.template`.
fn count_and_pod_template(t: &Value, field: &str, default: Option<i64>) -> Result<Read, Unread> {
    let spec = spec(t)?;
    let requirements = accurate_pod_requirements(spec.get("template"))?;
    let replicas = match (spec.get(field).filter(|v| !v.is_null()), default) {
        (None, Some(d)) => d,
        (v, _) => lua_int(v)?,
    };
    Ok((replicas, requirements))
}

/// argoproj.io/v1alpha1/Workflow: `spec.parallelism`, 1 when absent; the requirements of a pod
/// template holding only the workflow's `affinity`, `nodeSelector` and `tolerations` (a node
/// claim, no requests).
fn workflow(t: &Value) -> Result<Read, Unread> {
    let spec = spec(t)?;
    let replicas = match spec.get("parallelism").filter(|v| !v.is_null()) {
        None => 1,
        v => lua_int(v)?,
    };
    let pod = json!({"spec": {
        "affinity": spec.get("affinity"),
        "nodeSelector": spec.get("nodeSelector"),
        "tolerations": spec.get("tolerations"),
    }});
    Ok((replicas, accurate_pod_requirements(Some(&pod))?))
}

/// Lua's `tonumber` as the Flink script's `to_num` applies it: a number, or a string that reads
/// as one (decimal or `0x` hexadecimal, surrounding spaces allowed); `nil` otherwise.
fn lua_tonumber(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => {
            let s = s.trim();
            let hex = s
                .strip_prefix("0x")
                .or_else(|| s.strip_prefix("0X"))
                .and_then(|h| i64::from_str_radix(h, 16).ok());
            hex.map(|n| n as f64)
                .or_else(|| s.parse::<f64>().ok().filter(|n| n.is_finite()))
        }
        _ => None,
    }
}

/// A cpu or memory the script copies into `resourceRequest` (a number or a quantity string),
/// as the binding's `ResourceList` parses it.
fn quantity(v: &Value) -> Result<Quantity, Unread> {
    let text = v
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string());
    Ok(Quantity::parse(&text)?)
}

/// The larger of two optional quantities; the first when they are equal or only it is there.
fn larger(a: Option<Quantity>, b: Option<Quantity>) -> Option<Quantity> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b > a { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// flink.apache.org/v1beta1/FlinkDeployment: the job manager's `replicas` (1 by default) plus
/// the task manager's `replicas`, or else ceil(`job.parallelism` /
/// `flinkConfiguration["taskmanager.numberOfTaskSlots"]`), or else 1. The requirements are
/// always there (a `nodeClaim` table): cpu and memory the larger of the two managers'
/// `resource`.
fn flink_deployment(t: &Value) -> Result<Read, Unread> {
    let num = |p: &str| lua_tonumber(t.pointer(p));
    let job_manager = num("/spec/jobManager/replicas").unwrap_or(1.0);
    let task_manager = num("/spec/taskManager/replicas").unwrap_or_else(|| {
        let parallelism = num("/spec/job/parallelism");
        let slots = num("/spec/flinkConfiguration/taskmanager.numberOfTaskSlots");
        match (parallelism, slots) {
            (Some(p), Some(s)) if s != 0.0 => (p / s).ceil(),
            _ => 1.0,
        }
    });
    let replicas = (job_manager + task_manager).trunc() as i64;
    let resource = |manager: &str, name: &str| -> Result<Option<Quantity>, Unread> {
        t.pointer(&format!("/spec/{manager}/resource/{name}"))
            .filter(|v| !v.is_null())
            .map(quantity)
            .transpose()
    };
    let mut request = Vec::new();
    for name in ["cpu", "memory"] {
        let max = larger(
            resource("jobManager", name)?,
            resource("taskManager", name)?,
        );
        request.extend(max.map(|q| (name.to_string(), q)));
    }
    let mut total = Resource::default();
    total.add(&request);
    // `requires.nodeClaim = {}` is always set: the requirements are never nil.
    let requirements = Requirements {
        resource_request: total.resource_list(),
        node_claim: true,
    };
    Ok((replicas, Some(requirements)))
}

/// ray.io/v1/RayService: 0 and no requirements without `spec.rayClusterConfig.headGroupSpec.template`;
/// else 1 (the head) plus every worker group's `replicas` (0 when absent), and the head's
/// requirements with its cpu and memory raised to the largest a worker group requests (only
/// when the head has requirements at all).
fn ray_service(t: &Value) -> Result<Read, Unread> {
    let Some(config) = present(t.pointer("/spec/rayClusterConfig")) else {
        return Ok((0, None));
    };
    let Some(head) = present(config.pointer("/headGroupSpec/template")) else {
        return Ok((0, None));
    };
    let mut requirements = accurate_pod_requirements(Some(head))?;
    let mut replicas = 1;
    let workers = config.get("workerGroupSpecs").and_then(Value::as_array);
    for worker in workers.into_iter().flatten() {
        replicas += match present(worker.get("replicas")) {
            None => 0,
            Some(v) => lua_tonumber(Some(v))
                .map(|n| n.trunc() as i64)
                .ok_or(Unread::Script("a worker group's replicas is no number"))?,
        };
        let Some(template) = present(worker.get("template")) else {
            continue;
        };
        let worker_requirements = accurate_pod_requirements(Some(template))?;
        if let (Some(head), Some(worker)) = (requirements.as_mut(), worker_requirements) {
            raise_to(&mut head.resource_request, &worker.resource_request);
        }
    }
    Ok((replicas, requirements))
}

/// `v` unless it is null (Lua's nil).
fn present(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

/// The cpu and memory of `to` raised to those of `from` where `from`'s are larger.
fn raise_to(
    to: &mut std::collections::BTreeMap<String, Quantity>,
    from: &std::collections::BTreeMap<String, Quantity>,
) {
    for name in ["cpu", "memory"] {
        if let Some(&q) = from.get(name) {
            if to.get(name).is_none_or(|&have| q > have) {
                to.insert(name.to_string(), q);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{from_template, written_replicas, Workload};
    use super::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    fn read(api_version: &str, kind: &str, spec: Value) -> Result<Workload, Unread> {
        from_template(&json!({"apiVersion": api_version, "kind": kind, "spec": spec}))
    }

    fn pod_template(cpu: &str) -> Value {
        json!({"spec": {"containers": [{"resources": {"requests": {"cpu": cpu}}}]}})
    }

    /// CloneSet/customizations.yaml and its siblings read `spec.replicas` as it is and the
    /// requirements of `spec.template`; an absent count is nil, which `ConvertLuaResultToInt`
    /// refuses (no default of 1 as the apiserver gives a Deployment).
    #[test]
    fn openkruise_workloads_read_spec_replicas_and_the_pod_template() {
        for (api_version, kind) in [
            ("apps.kruise.io/v1alpha1", "CloneSet"),
            ("apps.kruise.io/v1beta1", "StatefulSet"),
        ] {
            let w = read(
                api_version,
                kind,
                json!({"replicas": 5, "template": pod_template("250m")}),
            )
            .unwrap();
            assert!(w.interpreted, "{kind}");
            assert_eq!(w.replicas, 5, "{kind}");
            let r = w.requirements.unwrap();
            assert_eq!(r.resource_request["cpu"], q("250m"), "{kind}");
            assert_eq!(
                read(api_version, kind, json!({"template": pod_template("1")})),
                Err(Unread::Script("GetReplicas returns no number")),
                "{kind} without spec.replicas"
            );
        }
        // A UnitedDeployment's template holds workload templates: no pod spec, no requirements.
        let united = json!({"replicas": 4, "template": {"statefulSetTemplate": {"spec": {}}}});
        let w = read("apps.kruise.io/v1alpha1", "UnitedDeployment", united).unwrap();
        assert_eq!((w.replicas, w.requirements), (4, None));
        // The v1alpha1 StatefulSet has no customization.
        let old = read(
            "apps.kruise.io/v1alpha1",
            "StatefulSet",
            json!({"replicas": 3}),
        )
        .unwrap();
        assert!(!old.interpreted);
    }

    /// BroadcastJob/customizations.yaml and Workflow/customizations.yaml: `spec.parallelism`,
    /// 1 when absent; the workflow's requirements are only its node claim.
    #[test]
    fn parallelism_counts_for_broadcast_jobs_and_workflows() {
        let kruise = "apps.kruise.io/v1alpha1";
        let job = json!({"parallelism": 3, "template": pod_template("1")});
        assert_eq!(read(kruise, "BroadcastJob", job).unwrap().replicas, 3);
        let unset = json!({"template": pod_template("1")});
        assert_eq!(read(kruise, "BroadcastJob", unset).unwrap().replicas, 1);
        let percent = json!({"parallelism": "50%", "template": pod_template("1")});
        assert!(read(kruise, "BroadcastJob", percent).is_err(), "no number");

        let argo = "argoproj.io/v1alpha1";
        let w = read(
            argo,
            "Workflow",
            json!({"parallelism": 4, "entrypoint": "main"}),
        )
        .unwrap();
        assert_eq!((w.replicas, w.requirements), (4, None));
        let pinned = json!({"nodeSelector": {"disk": "ssd"}, "templates": [{"container": {
            "resources": {"requests": {"cpu": "2"}}}}]});
        let w = read(argo, "Workflow", pinned).unwrap();
        assert_eq!(w.replicas, 1);
        let r = w.requirements.unwrap();
        assert!(r.node_claim && r.resource_request.is_empty(), "{r:?}");
    }

    /// SidecarSet/customizations.yaml returns 0; Notebook/customizations.yaml always 1.
    #[test]
    fn constant_counts() {
        let w = read(
            "apps.kruise.io/v1alpha1",
            "SidecarSet",
            json!({"containers": []}),
        )
        .unwrap();
        assert!(w.interpreted && !w.divides());
        let notebook = json!({"template": pod_template("500m")});
        let w = read("kubeflow.org/v1", "Notebook", notebook).unwrap();
        assert_eq!(w.replicas, 1);
        assert_eq!(w.requirements.unwrap().resource_request["cpu"], q("500m"));
        assert!(
            read("kubeflow.org/v1", "Notebook", json!({})).is_err(),
            "no template"
        );
        let no_spec = json!({"apiVersion": "kubeflow.org/v1", "kind": "Notebook"});
        assert!(from_template(&no_spec).is_err());
    }

    /// FlinkDeployment/customizations.yaml: job manager plus task manager replicas, the task
    /// managers from parallelism over task slots when not set; the larger cpu and memory.
    #[test]
    fn flink_deployments_count_both_managers() {
        let flink = "flink.apache.org/v1beta1";
        let set = json!({"jobManager": {"replicas": 2, "resource": {"cpu": 1, "memory": "2Gi"}},
            "taskManager": {"replicas": 3, "resource": {"cpu": 0.5, "memory": "4Gi"}}});
        let w = read(flink, "FlinkDeployment", set).unwrap();
        assert_eq!(w.replicas, 5);
        let r = w.requirements.unwrap();
        assert_eq!(r.resource_request["cpu"], q("1"));
        assert_eq!(r.resource_request["memory"], q("4Gi"));
        let by_slots = json!({"job": {"parallelism": 5},
            "flinkConfiguration": {"taskmanager.numberOfTaskSlots": "2"}});
        let w = read(flink, "FlinkDeployment", by_slots).unwrap();
        assert_eq!(w.replicas, 1 + 3, "ceil(5 / 2) task managers");
        let w = read(flink, "FlinkDeployment", json!({})).unwrap();
        assert_eq!(w.replicas, 2, "one of each by default");
        assert!(
            w.requirements.is_some(),
            "the script always returns a table"
        );
    }

    /// RayService/customizations.yaml: the head plus the worker groups' replicas; cpu raised
    /// to the largest a group requests; 0 without a head template.
    #[test]
    fn ray_services_count_the_head_and_the_workers() {
        let ray = "ray.io/v1";
        let service = json!({"rayClusterConfig": {
        "headGroupSpec": {"template": pod_template("1")},
        "workerGroupSpecs": [
            {"replicas": 2, "template": pod_template("3")},
            {"template": pod_template("2")},
        ]}});
        let w = read(ray, "RayService", service).unwrap();
        assert_eq!(w.replicas, 3);
        assert_eq!(w.requirements.unwrap().resource_request["cpu"], q("3"));
        let headless = json!({"rayClusterConfig": {"workerGroupSpecs": [{"replicas": 2}]}});
        let w = read(ray, "RayService", headless).unwrap();
        assert!(w.interpreted && (w.replicas, w.requirements.is_none()) == (0, true));
    }

    #[test]
    fn written_counts_of_third_party_kinds() {
        let clone = |spec: Value| json!({"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet", "spec": spec});
        let t = json!({"spec": {}});
        assert_eq!(
            written_replicas(&clone(json!({"replicas": 2, "template": t}))),
            Some(2)
        );
        let notebook = json!({"apiVersion": "kubeflow.org/v1", "kind": "Notebook",
            "spec": {"template": t}});
        assert_eq!(written_replicas(&notebook), None, "a constant");
    }
}
