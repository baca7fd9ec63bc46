//! `lint PATH...` and `lint -`: which pipeline the inputs take — plain manifests streamed
//! ([`super::stream`]), a GitOps repository rendered, or piped input mapped back through its
//! origins ([`super::gitops`]) — and the checks that the inputs hold something to lint, so a
//! failed step before a pipe does not pass green.

use std::path::{Path, PathBuf};

use super::settings::Settings;
use super::{gitops, stream, Linted};
use crate::source::files::{self, ReadError};
use crate::source::kustomize::environments::UnknownEnvironment;

/// The inputs of a run.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    pub paths: &'a [String],
    /// `--stdin-filename` (with `-`).
    pub stdin_filename: Option<&'a str>,
    /// For objects that set none (`kubectl apply -n`).
    pub namespace: &'a str,
    /// `--allow-empty`.
    pub allow_empty: bool,
}

/// Why a run has nothing to lint, or cannot read it (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    #[error("no input: name files or directories, or `-` for stdin")]
    NoInput,
    #[error("no .yaml, .yml or .json file in {0}: nothing to lint (--allow-empty accepts that)")]
    NothingToLint(String),
    /// What PATHs name is there, but the configuration's `ignorePaths` leaves it all out.
    #[error("{0}: left out by the configuration's ignorePaths: nothing to lint (--allow-empty accepts that)")]
    AllIgnored(String),
    #[error("stdin holds no Kubernetes object: did the command before the pipe fail? (--allow-empty accepts that)")]
    EmptyStdin,
    #[error(transparent)]
    Read(#[from] ReadError),
    /// `--env` names no environment of the repository.
    #[error(transparent)]
    Environment(#[from] UnknownEnvironment),
}

/// The files PATHs name (directories expanded, the configuration's ignores skipped).
pub fn input_files(paths: &[String], settings: &Settings) -> Result<Vec<PathBuf>, FilesError> {
    if paths.is_empty() {
        return Err(FilesError::NoInput);
    }
    Ok(files::expand(paths, &|p: &Path| {
        settings.context.config.ignores(p)
    })?)
}

/// Lints the inputs; notes on data files of a plain run go to `note` as they are read.
pub fn lint_files(
    req: &Request<'_>,
    settings: &Settings,
    note: &dyn Fn(&str),
) -> Result<Linted, FilesError> {
    let (config, opts) = (&settings.context.config, &settings.options);
    if let (true, Some(name)) = (req.paths == ["-"], req.stdin_filename) {
        let (_, text) = files::read_text(Path::new("-"))?;
        return Ok(gitops::lint_piped(text, name, req.namespace, opts).into_linted());
    }
    let files = input_files(req.paths, settings)?;
    if files.is_empty() && !req.allow_empty {
        let ignored = !files::expand(req.paths, &|_| false)
            .unwrap_or_default()
            .is_empty();
        let paths = req.paths.join(", ");
        return Err(if ignored {
            FilesError::AllIgnored(paths)
        } else {
            FilesError::NothingToLint(paths)
        });
    }
    let stdin = req.paths.iter().any(|p| p == "-");
    // The files are a repository to render when a file's name says so, or when a file
    // defines GitOps environments (`gitops::applies`): the second is asked of each file as the
    // plain lint parses it, rather than by reading every file twice.
    let may_render = !config.render_off && !stdin;
    let lint_repository = || -> Result<Linted, FilesError> {
        let linted = gitops::lint_repository(&gitops::RepositoryRequest {
            inputs: &files,
            root: crate::source::kustomize::environments::root_of(req.paths),
            namespace: req.namespace,
            opts,
            context: &settings.context,
            base: None,
            elsewhere: &|| {
                let ignore = |p: &Path| config.ignores(p);
                let search =
                    crate::model::elsewhere::Search::new(&ignore, config.chart_rendering());
                crate::model::elsewhere::outside(req.paths, search)
            },
        })?;
        Ok(linted.into_linted())
    };
    if may_render && gitops::applies_by_name(&files) {
        return lint_repository();
    }
    let namespace_of = |p: &Path| config.namespace_for(p).map(str::to_string);
    let mut streamed =
        stream::lint_paths_in(&files, &namespace_of, req.namespace, opts, may_render)?;
    if streamed.declares_environments {
        return lint_repository();
    }
    if let Some((opts, notes)) = with_installation(&mut streamed, settings, req.paths) {
        // The files install Karmada with other settings than the run's: judged again under
        // them (rare, and such repositories are small).
        streamed = stream::lint_paths_in(&files, &namespace_of, req.namespace, &opts, false)?;
        streamed.notes.extend(notes);
    }
    note_assumed(&mut streamed, config, req.namespace);
    // Data files (a values file, a dashboard) are skipped, not findings.
    crate::source::data_notes(&streamed.loaded)
        .iter()
        .for_each(|n| note(n));
    if !req.allow_empty && streamed.stdin_was_empty(req.paths) {
        return Err(FilesError::EmptyStdin);
    }
    Ok(streamed.into_linted())
}

/// Plain manifests are one control plane: the Karmada installation they hold (a HelmRelease of
/// the chart, the operator's `Karmada`, a controller-manager Deployment) gives its release and
/// gates where neither a flag nor the configuration does ([`Context::for_repository`], as for
/// a GitOps environment); holding none, the one the rest of their git repository holds
/// ([`Context::for_plain_paths`]). The lint options to judge the files again with, when they
/// differ from the run's, and the notes to give; the notes go to `streamed` when they do not.
///
/// [`Context::for_repository`]: crate::context::Context::for_repository
/// [`Context::for_plain_paths`]: crate::context::Context::for_plain_paths
fn with_installation(
    streamed: &mut stream::Streamed,
    settings: &Settings,
    paths: &[String],
) -> Option<(crate::lint::LintOptions, Vec<String>)> {
    let found = std::mem::take(&mut streamed.installations);
    let (context, notes) = settings.context.for_plain_paths(found, paths);
    let Some(opts) = settings.options.in_context(&context) else {
        streamed.notes.extend(notes);
        return None;
    };
    Some((opts, notes))
}

/// Says where a namespace-dependent finding's document got no namespace from anywhere (see
/// [`super::note_assumed_namespace`]).
fn note_assumed(linted: &mut stream::Streamed, config: &crate::context::Config, namespace: &str) {
    if namespace != "default" {
        return;
    }
    let documents = &linted.inventory.documents;
    let assumed = |doc: usize| {
        documents.get(doc).is_some_and(|d| {
            config.namespace_for(Path::new(&d.source.name)).is_none()
                && d.full_tree()
                    .get("metadata")
                    .and_then(|m| m.get("namespace"))
                    .is_none()
        })
    };
    super::note_assumed_namespace(&mut linted.findings, &assumed);
}
