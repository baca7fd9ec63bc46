//! Karmada's admission chain for policies: CRD defaults, mutating webhooks, validating webhooks.
