//! What every check produces and every output format renders.

use std::sync::Arc;

use crate::model::ObjectRef;
use crate::source::{Source, Span};

pub use crate::source::Location;

pub use crate::model::severity::Severity;

#[derive(Clone, Debug)]
pub struct Related {
    pub location: Location,
    pub message: String,
}

/// One of the pairs a grouped finding stands for: `overlap` reports a policy once for every
/// policy that takes templates from it, and names each partner and every template here (JSON
/// `partners`), where the message names a few.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partner {
    /// The other policy.
    pub policy: ObjectRef,
    /// Why it wins, as the message says it.
    pub reason: String,
    /// Every template of the pair, in input order.
    pub templates: Vec<ObjectRef>,
}

#[derive(Clone, Debug)]
pub struct Finding {
    /// The stable rule id, e.g. `preemption-requires-name`.
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub location: Option<Location>,
    /// The field as Karmada reports it, e.g. `spec.resourceSelectors[0].name`.
    pub field: Option<String>,
    pub object: Option<ObjectRef>,
    pub related: Vec<Related>,
    /// The document the finding is about (index into the inventory), for inline suppressions.
    pub doc: Option<usize>,
    /// For an admission or schema finding: the whole message the API server returns for the
    /// object, as `kubectl apply` prints it (JSON `apiServerMessage`).
    pub api_server_message: Option<String>,
    /// For a finding that groups pairs (`overlap`): every partner (empty for any other).
    pub partners: Vec<Partner>,
    /// An admission or schema refusal of a stage after the first one that refuses the object:
    /// the API server reports it only once the object's first refusal is fixed (JSON
    /// `afterFix`). It never decides the exit code: the object's verdict is its first refusal.
    pub after_fix: bool,
    /// `lint --base`: a CRD schema error in a value an update leaves as stored, which the API
    /// server lets through (validation ratcheting): an existing problem of the stored object, not
    /// a refusal of the change (JSON `ratcheted`).
    pub ratcheted: bool,
}

impl Finding {
    pub fn new(rule: &'static str, severity: Severity, message: impl Into<String>) -> Finding {
        Finding {
            rule,
            severity,
            message: message.into(),
            location: None,
            field: None,
            object: None,
            related: Vec::new(),
            doc: None,
            api_server_message: None,
            partners: Vec::new(),
            after_fix: false,
            ratcheted: false,
        }
    }

    /// Marks the finding as found after the object's first refusal is fixed.
    pub fn after_fix(mut self) -> Finding {
        self.after_fix = true;
        self
    }

    pub fn api_server_message(mut self, message: Option<String>) -> Finding {
        self.api_server_message = message;
        self
    }

    pub fn at(mut self, source: &Arc<Source>, span: Span) -> Finding {
        self.location = Some(Location {
            source: source.clone(),
            span,
        });
        self
    }

    pub fn field(mut self, field: impl Into<String>) -> Finding {
        self.field = Some(field.into());
        self
    }

    pub fn object(mut self, object: ObjectRef) -> Finding {
        self.object = Some(object);
        self
    }

    pub fn related(
        mut self,
        source: &Arc<Source>,
        span: Span,
        message: impl Into<String>,
    ) -> Finding {
        self.related.push(Related {
            location: Location {
                source: source.clone(),
                span,
            },
            message: message.into(),
        });
        self
    }

    /// Sort key: file, then position, then rule, so output is stable.
    pub fn sort_key(&self) -> (&str, u32, u32, &'static str) {
        match &self.location {
            Some(l) => (
                l.source.name.as_str(),
                l.span.start.line,
                l.span.start.col,
                self.rule,
            ),
            None => ("", 0, 0, self.rule),
        }
    }
}
