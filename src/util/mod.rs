//! Helpers with no knowledge of Karmada or Kubernetes: the bottom layer every other module may use.

pub mod duration;
pub mod escape;
pub mod parallel;
pub mod profile;
pub mod time;

/// Prints `warning: TEXT` on stderr, kubectl's form (a closed stderr is ignored); control
/// characters from inputs in `text` are shown escaped.
pub fn warn(text: &str) {
    to_stderr("warning", text);
}

/// Prints `note: TEXT` on stderr, as [`warn`], once per run: `lint --base` reads both sides of
/// a repository and each says the same of a file the change does not touch.
pub fn note(text: &str) {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static SAID: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let said = SAID.get_or_init(|| Mutex::new(HashSet::new()));
    let first = said
        .lock()
        .map_or(true, |mut said| said.insert(text.to_string()));
    if first {
        to_stderr("note", text);
    }
}

/// The first of `items` and how many follow (`a.yaml:3:1 (and 2 more)`); `None` when there is
/// none: a message names one place or cause and counts the rest.
pub fn first_and_more(items: &[String]) -> Option<String> {
    let first = items.first()?;
    Some(match items.len() {
        1 => first.clone(),
        n => format!("{first} (and {} more)", n - 1),
    })
}

/// `LABEL: TEXT` on stderr, TEXT's control characters escaped (its own line breaks kept).
pub fn to_stderr(label: &str, text: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{label}: {}", escape::visible_lines(text));
}
