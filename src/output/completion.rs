//! Shell completion candidates: the words typed so far read against the clap definition of the
//! command line ([`walk`]), then candidates for the word being typed (subcommands, flags,
//! possible values, rule ids, and live names through [`LiveNames`]), printed in Cobra's protocol
//! (one candidate per line, `value<TAB>description` allowed, then `:<directive>`), which kubectl's
//! plugin completion reads. Also the shim kubectl runs for `kubectl karmada-policy <TAB>`.
//!
//! kubectl (>= 1.26) completes `kubectl karmada-policy <words>` by running the executable
//! `kubectl_complete-karmada_policy <words...> <word being typed>` found on PATH.
//! `completion kubectl-plugin` writes that executable ([`write_shim`]), a two-line shim that
//! calls `kubectl-karmada_policy __complete`, next to the binary (krew installs one binary only).
//! Candidates come from the clap definition, the rule registry (`--explain`), the kubeconfig
//! (`--context`) and, when a kubeconfig works, the live control plane (policy names for
//! `suspend pp/`, namespaces, clusters). A live read that fails or takes over two seconds
//! completes nothing rather than printing an error into the prompt.

use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction};

use crate::kube::kinds::{self, KarmadaKind};
pub use crate::source::completion::LiveNames;

/// The plugin binary the shim calls (on PATH, as kubectl found the plugin).
pub const BINARY: &str = "kubectl-karmada_policy";

/// `completion SHELL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
    /// kubectl's plugin completion: the `kubectl_complete-karmada_policy` shim.
    KubectlPlugin,
}

impl Shell {
    /// The clap_complete generator of a shell; `None` for kubectl's plugin completion.
    pub fn generator(self) -> Option<clap_complete::Shell> {
        match self {
            Shell::Bash => Some(clap_complete::Shell::Bash),
            Shell::Zsh => Some(clap_complete::Shell::Zsh),
            Shell::Fish => Some(clap_complete::Shell::Fish),
            Shell::Powershell => Some(clap_complete::Shell::PowerShell),
            Shell::KubectlPlugin => None,
        }
    }
}

/// The executable kubectl looks for: `kubectl_complete-` and the plugin name, `-` as `_`.
pub const SHIM_NAME: &str = "kubectl_complete-karmada_policy";

/// Writes the shim into `dir`, executable; returns its path.
pub fn write_shim(dir: &Path) -> Result<PathBuf, ShimError> {
    let path = dir.join(SHIM_NAME);
    let written = std::fs::write(&path, shim_script()).and_then(|()| {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
        Ok(())
    });
    match written {
        Ok(()) => Ok(path),
        Err(source) => Err(ShimError { path, source }),
    }
}

/// The directory of the executable as the shell or kubectl found it, where the shim must go to
/// be found on PATH too: `argv0`'s own directory when it names a path (kubectl runs a plugin
/// by the path its PATH search gave, e.g. `~/.krew/bin/kubectl-karmada_policy`, krew's symlink
/// into `store/<version>/`, which is not on PATH), else the first PATH entry holding it. The
/// symlink is not followed: its target's directory is what krew keeps off PATH.
pub fn invoked_dir(
    argv0: &Path,
    path_var: Option<&std::ffi::OsStr>,
    cwd: &Path,
) -> Option<PathBuf> {
    if argv0.components().count() > 1 {
        let dir = argv0.parent()?;
        return Some(if dir.is_absolute() {
            dir.to_path_buf()
        } else {
            cwd.join(dir)
        });
    }
    std::env::split_paths(path_var?)
        .filter(|d| !d.as_os_str().is_empty())
        .find(|d| d.join(argv0).is_file())
        .map(|d| if d.is_absolute() { d } else { cwd.join(d) })
}

/// Where the shim goes by default: where the binary was found on PATH (krew: `~/.krew/bin`,
/// not the symlink's target; see [`invoked_dir`]), else where it is.
pub fn shim_dir() -> Option<PathBuf> {
    let argv0 = std::env::args_os().next().map(PathBuf::from);
    let cwd = std::env::current_dir().ok();
    if let (Some(argv0), Some(cwd)) = (argv0, cwd) {
        let path = std::env::var_os("PATH");
        if let Some(dir) = invoked_dir(&argv0, path.as_deref(), &cwd) {
            return Some(dir);
        }
    }
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
}

