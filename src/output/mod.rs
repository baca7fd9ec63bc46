//! Renderers: text, JSON, SARIF and GitHub annotations over the same findings.
