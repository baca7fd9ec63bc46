//! Reports of several environments as one (`explain -f` and `preempt-check -f` over a GitOps
//! repository without `--env`): each environment's report as it would be alone, labelled.

use serde_json::{Map, Value};

use crate::context::flags::OutputFormat;

/// One environment's name and its report, rendered as for a single environment.
pub struct Section {
    pub name: String,
    pub report: String,
}

/// The reports found per environment ([`EnvInputs::holding`]), one section each, of the
/// `among` environments that were asked. With `-o json` or `-o yaml` each report was rendered
/// as JSON ([`section_format`]); YAML is made from it here, for one section as for several.
/// One report is printed as it is, but when other environments were asked and do not hold
/// what was asked, it names its environment: the answer is that environment's alone (text: a
/// heading; JSON and YAML: an `"environment"` field first).
///
/// [`EnvInputs::holding`]: crate::model::environments::EnvInputs::holding
pub fn render_found(
    output: OutputFormat,
    found: crate::model::environments::Found<String>,
    among: usize,
) -> String {
    let sections: Vec<Section> = found
        .into_iter()
        .map(|(e, report)| Section {
            name: e.name.clone(),
            report,
        })
        .collect();
    let mut sections = sections;
    if let ([one], true) = (sections.as_mut_slice(), among > 1) {
        if output == OutputFormat::Text {
            return only_one(one, among);
        }
        one.report = named_report(&one.name, &one.report);
    }
    if output != OutputFormat::Yaml {
        return render(output == OutputFormat::Json, &sections);
    }
    let json = render(true, &sections);
    match serde_json::from_str::<Value>(&json) {
        Ok(v) => super::yaml::to_yaml(&v),
        Err(_) => json,
    }
}

/// The format each environment's report is rendered in before [`render_found`] joins them.
pub fn section_format(output: OutputFormat) -> OutputFormat {
    match output {
        OutputFormat::Yaml => OutputFormat::Json,
        other => other,
    }
}

/// One environment's report as it is; several as [`json`] or [`text`] sections.
pub fn render(json_format: bool, sections: &[Section]) -> String {
    match sections {
        [one] => one.report.clone(),
        _ if json_format => json(sections),
        _ => text(sections),
    }
}

/// Text: each report under an `== environment NAME ==` heading, a blank line between them.
/// Environments whose reports are the same (plain manifests joined to each of a repository's
/// kustomize roots) share one: `== environments app-a, app-b (the same answer) ==`.
pub fn text(sections: &[Section]) -> String {
    let mut groups: Vec<(Vec<&str>, &str)> = Vec::new();
    for s in sections {
        match groups.iter_mut().find(|(_, report)| *report == s.report) {
            Some((names, _)) => names.push(&s.name),
            None => groups.push((vec![&s.name], &s.report)),
        }
    }
    let mut out = String::new();
    for (i, (names, report)) in groups.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let shown: Vec<String> = names
            .iter()
            .map(|n| crate::util::escape::visible(n).into_owned())
            .collect();
        match shown.as_slice() {
            [one] => out.push_str(&format!("== environment {one} ==\n")),
            many => out.push_str(&format!(
                "== environments {} (the same answer) ==\n",
                many.join(", ")
            )),
        }
        out.push_str(report);
    }
    out
}

/// A JSON report with `"environment": NAME` first (as it is when it is no JSON object).
fn named_report(name: &str, report: &str) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(report) else {
        return report.to_string();
    };
    let mut named = Map::new();
    named.insert("environment".into(), Value::String(name.to_string()));
    named.extend(fields);
    let mut out = serde_json::to_string_pretty(&Value::Object(named)).expect("serializable");
    out.push('\n');
    crate::util::escape::json_text(out)
}

/// Text of the one environment of `among` that holds what was asked.
fn only_one(section: &Section, among: usize) -> String {
    let name = crate::util::escape::visible(&section.name);
    format!(
        "== environment {name} (the only one of {among} Karmada environments that holds it) ==\n{}",
        section.report
    )
}

/// JSON: `{"environments": [{"name": NAME, ...the report's fields}]}`. Each report is the
/// JSON object the subcommand prints for one environment.
pub fn json(sections: &[Section]) -> String {
    let items: Vec<Value> = sections
        .iter()
        .map(|s| {
            let mut item = Map::new();
            item.insert("name".into(), Value::String(s.name.clone()));
            match serde_json::from_str::<Value>(&s.report) {
                Ok(Value::Object(fields)) => item.extend(fields),
                Ok(other) => {
                    item.insert("report".into(), other);
                }
                Err(_) => {
                    item.insert("report".into(), Value::String(s.report.clone()));
                }
            }
            Value::Object(item)
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&serde_json::json!({ "environments": items }))
        .expect("serializable");
    out.push('\n');
    crate::util::escape::json_text(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_environment_of_several_is_named_in_text_only() {
        let one = Section {
            name: "prod".into(),
            report: "{\"resource\": \"x\"}\n".into(),
        };
        assert_eq!(
            only_one(&one, 3),
            "== environment prod (the only one of 3 Karmada environments that holds it) ==\n{\"resource\": \"x\"}\n"
        );
        // JSON names it in a field first; one environment of one is the report as it is.
        assert_eq!(
            named_report("prod", &one.report),
            "{\n  \"environment\": \"prod\",\n  \"resource\": \"x\"\n}\n"
        );
        assert_eq!(render(true, std::slice::from_ref(&one)), one.report);
    }

    #[test]
    fn json_sections_put_the_name_first() {
        let s = [
            Section {
                name: "prod".into(),
                report: "{\"resource\": \"x\", \"a\": 1}\n".into(),
            },
            Section {
                name: "staging".into(),
                report: "{\"resource\": \"y\"}".into(),
            },
        ];
        let v: Value = serde_json::from_str(&json(&s)).unwrap();
        assert_eq!(v["environments"][0]["name"], "prod");
        assert_eq!(v["environments"][1]["resource"], "y");
        let first: Vec<&String> = v["environments"][0].as_object().unwrap().keys().collect();
        assert_eq!(first, ["name", "resource", "a"]);
        assert_eq!(
            text(&s[..1]),
            "== environment prod ==\n{\"resource\": \"x\", \"a\": 1}\n"
        );
    }

    #[test]
    fn text_says_a_report_several_environments_share_once() {
        let section = |name: &str, report: &str| Section {
            name: name.into(),
            report: report.into(),
        };
        let s = [
            section("app-a", "same\n"),
            section("prod", "other\n"),
            section("app-b", "same\n"),
        ];
        assert_eq!(
            text(&s),
            "== environments app-a, app-b (the same answer) ==\nsame\n\n== environment prod ==\nother\n"
        );
    }
}