/// The shim could not be written (or made executable) at `path`.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct ShimError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// The shim: kubectl passes the words after `karmada-policy`; a leading `__complete` (as when
/// it is called like a Cobra program) is accepted too.
pub fn shim_script() -> String {
    format!(
        "#!/bin/sh\n\
         # kubectl (>= 1.26) runs this to complete `kubectl karmada-policy ...` (Cobra's protocol).\n\
         # Written by `kubectl karmada-policy completion kubectl-plugin`.\n\
         [ \"$1\" = __complete ] && shift\n\
         exec {BINARY} __complete \"$@\"\n"
    )
}

/// Cobra's `ShellCompDirective` bits.
pub mod directive {
    pub const DEFAULT: u32 = 0;
    pub const NO_SPACE: u32 = 2;
    pub const NO_FILE_COMP: u32 = 4;
}

/// What `__complete` prints: candidates (`value` or `value\tdescription`) and a directive.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub candidates: Vec<String>,
    pub directive: u32,
}

impl Completion {
    pub fn of(candidates: Vec<String>, directive: u32) -> Completion {
        Completion {
            candidates,
            directive,
        }
    }

    /// Cobra's wire format. A candidate holding a control character (no Kubernetes name can)
    /// is left out rather than typed into the shell's prompt; a description's are escaped.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for c in &self.candidates {
            let (value, about) = c.split_once('\t').unwrap_or((c, ""));
            if value.contains(char::is_control) {
                continue;
            }
            out.push_str(value);
            if !about.is_empty() {
                out.push('\t');
                out.push_str(&crate::util::escape::visible(about));
            }
            out.push('\n');
        }
        out.push_str(&format!(":{}\n", self.directive));
        out
    }
}

/// The words before the one being completed, read against the clap definition.
pub struct Walked<'a> {
    /// The innermost subcommand named.
    cmd: &'a clap::Command,
    /// The flag whose value is being typed (`--context <TAB>`).
    pending: Option<&'a Arg>,
    /// Flag values seen, by argument id.
    values: Vec<(String, String)>,
    positionals: Vec<String>,
    /// The word being completed.
    current: String,
}

impl Walked<'_> {
    pub fn value(&self, id: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v.as_str())
    }

    fn flag(&self, id: &str) -> bool {
        self.values.iter().any(|(k, _)| k == id)
    }
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

fn find_long<'a>(cmd: &'a clap::Command, name: &str) -> Option<&'a Arg> {
    cmd.get_arguments().find(|a| {
        a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|al| al.contains(&name))
    })
}

fn find_short(cmd: &clap::Command, c: char) -> Option<&Arg> {
    cmd.get_arguments().find(|a| a.get_short() == Some(c))
}

/// Reads `words` (the last one is being typed, possibly empty) as clap would.
pub fn walk<'a>(root: &'a clap::Command, words: &[String]) -> Walked<'a> {
    let (current, done) = match words.split_last() {
        Some((last, rest)) => (last.clone(), rest),
        None => (String::new(), &[][..]),
    };
    let mut w = Walked {
        cmd: root,
        pending: None,
        values: Vec::new(),
        positionals: Vec::new(),
        current,
    };
    for word in done {
        if let Some(arg) = w.pending.take() {
            w.values.push((arg.get_id().to_string(), word.clone()));
        } else if let Some(long) = word.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if let Some(arg) = find_long(w.cmd, name) {
                match value {
                    Some(v) => w.values.push((arg.get_id().to_string(), v.to_string())),
                    None if takes_value(arg) => w.pending = Some(arg),
                    None => w.values.push((arg.get_id().to_string(), String::new())),
                }
            }
        } else if let Some(shorts) = word.strip_prefix('-').filter(|s| !s.is_empty()) {
            let c = shorts.chars().next().unwrap_or('-');
            if let Some(arg) = find_short(w.cmd, c) {
                let rest = &shorts[c.len_utf8()..];
                if takes_value(arg) && rest.is_empty() {
                    w.pending = Some(arg);
                } else {
                    let v = rest.trim_start_matches('=').to_string();
                    w.values.push((arg.get_id().to_string(), v));
                }
            }
        } else if let Some(sub) = w
            .positionals
            .is_empty()
            .then(|| w.cmd.find_subcommand(word))
            .flatten()
        {
            w.cmd = sub;
        } else {
            w.positionals.push(word.clone());
        }
    }
    w
}

