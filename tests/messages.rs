//! Messages a kubectl user reads: a missing template's namespace named, no mention of a server
//! in file mode, no warning before a connection error, flags that do nothing said so, plurals
//! and verbs that agree with their count.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");
const GITOPS: &str = "testdata/examples/gitops";

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("HOME", "/nonexistent")
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_template_missing_from_the_namespace_asked_names_the_one_holding_it() {
    let o = run(&["explain", "deploy/nginx", "-f", GITOPS]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not found in namespace default of the given files; it is in namespace payments: add `-n payments`"),
        "{}",
        stderr(&o)
    );
    // Nowhere at all: no namespace to name; in a namespace holding others of the kind, their
    // names (a typo, or a chart rendered under another release name than the one written).
    let o = run(&["explain", "deploy/nowhere", "-f", GITOPS]);
    assert!(!stderr(&o).contains("it is in namespace"), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "error: deployments.apps \"nowhere\" not found in namespace default of the given files\n"
    );
    let o = run(&["explain", "deploy/ngnix", "-n", "payments", "-f", GITOPS]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "error: deployments.apps \"ngnix\" not found in namespace payments of the given files; deployments.apps there: api, nginx\n"
    );
    // A cluster-scoped kind has no namespace to be missing from (chutesai/chutes-miner).
    let o = run(&["explain", "ns/chutes", "-f", GITOPS]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with("error: namespaces \"chutes\" not found in the given files"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_unknown_type_in_file_mode_speaks_of_the_files_not_a_server() {
    let o = run(&["explain", "dep/web", "-f", GITOPS]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!stderr(&o).contains("server"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "unknown resource type \"dep\": not a well-known kind nor a kind in the given files"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn one_policy_declares_and_two_declare() {
    let o = run(&["explain", "deploy/nginx", "-n", "payments", "-f", GITOPS]);
    let text = stdout(&o);
    assert!(
        text.contains("pp/payments/nginx-canary declares preemption: Always"),
        "{text}"
    );
    assert!(!text.contains("declare(s)"), "{text}");
}

#[test]
fn with_the_server_down_the_connection_error_comes_alone() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kubeconfig");
    std::fs::write(
        &kc,
        "apiVersion: v1\nkind: Config\ncurrent-context: k\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:1\ncontexts:\n- name: k\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\n",
    )
    .unwrap();
    let kc = kc.to_str().unwrap();
    for args in [
        vec!["suspend", "pp/web", "--clusters", "member1"],
        vec!["resume", "pp/web"],
        vec!["suspend", "--clusters", "member1", "-A", "--yes"],
    ] {
        let all = [args.clone(), vec!["--kubeconfig", kc]].concat();
        let o = run(&all);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        // One line, the error: no warning about Clusters before it.
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(
            err.contains("the connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"),
            "{err}"
        );
    }
}

#[test]
fn live_flags_with_files_are_said_to_do_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(GITOPS)
            .join("policies.yaml"),
        &file,
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let o = run(&[
        "suspend",
        "-f",
        f,
        "pp/nginx",
        "-n",
        "payments",
        "--dry-run",
        "--context",
        "prod",
    ]);
    assert!(
        stderr(&o).contains(
            "warning: --context is ignored: the inputs are files (-f), not the control plane"
        ),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "suspend",
        "-f",
        f,
        "pp/nginx",
        "-n",
        "payments",
        "--dry-run",
    ]);
    assert!(!stderr(&o).contains("ignored"), "{}", stderr(&o));
}

#[test]
fn resume_help_is_resume_s_own() {
    let resume = stdout(&run(&["resume", "--help"]));
    assert!(
        resume.contains("Resuming clears spec.suspension"),
        "{resume}"
    );
    assert!(resume.contains("Lifting a freeze:"), "{resume}");
    assert!(
        !resume.contains("Freeze: --clusters with no policy named"),
        "{resume}"
    );
    let suspend = stdout(&run(&["suspend", "--help"]));
    assert!(
        suspend.contains("Freeze: --clusters with no policy named"),
        "{suspend}"
    );
}

/// The policy named sits in a document that does not parse: the answer points at the syntax
/// error (file, line, column, as `lint` reports it), not at a bare "not found"; it is not exit 4
/// (the policy may well be there) and the file is left as it was.
#[test]
fn a_policy_in_a_document_that_does_not_parse_is_pointed_at_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: x\n  namespace: default\nspec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: [web\n";
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    for action in ["suspend", "resume"] {
        let o = run(&[action, "-f", f, "pp/x"]);
        assert_eq!(o.status.code(), Some(1), "{action}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "not found in the given files; a document that does not parse may hold it: {f}:10:15: invalid YAML"
            )),
            "{action}: {}",
            stderr(&o)
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
    // Every document parses: a plain not found (exit 4), no hint.
    std::fs::write(&file, text.replace("[web", "web")).unwrap();
    let o = run(&["suspend", "-f", f, "pp/y"]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(!stderr(&o).contains("does not parse"), "{}", stderr(&o));
}

/// The same for a template: `explain ds/NAME -f` whose DaemonSet sits in a document that does
/// not parse (a public repository's Jinja `{{ HOST_IP }}` left unrendered) says not found with
/// the place of the syntax error and exits 1, as for a policy; not exit 4, which says the
/// template does not exist.
#[test]
fn a_template_in_a_document_that_does_not_parse_is_pointed_at_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: demo}\nspec:\n  template:\n    spec:\n      containers:\n      - name: agent\n        env:\n        - {name: HOST, value: [unclosed }\n";
    let pp = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: agent, namespace: demo}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: DaemonSet, name: agent}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n";
    std::fs::write(d.join("ds.yaml"), ds).unwrap();
    std::fs::write(d.join("pp.yaml"), pp).unwrap();
    let dir_arg = d.to_str().unwrap();
    let o = run(&["explain", "ds/agent", "-n", "demo", "-f", dir_arg]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let ds_path = d.join("ds.yaml");
    assert!(
        stderr(&o).contains(&format!(
            "error: daemonsets.apps \"agent\" not found in namespace demo of the given files; a document that does not parse may hold it: {}:10:",
            ds_path.display()
        )),
        "{}",
        stderr(&o)
    );
    // Only the files that parse given: a plain not found (exit 4), no hint.
    let o = run(&[
        "explain",
        "ds/agent",
        "-n",
        "demo",
        "-f",
        d.join("pp.yaml").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(!stderr(&o).contains("does not parse"), "{}", stderr(&o));
}

/// A custom kind no object of which is in the files, but that a policy selects (the operator
/// creates its objects: liangyuanpeng/karmada-extend's XlineCluster), is a known type: explain
/// of one says it is not found (exit 4), not that the type is unknown (exit 2).
#[test]
fn a_kind_only_a_policy_selects_is_a_type_whose_object_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("pp.yaml");
    std::fs::write(
        &f,
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: xline, namespace: xline}\nspec:\n  resourceSelectors: [{apiVersion: xlineoperator.xline.cloud/v1alpha1, kind: XlineCluster, namespace: xline}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n",
    )
    .unwrap();
    let f = f.display().to_string();
    // A selector with a wrong group for a well-known kind (`apps/v1` Service, which dead-policy
    // reports) does not make that kind ambiguous (chaosi-zju/karmada-demo).
    let svc = dir.path().join("svc.yaml");
    std::fs::write(
        &svc,
        "apiVersion: v1\nkind: Service\nmetadata: {name: nginx, namespace: default}\nspec: {ports: [{port: 80}]}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: typo}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Service}]\n",
    )
    .unwrap();
    let svc = svc.display().to_string();
    for ty in ["service", "svc"] {
        let o = run(&["explain", &format!("{ty}/nginx"), "-f", &svc]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    for ty in ["XlineCluster", "xlinecluster.xlineoperator.xline.cloud"] {
        let o = run(&[
            "explain",
            &format!("{ty}/my-xline"),
            "-n",
            "xline",
            "-f",
            &f,
        ]);
        assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            "error: xlineclusters.xlineoperator.xline.cloud \"my-xline\" not found in namespace xline of the given files\n"
        );
    }
}
