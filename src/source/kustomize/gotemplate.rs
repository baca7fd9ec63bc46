//! Go's text/template for an Argo CD ApplicationSet's `templatePatch` with `goTemplate: true`,
//! as the ApplicationSet controller renders it (applicationset/utils `Render.Replace`): the
//! generator's parameters as nested maps (`.cluster.name`), Go's builtins (`printf`, `eq`,
//! `if`, `range`...) and the few sprig functions patches use to keep a value one YAML scalar.

use std::collections::BTreeMap;

use gtmpl::{Context, Func, FuncError, Template, Value};

/// A templatePatch parsed once, rendered for each parameter set of its ApplicationSet.
pub struct GoTemplate(Template);

impl GoTemplate {
    /// `text` parsed, with the functions patches use. An error says what could not be read.
    pub fn parse(text: &str) -> Result<GoTemplate, String> {
        // A template that defines and calls templates can recurse without end: none is needed
        // to patch an Application, so none is run.
        static NAMED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"\{\{-?\s*(define|template|block)\b").expect("valid")
        });
        if NAMED.is_match(text) {
            return Err("it defines or calls named templates".into());
        }
        let mut template = Template::default();
        template.add_funcs(&[
            ("toJson", to_json as Func),
            ("quote", to_json as Func),
            ("lower", lower as Func),
            ("upper", upper as Func),
            ("trim", trim as Func),
            ("default", default as Func),
        ]);
        template.parse(text).map_err(|e| e.to_string())?;
        Ok(GoTemplate(template))
    }

    /// The text rendered with `params` (flattened as the generators give them: `cluster.name`,
    /// `path`, `path.basename`). An error says what could not be rendered.
    pub fn render(&self, params: &BTreeMap<String, String>) -> Result<String, String> {
        let out = self
            .0
            .render(&Context::from(context(params)))
            .map_err(|e| e.to_string())?;
        // A missing key renders as Go's `<no value>`: an Application with it in a name or a
        // destination is invalid, and Argo CD neither creates nor updates it.
        if out.contains("<no value>") {
            return Err("it reads a parameter the generator does not give".into());
        }
        Ok(out)
    }
}

/// One level of the parameters' tree: a value, nested keys, or both (the git generators'
/// `path` is the directory, and `path.basename` a key under it: Go templates read the
/// directory as `.path.path`).
#[derive(Default)]
struct Level {
    value: Option<String>,
    nested: BTreeMap<String, Level>,
}

/// The parameters as Go templates read them: `cluster.name` as `.cluster.name`. Indexed keys
/// (`path[0]`) are the flat form's only and are left out.
fn context(params: &BTreeMap<String, String>) -> Value {
    let mut root = Level::default();
    for (key, value) in params.iter().filter(|(k, _)| !k.contains('[')) {
        let mut at = &mut root;
        for part in key.split('.') {
            at = at.nested.entry(part.to_string()).or_default();
        }
        at.value = Some(value.clone());
    }
    to_value(root, None)
}

/// A parameter's value as Go templates see it: a list generator's elements are raw JSON
/// (generators/list.go), so `true` and `false` are booleans (`{{ if .autoSync }}`); the
/// parameters reach here as text.
fn scalar(text: String) -> Value {
    match text.as_str() {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => Value::from(text),
    }
}

fn to_value(level: Level, name: Option<&str>) -> Value {
    // The root is a map whatever it holds.
    if level.nested.is_empty() && name.is_some() {
        return scalar(level.value.unwrap_or_default());
    }
    let mut map: std::collections::HashMap<String, Value> = level
        .nested
        .into_iter()
        .map(|(k, l)| {
            let v = to_value(l, Some(&k));
            (k, v)
        })
        .collect();
    if let (Some(value), Some(name)) = (level.value, name) {
        map.entry(name.to_string()).or_insert(scalar(value));
    }
    Value::from(map)
}

