//! Read-only inspections, `explain` and `preempt-check`: what they read (manifests, a GitOps
//! environment, the live control plane) and the engine state they build from it, as values
//! for the command line to render. Nothing here prints a report or writes to the cluster.

pub mod explain;
pub mod plan;
pub mod preempt;

use crate::context::ConfigError;
use crate::context::Context;
use crate::engine::admission::documents::admit_documents;
use crate::engine::explain_inputs::FindError;
use crate::model::environments::{
    read_environments, read_outside_karmada, repository_files, EnvError, EnvInputs, EnvInventory,
    Found,
};
use crate::model::inputs::InputError;
use crate::model::inputs::{warn_problems, Inputs};
use crate::model::installation;
use crate::model::kinds::PolicyRefError;
use crate::model::Inventory;
use crate::source::files::ReadError;
use crate::source::kustomize::environments::UnknownEnvironment;
use crate::source::session::SessionError;

/// Why an inspection stopped before its report.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// No input named, or one unreadable.
    #[error(transparent)]
    Inputs(#[from] InputError),
    /// TYPE/NAME names no one template or policy.
    #[error(transparent)]
    Find(#[from] FindError),
    /// `--delete TYPE/[NS/]NAME` names no policy.
    #[error(transparent)]
    PolicyRef(#[from] PolicyRefError),
    /// The control plane could not be read.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// An `--apply` file holds no policy.
    #[error("{file}: no PropagationPolicy or ClusterPropagationPolicy to apply")]
    NothingToApply { file: String },
    /// A path of the repository could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The configuration file is unreadable or invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `--env` names no environment of the repository.
    #[error(transparent)]
    Environment(#[from] UnknownEnvironment),
    /// `--env` over inputs that are no GitOps repository.
    #[error("--env picks an environment of a GitOps repository (kustomizations, charts), and the inputs hold none")]
    NotARepository,
    /// The live template read did not classify as a template.
    #[error("the template read did not classify as a template")]
    NotATemplate,
    /// `plan --base`: the repository or a revision could not be read.
    #[error(transparent)]
    Git(#[from] crate::lint::git::GitLintError),
    /// `plan --base`: a file of a revision could not be read.
    #[error(transparent)]
    GitRead(#[from] crate::source::git::GitError),
    /// `plan --delete`: a target that cannot name an object (a bad TYPE/NAME).
    #[error("{0}")]
    Target(String),
    /// `plan --delete`: a target the control plane does not have (exit 4, not found).
    #[error("--delete {0}: no such object in the control plane")]
    Missing(String),
}

/// A GitOps repository's environments, each with the context of its own control plane: the
/// run's, with the Karmada installation its repository holds for it
/// ([`Context::for_repository`]), as `lint` takes it.
pub struct Environments {
    pub inputs: EnvInputs,
    /// Each environment's context, by name.
    contexts: Vec<(String, Context)>,
    /// How they were read (the `-f` paths, the run's context, `--env`): to read them again
    /// with the environments that are not Karmada API servers.
    read_as: (Vec<String>, Context, Option<String>),
}

impl Environments {
    /// Each environment's context.
    pub fn contexts(&self) -> impl Iterator<Item = &Context> {
        self.contexts.iter().map(|(_, c)| c)
    }

    /// The context `env` is decided in.
    pub fn context_of(&self, env: &EnvInventory) -> &Context {
        &self
            .contexts
            .iter()
            .find(|(name, _)| *name == env.name)
            .expect("every environment has its context")
            .1
    }

    /// How many environments have objects (and are decided in).
    pub fn count(&self) -> usize {
        self.inputs.non_empty().len()
    }

    /// `decide` in each environment with objects, in its own context (see
    /// [`EnvInputs::holding`]).
    pub fn holding<T, E: EnvError>(
        &self,
        decide: impl Fn(&EnvInventory, &Context) -> Result<T, E>,
    ) -> Result<Found<'_, T>, E> {
        self.inputs.holding(|e| decide(e, self.context_of(e)))
    }

    /// The environments read that are not Karmada API servers, with their objects, and the run's
    /// context to look at them in: read again, only when what was asked for is in none of
    /// Karmada's (nothing is decided there, so their objects are not read otherwise).
    pub fn outside_karmada(&self) -> (Vec<EnvInventory>, &Context) {
        let (files, context, env) = &self.read_as;
        if self.inputs.passed_over.is_empty() {
            return (Vec::new(), context);
        }
        match read_repository(files, context, env.as_deref(), true) {
            Ok(Some(envs)) => (envs.inputs.outside, context),
            _ => (Vec::new(), context),
        }
    }

    /// Why no environment has an object to decide on (`purpose`: "to explain"): the
    /// environments read are not Karmada API servers (`--env` named one), or the repository
    /// renders nothing.
    pub fn renders_nothing(&self, purpose: &str) -> String {
        match (
            self.inputs.environments.is_empty(),
            &self.inputs.passed_over[..],
        ) {
            (true, [one]) => {
                format!("environment {one} is not a Karmada API server: nothing {purpose} there")
            }
            (true, many @ [_, _, ..]) => format!(
                "environments {} are not Karmada API servers: nothing {purpose} there",
                many.join(", ")
            ),
            _ => format!("the repository renders no object {purpose}"),
        }
    }
}

/// `environment in-cluster, which is not a Karmada API server`: where an object is that no
/// Karmada control plane holds.
pub fn outside_karmada_names(environments: &[String]) -> String {
    match environments {
        [one] => format!("environment {one}, which is not a Karmada API server"),
        many => format!(
            "environments {}, which are not Karmada API servers",
            many.join(", ")
        ),
    }
}

/// `-f` over a GitOps repository: its environments rendered (only `env`'s), each admitted and
/// decided in its own context, their notes and warnings printed; `None` for plain manifests (or
/// rendering off in the configuration found from the current directory up).
pub fn environments(
    files: &[String],
    context: &Context,
    env: Option<&str>,
) -> Result<Option<Environments>, InspectError> {
    let found = environments_unsaid(files, context, env)?;
    if let Some(envs) = &found {
        envs.inputs.warn();
    }
    Ok(found)
}

/// [`environments`], their notes and warnings kept in `inputs.messages` instead of printed.
pub fn environments_unsaid(
    files: &[String],
    context: &Context,
    env: Option<&str>,
) -> Result<Option<Environments>, InspectError> {
    read_repository(files, context, env, false)
}

/// [`environments_unsaid`], with the objects of the environments that are not Karmada API
/// servers when `outside` ([`EnvInputs::outside`]).
fn read_repository(
    files: &[String],
    context: &Context,
    env: Option<&str>,
    outside: bool,
) -> Result<Option<Environments>, InspectError> {
    let config = &context.config;
    let paths = files;
    let ignore = |p: &std::path::Path| config.ignores(p);
    let rendering = match repository_files(files, &ignore)? {
        Some(f) if !config.render_off => Some((f, config.render_options_at(files))),
        _ => None,
    };
    let Some((files, opts)) = rendering else {
        return match env {
            Some(_) => Err(InspectError::NotARepository),
            None => Ok(None),
        };
    };
    // What a GitOps controller applies lands where the environment puts it (a Flux
    // Kustomization's targetNamespace, an Argo CD destination), else in `default`: nobody applies
    // a repository with `kubectl apply -n`, so `-n` only names the namespace of what is asked.
    let search = crate::model::elsewhere::Search::new(&ignore, config.chart_rendering());
    let elsewhere = || crate::model::elsewhere::outside(paths, search);
    let read = match outside {
        true => read_outside_karmada,
        false => read_environments,
    };
    let mut envs = read(&files, "default", &opts, env, &elsewhere)?;
    let mut contexts = Vec::new();
    for e in &mut envs.environments {
        let (env_context, notes) = context.for_repository(&e.settings);
        for n in notes.into_iter().map(|n| format!("note: {n}")) {
            if !envs.messages.contains(&n) {
                envs.messages.push(n);
            }
        }
        admit_documents(&mut e.inventory, env_context.release());
        contexts.push((e.name.clone(), env_context));
    }
    envs.messages.extend(
        installation::settings_notes(
            envs.environments
                .iter()
                .map(|e| (e.name.as_str(), &e.settings)),
        )
        .into_iter()
        .map(|n| format!("note: {n}")),
    );
    Ok(Some(Environments {
        inputs: envs,
        contexts,
        read_as: (paths.to_vec(), context.clone(), env.map(str::to_string)),
    }))
}

/// The context of plain manifests (`-f` over files that are no GitOps repository): the run's,
/// with the Karmada installation the files hold ([`Context::for_plain`]), as `lint` judges
/// them; its notes are printed. Only documents that may be an installation are parsed. Stdin
/// cannot be read twice: with it, the run's context. (A pipe named as a file, `-f <(helm
/// template ...)`, can: [`crate::source::files::read_bytes`] keeps what it gave.)
pub fn plain_context(files: &[String], context: &Context) -> Result<Context, InspectError> {
    let (plain, notes) = plain_context_and_notes(files, context)?;
    for n in &notes {
        crate::util::to_stderr("note", n);
    }
    Ok(plain)
}

/// [`plain_context`], its notes returned instead of printed.
pub fn plain_context_and_notes(
    files: &[String],
    context: &Context,
) -> Result<(Context, Vec<String>), InspectError> {
    if files.iter().any(|f| f == "-") {
        return Ok((context.clone(), Vec::new()));
    }
    let paths =
        crate::source::files::expand(files, &|p: &std::path::Path| context.config.ignores(p))?;
    let found = crate::source::files::in_parallel(&paths, &|path| {
        let (name, text) = crate::source::files::read_text(path)?;
        Ok(installation::in_text(name, text))
    })?
    .into_iter()
    .flatten()
    .collect();
    Ok(context.for_plain_paths(found, files))
}

/// Manifests read for a decision (`-f`): what could not be read is warned of, and every policy
/// goes through the admission chain of the context's release, so one Karmada would refuse
/// takes no part.
pub fn read_manifests(files: &[String], context: &Context) -> Result<Inventory, InspectError> {
    Ok(read_admitted(files, context)?.inventory)
}

/// [`read_manifests`], with what was read (the documents that did not parse among it).
pub fn read_admitted(files: &[String], context: &Context) -> Result<Inputs, InspectError> {
    let mut inputs = Inputs::read(files, context.files_namespace(), &context.config)?;
    warn_problems(&inputs.loaded);
    admit_documents(&mut inputs.inventory, context.release());
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Environments read with `karmada` deciding and `passed_over` not Karmada's.
    fn read(karmada: &[&str], passed_over: &[&str]) -> Environments {
        let env = |name: &&str| EnvInventory {
            name: name.to_string(),
            inventory: Inventory::default(),
            origins: Vec::new(),
            settings: Default::default(),
            incomplete: false,
        };
        Environments {
            inputs: EnvInputs {
                environments: karmada.iter().map(env).collect(),
                passed_over: passed_over.iter().map(|n| n.to_string()).collect(),
                outside: Vec::new(),
                names: Vec::new(),
                messages: Vec::new(),
            },
            contexts: Vec::new(),
            read_as: (Vec::new(), Context::default(), None),
        }
    }

    #[test]
    fn nothing_rendered_is_said_by_why() {
        assert_eq!(
            read(&[], &["in-cluster"]).renders_nothing("to explain"),
            "environment in-cluster is not a Karmada API server: nothing to explain there"
        );
        assert_eq!(
            read(&[], &["a", "b"]).renders_nothing("to check against"),
            "environments a, b are not Karmada API servers: nothing to check against there"
        );
        // A Karmada environment read, without objects: the repository renders nothing there.
        assert_eq!(
            read(&["prod"], &["in-cluster"]).renders_nothing("to explain"),
            "the repository renders no object to explain"
        );
        assert_eq!(
            read(&[], &[]).renders_nothing("to explain"),
            "the repository renders no object to explain"
        );
    }

    #[test]
    fn environments_outside_karmada_are_named_and_read_only_when_there_are_some() {
        assert_eq!(
            outside_karmada_names(&["in-cluster".into()]),
            "environment in-cluster, which is not a Karmada API server"
        );
        assert_eq!(
            outside_karmada_names(&["a".into(), "b".into()]),
            "environments a, b, which are not Karmada API servers"
        );
        // No environment passed over: nothing is read again (the paths would not resolve).
        assert!(read(&["prod"], &[]).outside_karmada().0.is_empty());
    }
}
