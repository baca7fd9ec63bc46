//! JSON Schema validation of policy documents against `schemas/`.