fn text_of(args: &[Value], name: &str) -> Result<String, FuncError> {
    match args.first() {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::NoValue) | Some(Value::Nil) | None if name == "default" => Ok(String::new()),
        Some(other) => Ok(other.to_string()),
        None => Err(FuncError::AtLeastXArgs(name.into(), 1)),
    }
}

/// sprig's `toJson` and `quote` of a string: a JSON string, one YAML scalar whatever it holds.
fn to_json(args: &[Value]) -> Result<Value, FuncError> {
    let text = text_of(args, "toJson")?;
    Ok(Value::from(serde_json::Value::from(text).to_string()))
}

fn lower(args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::from(text_of(args, "lower")?.to_lowercase()))
}

fn upper(args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::from(text_of(args, "upper")?.to_uppercase()))
}

fn trim(args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::from(text_of(args, "trim")?.trim().to_string()))
}

/// sprig's `default D V`: V, or D when V is empty.
fn default(args: &[Value]) -> Result<Value, FuncError> {
    let fallback = args
        .first()
        .cloned()
        .ok_or_else(|| FuncError::AtLeastXArgs("default".into(), 2))?;
    let given = match args.get(1) {
        Some(Value::String(s)) if !s.is_empty() => Some(Value::String(s.clone())),
        Some(Value::String(_) | Value::NoValue | Value::Nil) | None => None,
        Some(other) => Some(other.clone()),
    };
    Ok(given.unwrap_or(fallback))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str, params: &BTreeMap<String, String>) -> Result<String, String> {
        GoTemplate::parse(text)?.render(params)
    }

    fn params(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// SJoon99/scalex-federation's patch: nested parameters, `printf`, `if eq` with trim
    /// markers, `toJson`.
    #[test]
    fn a_patch_with_printf_and_conditions_renders_as_argo_cd_renders_it() {
        let text = "spec:\n  sources:\n    - path: {{ .policy.path | toJson }}\n      helm:\n        valueFiles:\n          - {{ printf \"$federation/%s\" .valuesFile | toJson }}\n    {{- if eq .policy.renderer \"directory\" }}\n      directory: {recurse: true}\n    {{- end }}\n";
        let p = params(&[
            ("policy.path", "releases/web"),
            ("policy.renderer", "directory"),
            ("valuesFile", "values/web.yaml"),
        ]);
        assert_eq!(
            render(text, &p).unwrap(),
            "spec:\n  sources:\n    - path: \"releases/web\"\n      helm:\n        valueFiles:\n          - \"$federation/values/web.yaml\"\n      directory: {recurse: true}\n"
        );
        let plain = params(&[
            ("policy.path", "p"),
            ("policy.renderer", "kustomize"),
            ("valuesFile", "v"),
        ]);
        assert!(!render(text, &plain).unwrap().contains("directory"));
    }

    /// The git generators' `path` is both the directory and the parent of `path.basename`.
    #[test]
    fn a_value_with_nested_keys_is_read_under_its_own_name() {
        let p = params(&[
            ("path", "apps/web"),
            ("path.basename", "web"),
            ("path[0]", "apps"),
        ]);
        assert_eq!(
            render("{{ .path.path }} {{ .path.basename }}", &p).unwrap(),
            "apps/web web"
        );
    }

    /// A list element's `false` is a boolean: `if` takes the else branch.
    #[test]
    fn true_and_false_are_booleans() {
        let text = "{{- if .flag }}b{{- else }}a{{- end }}";
        assert_eq!(render(text, &params(&[("flag", "true")])).unwrap(), "b");
        assert_eq!(render(text, &params(&[("flag", "false")])).unwrap(), "a");
    }

    #[test]
    fn named_templates_and_unknown_functions_are_refused() {
        let p = params(&[]);
        let looping = "{{define \"a\"}}{{template \"a\"}}{{end}}{{template \"a\"}}";
        assert_eq!(
            render(looping, &p).unwrap_err(),
            "it defines or calls named templates"
        );
        assert!(render("{{ sha256sum .x }}", &p).is_err());
        assert_eq!(
            render("name: {{ .cluster }}", &p).unwrap_err(),
            "it reads a parameter the generator does not give"
        );
    }
}