/// Completes the walked words.
pub fn complete(root: &clap::Command, words: &[String], live: &dyn LiveNames) -> Completion {
    complete_walked(&walk(root, words), live)
}

pub fn complete_walked(w: &Walked<'_>, live: &dyn LiveNames) -> Completion {
    let current = w.current.as_str();
    if let Some(arg) = w.pending {
        return values(w, arg, current, live, "");
    }
    if let Some(long) = current.strip_prefix("--") {
        if let Some((name, typed)) = long.split_once('=') {
            if let Some(arg) = find_long(w.cmd, name) {
                return values(w, arg, typed, live, &format!("--{name}="));
            }
            return Completion::of(Vec::new(), directive::NO_FILE_COMP);
        }
    }
    if current.starts_with('-') {
        return Completion::of(flags(w.cmd, current), directive::NO_FILE_COMP);
    }
    if w.cmd.has_subcommands() && w.positionals.is_empty() {
        let subs = w
            .cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name().starts_with(current))
            .map(|s| described(s.get_name(), s.get_about()))
            .collect();
        return Completion::of(subs, directive::NO_FILE_COMP);
    }
    positional(w, current, live)
}

fn described(value: &str, about: Option<&clap::builder::StyledStr>) -> String {
    match about.map(|a| a.to_string()) {
        Some(a) if !a.is_empty() => {
            let first = a.lines().next().unwrap_or_default().trim_end_matches('.');
            format!("{value}\t{first}")
        }
        _ => value.to_string(),
    }
}

fn flags(cmd: &clap::Command, current: &str) -> Vec<String> {
    let mut out = Vec::new();
    for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        if let Some(long) = a.get_long() {
            let flag = format!("--{long}");
            if flag.starts_with(current) {
                out.push(described(&flag, a.get_help()));
            }
        }
    }
    if "--help".starts_with(current) && !out.iter().any(|f| f.starts_with("--help")) {
        out.push("--help\tPrint help".to_string());
    }
    out
}

/// Values of a flag: possible values, rule ids, contexts, namespaces, clusters, else files.
fn values(
    w: &Walked<'_>,
    arg: &Arg,
    typed: &str,
    live: &dyn LiveNames,
    prefix: &str,
) -> Completion {
    let id = arg.get_id().as_str();
    let mut names: Vec<String> = match id {
        "explain" => crate::lint::registry::all()
            .iter()
            .map(|r| r.id.to_string())
            .collect(),
        "context" => live.contexts(),
        "namespace" => live.namespaces(),
        "clusters" => live.clusters(),
        _ => arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect(),
    };
    if names.is_empty() {
        names = parsed_values(w.cmd.get_name(), id)
            .iter()
            .map(|v| v.to_string())
            .collect();
    }
    if names.is_empty() && matches!(arg.get_action(), ArgAction::Append | ArgAction::Set) {
        let hint = arg.get_value_hint();
        let path_like = matches!(
            hint,
            clap::ValueHint::AnyPath | clap::ValueHint::FilePath | clap::ValueHint::DirPath
        ) || matches!(id, "files" | "kubeconfig" | "config" | "paths");
        if path_like {
            return Completion::of(Vec::new(), directive::DEFAULT);
        }
    }
    names.retain(|n| n.starts_with(typed));
    let candidates = names.into_iter().map(|n| format!("{prefix}{n}")).collect();
    Completion::of(candidates, directive::NO_FILE_COMP)
}

/// Values of flags whose parser is a function (clap cannot list them).
fn parsed_values(cmd: &str, id: &str) -> &'static [&'static str] {
    match (cmd, id) {
        (_, "fail_on" | "min_severity") => &["error", "warning", "info", "none"],
        ("lint", "output") => &["text", "json", "sarif", "github", "junit"],
        ("explain" | "preempt-check", "output") => &["text", "json"],
        _ => &[],
    }
}

/// Positional words: policies for suspend/resume, a template (or policy) for explain, files
/// for the rest.
fn positional(w: &Walked<'_>, current: &str, live: &dyn LiveNames) -> Completion {
    match w.cmd.get_name() {
        "suspend" | "resume" => policies(w, current, live),
        "explain" if w.positionals.is_empty() => explained(w, current, live),
        _ => Completion::of(Vec::new(), directive::DEFAULT),
    }
}

