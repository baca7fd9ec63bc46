//! Kubernetes label selectors (`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`,
//! comma = AND), to select policies in files as `-l` selects them on the server.

#[derive(Clone, Debug, PartialEq, Eq)]
enum Req {
    Eq(String, String),
    Ne(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// A parsed selector; the empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector(Vec<Req>);

impl Selector {
    pub fn parse(s: &str) -> Result<Selector, String> {
        let mut reqs = Vec::new();
        for part in split_top(s) {
            let p = part.trim();
            if p.is_empty() {
                continue;
            }
            let bad = || format!("invalid label selector {s:?} at {p:?}");
            if let Some(k) = p.strip_prefix('!') {
                reqs.push(Req::NotExists(key(k.trim()).ok_or_else(bad)?));
            } else if let Some((k, v)) = p.split_once("!=") {
                reqs.push(Req::Ne(
                    key(k.trim()).ok_or_else(bad)?,
                    v.trim().to_string(),
                ));
            } else if let Some((k, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
                reqs.push(Req::Eq(
                    key(k.trim()).ok_or_else(bad)?,
                    v.trim().to_string(),
                ));
            } else if let Some((k, rest)) = split_word(p, " notin ") {
                reqs.push(Req::NotIn(
                    key(k).ok_or_else(bad)?,
                    set(rest).ok_or_else(bad)?,
                ));
            } else if let Some((k, rest)) = split_word(p, " in ") {
                reqs.push(Req::In(key(k).ok_or_else(bad)?, set(rest).ok_or_else(bad)?));
            } else {
                reqs.push(Req::Exists(key(p).ok_or_else(bad)?));
            }
        }
        Ok(Selector(reqs))
    }

    pub fn matches(&self, labels: &crate::model::StringMap) -> bool {
        self.0.iter().all(|r| match r {
            Req::Eq(k, v) => labels.get(k) == Some(v),
            Req::Ne(k, v) => labels.get(k) != Some(v),
            Req::In(k, vs) => labels.get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Req::NotIn(k, vs) => labels.get(k).is_none_or(|x| !vs.iter().any(|v| v == x)),
            Req::Exists(k) => labels.contains_key(k),
            Req::NotExists(k) => !labels.contains_key(k),
        })
    }
}

fn key(k: &str) -> Option<String> {
    let ok = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    ok.then(|| k.to_string())
}

fn split_word<'a>(p: &'a str, word: &str) -> Option<(&'a str, &'a str)> {
    let i = p.find(word)?;
    Some((p[..i].trim(), p[i + word.len()..].trim()))
}

fn set(s: &str) -> Option<Vec<String>> {
    let inner = s.strip_prefix('(')?.strip_suffix(')')?;
    Some(
        inner
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect(),
    )
}

/// Splits at commas outside parentheses.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> crate::model::StringMap {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn all_operators() {
        let l = labels(&[("app", "web"), ("tier", "front")]);
        for (sel, want) in [
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app in (web, api)", true),
            ("app notin (web)", false),
            ("tier", true),
            ("!tier", false),
            ("!missing", true),
            ("app=web,tier=back", false),
            ("app in (a,web),tier", true),
            ("", true),
        ] {
            assert_eq!(Selector::parse(sel).unwrap().matches(&l), want, "{sel}");
        }
        assert!(Selector::parse("a in b").is_err());
        assert!(Selector::parse("=x").is_err());
    }
}
