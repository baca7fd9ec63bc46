//! What an unknown field was probably meant to be, read from the CRD's own structural schema:
//! a close spelling among its parent's fields (`clusterAfinity` → `clusterAffinity`), else the
//! one place below the same top-level field where a field of exactly that name is defined (a
//! `clusterAffinity` written under `spec` belongs under `spec.placement`). The API server only
//! says `unknown field "spec.placement.clusterAfinity"`; the hint is ours.

use super::structural::Structural;
use crate::source::{FieldPath, Seg};

/// Two names this close (edit distance, case ignored) are taken for the same field misspelled.
const MAX_DISTANCE: usize = 2;

/// Where a field of that name is defined, when it is defined in so few places that naming them
/// helps (a name such as `name` or `namespace` sits in dozens).
const MAX_PLACES: usize = 2;

/// The hint for the unknown field `field` of an object whose schema is `root`: `did you mean
/// "spec.placement.clusterAffinity"?`, or `None` when nothing is close.
pub fn hint(root: &Structural, field: &FieldPath) -> Option<String> {
    let (Seg::Key(unknown), parent_path) = field.0.split_last()? else {
        return None;
    };
    let parent = at(root, parent_path)?;
    if let Some(near) = nearest_key(parent, unknown) {
        let mut meant = FieldPath(parent_path.to_vec());
        meant.0.push(Seg::Key(near.to_string()));
        return Some(format!("did you mean \"{meant}\"?"));
    }
    // Indented under the wrong parent: look for the name below the same top-level field.
    let Some(Seg::Key(top)) = field.0.first() else {
        return None;
    };
    let mut places = Vec::new();
    places_of(root.properties.get(top)?, unknown, top.clone(), &mut places);
    match places.as_slice() {
        [] => None,
        found if found.len() <= MAX_PLACES => {
            let quoted: Vec<String> = found.iter().map(|p| format!("\"{p}\"")).collect();
            Some(format!("did you mean {}?", quoted.join(" or ")))
        }
        _ => None,
    }
}

/// The schema at `path` below `root`: keys by their property (or `additionalProperties`'
/// schema), indexes by `items`.
pub(super) fn at<'s>(root: &'s Structural, path: &[Seg]) -> Option<&'s Structural> {
    path.iter().try_fold(root, |s, seg| match seg {
        Seg::Key(k) => s.properties.get(k.as_str()).or_else(|| {
            s.additional_properties
                .as_ref()
                .and_then(super::structural::AdditionalProperties::schema)
        }),
        Seg::Index(_) => s.items.as_deref(),
    })
}

/// The parent's property closest to `unknown`, if one is within [`MAX_DISTANCE`].
fn nearest_key<'s>(parent: &'s Structural, unknown: &str) -> Option<&'s str> {
    let lower = unknown.to_ascii_lowercase();
    parent
        .properties
        .keys()
        .map(|k| (strsim::levenshtein(&k.to_ascii_lowercase(), &lower), k))
        .filter(|(d, _)| *d <= MAX_DISTANCE)
        .min_by_key(|(d, k)| (*d, strsim::levenshtein(k, unknown)))
        .map(|(_, k)| k.as_str())
}

/// Every path below `schema` (written from `here`) whose object defines `name`; arrays'
/// elements as `[]`. Stops collecting once more than [`MAX_PLACES`] are found.
fn places_of(schema: &Structural, name: &str, here: String, out: &mut Vec<String>) {
    if out.len() > MAX_PLACES {
        return;
    }
    if schema.properties.contains_key(name) {
        out.push(format!("{here}.{name}"));
    }
    for (key, child) in &schema.properties {
        places_of(child, name, format!("{here}.{key}"), out);
    }
    if let Some(items) = schema.items.as_deref() {
        places_of(items, name, format!("{here}[]"), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KarmadaVersion;

    fn pp() -> &'static Structural {
        super::super::structural_schema("PropagationPolicy", KarmadaVersion::LATEST).unwrap()
    }

    #[test]
    fn a_misspelled_field_is_matched_among_its_parents_fields() {
        let said = hint(pp(), &FieldPath::parse("spec.placement.clusterAfinity"));
        assert_eq!(
            said.as_deref(),
            Some("did you mean \"spec.placement.clusterAffinity\"?")
        );
        let said = hint(pp(), &FieldPath::parse("spec.resourceSelectors[0].Kind"));
        assert_eq!(
            said.as_deref(),
            Some("did you mean \"spec.resourceSelectors[0].kind\"?")
        );
    }

    #[test]
    fn a_field_under_the_wrong_parent_is_pointed_to_its_place() {
        let said = hint(pp(), &FieldPath::parse("spec.clusterAffinity"));
        assert_eq!(
            said.as_deref(),
            Some("did you mean \"spec.placement.clusterAffinity\"?")
        );
        let said = hint(pp(), &FieldPath::parse("spec.replicaSchedulingType"));
        assert_eq!(
            said.as_deref(),
            Some("did you mean \"spec.placement.replicaScheduling.replicaSchedulingType\"?")
        );
    }

    #[test]
    fn nothing_close_and_names_defined_everywhere_get_no_hint() {
        assert_eq!(hint(pp(), &FieldPath::parse("spec.frobnicate")), None);
        // `key` is a field of many objects below spec (tolerations, label and field selectors'
        // expressions): naming them all would not help.
        assert_eq!(hint(pp(), &FieldPath::parse("spec.placement.key")), None);
    }
}