/// `explain TYPE/<TAB>`: the names of that type on the control plane (in `-n`, else the
/// context's namespace), `pp/` and `cpp/` as for suspend. Not live with `-f` (manifests).
fn explained(w: &Walked<'_>, current: &str, live: &dyn LiveNames) -> Completion {
    let Some((ty, typed)) = current.split_once('/') else {
        return Completion::of(Vec::new(), directive::NO_SPACE | directive::NO_FILE_COMP);
    };
    if policy_kind(ty).is_some() {
        return policies(w, current, live);
    }
    if ty.is_empty() || w.value("files").is_some() {
        return Completion::of(Vec::new(), directive::NO_FILE_COMP);
    }
    let mut names = live.templates(ty, w.value("namespace"));
    names.sort();
    names.dedup();
    let candidates = names
        .into_iter()
        .filter(|n| n.starts_with(typed))
        .map(|n| format!("{ty}/{n}"))
        .collect();
    Completion::of(candidates, directive::NO_FILE_COMP)
}

/// The policy kind a TYPE word names (`pp`, `clusterpropagationpolicies`, ...).
fn policy_kind(word: &str) -> Option<&'static KarmadaKind> {
    match word {
        "pp" | "propagationpolicy" | "propagationpolicies" => Some(&kinds::PROPAGATION_POLICY),
        "cpp" | "clusterpropagationpolicy" | "clusterpropagationpolicies" => {
            Some(&kinds::CLUSTER_PROPAGATION_POLICY)
        }
        _ => None,
    }
}

