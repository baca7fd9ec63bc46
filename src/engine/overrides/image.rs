//! Image references as Karmada's `imageparser` reads and rewrites them (§A.8): the grammar of
//! distribution/reference without normalisation, Karmada's own registry split, and the
//! component operations (plain concatenation for `add`; a result that is not re-validated).

use std::sync::OnceLock;

use regex::Regex;

/// An image split as `imageparser.Components`: hostname, repository, tag or digest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    pub hostname: String,
    pub repository: String,
    pub tag: String,
    pub digest: String,
}

const COMPONENT: &str = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*";
const DOMAIN: &str = r"(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?";
const TAG: &str = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}";
const DIGEST: &str = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}";

fn reference_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(&format!(
            r"^((?:{DOMAIN}/)?{COMPONENT}(?:/{COMPONENT})*)(?::({TAG}))?(?:@({DIGEST}))?$"
        ))
        .expect("static regex")
    })
}

fn tag_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(&format!("^{TAG}$")).expect("static regex"))
}

fn digest_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(&format!("^{DIGEST}$")).expect("static regex"))
}

/// `reference.Parse`'s failure texts, for the cases a manifest meets.
fn parse_error(s: &str) -> &'static str {
    if s.is_empty() {
        "repository name must have at least one component"
    } else if s != s.to_ascii_lowercase() && reference_re().is_match(&s.to_ascii_lowercase()) {
        "repository name must be lowercase"
    } else {
        "invalid reference format"
    }
}

impl Image {
    /// `imageparser.Parse`: for `name:tag@digest` only the tag is kept (§A.8).
    pub fn parse(s: &str) -> Result<Image, String> {
        let caps = reference_re().captures(s).filter(|c| c[1].len() <= 255);
        let Some(caps) = caps else {
            return Err(format!(
                "failed to parse image value({s}), error: {}",
                parse_error(s)
            ));
        };
        let name = &caps[1];
        let (hostname, repository) = match name.split_once('/') {
            Some((first, rest))
                if first.contains('.') || first.contains(':') || first == "localhost" =>
            {
                (first.to_string(), rest.to_string())
            }
            _ => (String::new(), name.to_string()),
        };
        let tag = caps.get(2).map_or("", |m| m.as_str()).to_string();
        let digest = if tag.is_empty() {
            caps.get(3).map_or("", |m| m.as_str()).to_string()
        } else {
            String::new()
        };
        Ok(Image {
            hostname,
            repository,
            tag,
            digest,
        })
    }

    fn tag_or_digest(&self) -> &str {
        if self.tag.is_empty() {
            &self.digest
        } else {
            &self.tag
        }
    }

    /// `SetTagOrDigest`: a tag, else a digest, else nothing changes.
    fn set_tag_or_digest(&mut self, s: &str) {
        if tag_re().is_match(s) {
            self.tag = s.to_string();
            self.digest.clear();
        } else if digest_re().is_match(s) {
            self.digest = s.to_string();
            self.tag.clear();
        }
    }

    /// One component operation (`imageoverride.go:182-212`).
    pub fn apply(&mut self, component: &str, operator: &str, value: &str) {
        match (component, operator) {
            ("Registry", "add") => self.hostname.push_str(value),
            ("Registry", "replace") => self.hostname = value.to_string(),
            ("Registry", "remove") => self.hostname.clear(),
            ("Repository", "add") => self.repository.push_str(value),
            ("Repository", "replace") => self.repository = value.to_string(),
            ("Repository", "remove") => self.repository.clear(),
            ("Tag", "add") => {
                let joined = format!("{}{value}", self.tag_or_digest());
                self.set_tag_or_digest(&joined);
            }
            ("Tag", "replace") => self.set_tag_or_digest(value),
            ("Tag", "remove") => {
                if self.tag.is_empty() {
                    self.digest.clear();
                } else {
                    self.tag.clear();
                }
            }
            _ => {}
        }
    }
}

impl std::fmt::Display for Image {
    /// `hostname/repository` (no `/` without a hostname), then `:tag` or `@digest`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.hostname.is_empty() {
            write!(f, "{}/", self.hostname)?;
        }
        f.write_str(&self.repository)?;
        if !self.tag.is_empty() {
            write!(f, ":{}", self.tag)
        } else if !self.digest.is_empty() {
            write!(f, "@{}", self.digest)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(image: &str, component: &str, op: &str, value: &str) -> String {
        let mut i = Image::parse(image).unwrap();
        i.apply(component, op, value);
        i.to_string()
    }

    /// Example 4 (run against Karmada's parser).
    #[test]
    fn component_operations_as_karmada() {
        let a = "a".repeat(64);
        let sha = format!("sha256:{a}");
        assert_eq!(
            over("nginx:1.19", "Registry", "add", "reg.io"),
            "reg.io/nginx:1.19"
        );
        assert_eq!(
            over(
                &format!("docker.io/library/redis@{sha}"),
                "Registry",
                "add",
                "reg.io"
            ),
            format!("docker.ioreg.io/library/redis@{sha}")
        );
        assert_eq!(
            over(&format!("quay.io/org/app:v1@{sha}"), "Tag", "replace", ""),
            "quay.io/org/app:v1",
            "the digest is lost, an empty tag is a no-op"
        );
        assert_eq!(
            over("nginx:1.19", "Tag", "replace", &sha),
            format!("nginx@{sha}")
        );
        assert_eq!(over("nginx:1.19", "Tag", "add", ".1"), "nginx:1.19.1");
        assert_eq!(over("localhost:5000/app", "Registry", "remove", ""), "app");
        assert_eq!(
            over("quay.io/org/app:v1", "Repository", "remove", ""),
            "quay.io/:v1"
        );
        assert_eq!(
            over("library/nginx", "Registry", "replace", "r.io"),
            "r.io/library/nginx"
        );
    }

    #[test]
    fn parse_failures_use_the_reference_texts() {
        assert_eq!(
            Image::parse("").unwrap_err(),
            "failed to parse image value(), error: repository name must have at least one component"
        );
        assert_eq!(
            Image::parse("Nginx").unwrap_err(),
            "failed to parse image value(Nginx), error: repository name must be lowercase"
        );
        assert_eq!(
            Image::parse("quay.io/:v1").unwrap_err(),
            "failed to parse image value(quay.io/:v1), error: invalid reference format"
        );
    }
}