fn policies(w: &Walked<'_>, current: &str, live: &dyn LiveNames) -> Completion {
    let Some((word, typed)) = current.split_once('/') else {
        let kinds = ["pp/", "cpp/"]
            .into_iter()
            .filter(|k| k.starts_with(current))
            .map(str::to_string)
            .collect();
        return Completion::of(kinds, directive::NO_SPACE | directive::NO_FILE_COMP);
    };
    let Some(kind) = policy_kind(word) else {
        return Completion::of(Vec::new(), directive::NO_FILE_COMP);
    };
    let namespace = if w.flag("all_namespaces") {
        None
    } else {
        w.value("namespace")
    };
    let mut names = live.policies(kind, namespace);
    names.sort();
    names.dedup();
    let candidates = names
        .into_iter()
        .filter(|n| n.starts_with(typed))
        .map(|n| format!("{word}/{n}"))
        .collect();
    Completion::of(candidates, directive::NO_FILE_COMP)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Fixed live names, so the parser is tested without a server.
    struct Fixed;

    impl LiveNames for Fixed {
        fn policies(&self, kind: &KarmadaKind, namespace: Option<&str>) -> Vec<String> {
            match (kind.namespaced, namespace) {
                (true, Some("web")) => vec!["frontend".into()],
                (true, _) => vec!["nginx".into(), "nats".into()],
                (false, _) => vec!["global".into()],
            }
        }
        fn templates(&self, ty: &str, namespace: Option<&str>) -> Vec<String> {
            match (ty, namespace) {
                ("deploy", Some("shop")) => vec!["web".into(), "worker".into(), "api".into()],
                ("deploy", _) => vec!["default-app".into()],
                _ => Vec::new(),
            }
        }
        fn namespaces(&self) -> Vec<String> {
            vec!["default".into(), "web".into()]
        }
        fn clusters(&self) -> Vec<String> {
            vec!["member1".into(), "member2".into()]
        }
        fn contexts(&self) -> Vec<String> {
            vec!["karmada-apiserver".into(), "kind".into()]
        }
    }

    fn run(words: &[&str]) -> Completion {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        complete(&crate::cli::Cli::command(), &words, &Fixed)
    }

    fn values_of(c: &Completion) -> Vec<&str> {
        c.candidates
            .iter()
            .map(|c| c.split('\t').next().unwrap())
            .collect()
    }

    #[test]
    fn subcommands_complete_by_prefix() {
        let c = run(&["sus"]);
        assert_eq!(values_of(&c), ["suspend"]);
        assert_eq!(c.directive, directive::NO_FILE_COMP);
        assert!(values_of(&run(&[""])).contains(&"preempt-check"));
    }

    #[test]
    fn policy_names_after_a_kind() {
        assert_eq!(
            values_of(&run(&["suspend", "pp/"])),
            ["pp/nats", "pp/nginx"]
        );
        assert_eq!(values_of(&run(&["resume", "pp/ng"])), ["pp/nginx"]);
        assert_eq!(
            values_of(&run(&["suspend", "-n", "web", "pp/"])),
            ["pp/frontend"]
        );
        assert_eq!(values_of(&run(&["suspend", "cpp/"])), ["cpp/global"]);
        let kinds = run(&["suspend", ""]);
        assert_eq!(values_of(&kinds), ["pp/", "cpp/"]);
        assert_eq!(
            kinds.directive,
            directive::NO_SPACE | directive::NO_FILE_COMP
        );
    }

    #[test]
    fn template_names_after_a_type_for_explain() {
        assert_eq!(
            values_of(&run(&["explain", "-n", "shop", "deploy/"])),
            ["deploy/api", "deploy/web", "deploy/worker"]
        );
        assert_eq!(
            values_of(&run(&["explain", "-n", "shop", "deploy/w"])),
            ["deploy/web", "deploy/worker"]
        );
        assert_eq!(
            values_of(&run(&["explain", "deploy/"])),
            ["deploy/default-app"]
        );
        assert_eq!(
            values_of(&run(&["explain", "pp/"])),
            ["pp/nats", "pp/nginx"]
        );
        // With -f the templates are in files: nothing from the control plane.
        assert!(values_of(&run(&["explain", "-f", "x.yaml", "deploy/"])).is_empty());
    }

    #[test]
    fn flags_and_their_values() {
        assert!(values_of(&run(&["lint", "--fail"])).contains(&"--fail-on"));
        assert_eq!(values_of(&run(&["lint", "--fail-on", "w"])), ["warning"]);
        assert_eq!(
            values_of(&run(&["lint", "--fail-on=e"])),
            ["--fail-on=error"]
        );
        assert!(values_of(&run(&["lint", "--explain", "preemption"]))
            .contains(&"preemption-requires-name"));
        assert_eq!(
            values_of(&run(&["suspend", "--context", "k"])),
            ["karmada-apiserver", "kind"]
        );
        assert_eq!(values_of(&run(&["suspend", "-n", ""])), ["default", "web"]);
        assert_eq!(
            values_of(&run(&["suspend", "--clusters", "member"])),
            ["member1", "member2"]
        );
        // Files: the shell completes them itself.
        assert_eq!(run(&["lint", ""]).directive, directive::DEFAULT);
        assert_eq!(run(&["suspend", "-f", ""]).directive, directive::DEFAULT);
    }

    #[test]
    fn render_is_cobras_protocol() {
        let c = Completion::of(vec!["a".into(), "b\tdesc".into()], 4);
        assert_eq!(c.render(), "a\nb\tdesc\n:4\n");
        let raw = Completion::of(vec!["x\u{1b}[2K".into(), "c\td\u{7}".into()], 4);
        assert_eq!(raw.render(), "c\td\\u{7}\n:4\n");
    }

    #[test]
    fn the_shim_goes_beside_the_executable_as_found_not_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        let bin = cwd.join("krew/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join(BINARY), "").unwrap();
        // kubectl's plugin handler: argv[0] is the path its PATH search found.
        let by_path = invoked_dir(&bin.join(BINARY), None, cwd);
        assert_eq!(by_path.as_deref(), Some(bin.as_path()));
        assert_eq!(
            invoked_dir(Path::new("./krew/bin/kubectl-karmada_policy"), None, cwd),
            Some(cwd.join("./krew/bin"))
        );
        // Typed as a bare name: the first PATH entry holding it.
        let path = std::env::join_paths([cwd.join("empty"), bin.clone()]).unwrap();
        let found = invoked_dir(Path::new(BINARY), Some(&path), cwd);
        assert_eq!(found.as_deref(), Some(bin.as_path()));
        assert_eq!(invoked_dir(Path::new(BINARY), None, cwd), None);
    }

    #[test]
    fn shim_calls_the_binary_with_the_words() {
        let s = shim_script();
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains("exec kubectl-karmada_policy __complete \"$@\""));
    }
}
