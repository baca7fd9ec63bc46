#!/usr/bin/env python3
"""Writes schemas/*.schema.json from Karmada's policy CRDs (../shared/karmada/crds).

Usage: python3 scripts/gen-schemas.py [CRD_DIR] [OUT_DIR]
Defaults: ../shared/karmada/crds and schemas/, relative to the crate root.

       python3 scripts/gen-schemas.py --git KARMADA_CLONE TAG OUT_DIR [KIND...]
reads the CRDs of release TAG (e.g. v1.17.0) from a clone of karmada-io/karmada with `git show`;
this is how schemas/v1.XX/ (one directory per release before the newest) are made:
    for m in 10 11 12 13 14 15 16 17 18; do
        python3 scripts/gen-schemas.py --git ~/src/karmada v1.$m.0 schemas/v1.$m; done
KIND... limits the output to those kinds. ClusterTaintPolicy (served from v1.14.0) is written
when its CRD is there and skipped otherwise (releases before 1.14, and ../shared/karmada/crds,
which does not hold it): the newest release's is made from the tag with
    python3 scripts/gen-schemas.py --git ~/src/karmada v1.19.0-rc.0 schemas ClusterTaintPolicy

A CRD `openAPIV3Schema` is not a JSON Schema the `jsonschema` crate reads the way the API server
does (see ../shared/notes/dependencies.md section 4), so it is converted:

* `nullable: true`                      -> `type: [T, "null"]`
* `x-kubernetes-int-or-string: true`    -> `anyOf: [{type: integer}, {type: string}]`
* `format: int32` / `int64`             -> `minimum`/`maximum` of that range (jsonschema ignores
                                            formats it does not know)
* every object                          -> `additionalProperties: false` (the API server's strict
                                            field validation, kubectl's default since 1.27), except
                                            where pruning keeps unknown fields: under
                                            `x-kubernetes-preserve-unknown-fields: true`, and in the
                                            items of such an array, through nested arrays
                                            (apiextensions-apiserver pkg/apiserver/schema/pruning/
                                            algorithm.go, `skipPrune`)
* `x-kubernetes-embedded-resource: true` -> also `apiVersion`/`kind` strings and ObjectMeta
                                            `metadata`, which pruning never removes there
* `x-kubernetes-preserve-unknown-fields`, `x-kubernetes-embedded-resource` and
  `x-kubernetes-int-or-string` are kept as they are: JSON Schema ignores them, and `src/schema`
  prunes by them the way the API server does (unknown fields, for strict field validation)
* `metadata` (just `type: object` in the CRD) -> the fields of ObjectMeta, with labels and
                                            annotations as string maps and name/namespace strings
* `description` and the `x-kubernetes-list-type`/`map-type` markers are dropped: they validate
  nothing (every list and map in the policy CRDs is `atomic`). `default` is kept: JSON Schema
  ignores it, and `src/schema` applies it the way the API server's structural defaulting does.

The output is checked in and embedded in the binary; tests/schema.rs compares it with the CRDs so
a new CRD (a new Karmada release) that is not regenerated fails the build's tests.
"""

import json
import os
import sys

import yaml

KINDS = {
    "PropagationPolicy": "policy.karmada.io_propagationpolicies.yaml",
    "ClusterPropagationPolicy": "policy.karmada.io_clusterpropagationpolicies.yaml",
    "OverridePolicy": "policy.karmada.io_overridepolicies.yaml",
    "ClusterOverridePolicy": "policy.karmada.io_clusteroverridepolicies.yaml",
    "ClusterTaintPolicy": "policy.karmada.io_clustertaintpolicies.yaml",
}

# Kinds a release may not have: skipped when their CRD is missing (ClusterTaintPolicy: v1.14.0).
OPTIONAL = {"ClusterTaintPolicy"}

INT_RANGES = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}

DROPPED = {
    "description",
    "example",
    "externalDocs",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
}

# The structural-schema markers the pruning in src/schema/structural.rs reads.
MARKERS = (
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
)


def string_map():
    return {"type": "object", "additionalProperties": {"type": "string"}}


def object_meta():
    """ObjectMeta as the API server decodes it (k8s.io/apimachinery/pkg/apis/meta/v1/types.go)."""
    loose_object = {"type": "object"}
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string"},
            "generateName": {"type": "string"},
            "namespace": {"type": "string"},
            "selfLink": {"type": "string"},
            "uid": {"type": "string"},
            "resourceVersion": {"type": "string"},
            "generation": {"type": "integer"},
            "creationTimestamp": {"type": ["string", "null"]},
            "deletionTimestamp": {"type": ["string", "null"]},
            "deletionGracePeriodSeconds": {"type": "integer"},
            "labels": string_map(),
            "annotations": string_map(),
            "ownerReferences": {"type": "array", "items": loose_object},
            "finalizers": {"type": "array", "items": {"type": "string"}},
            "managedFields": {"type": "array", "items": loose_object},
        },
    }


def convert(node, path, kept=False):
    """`kept`: the node is reached through an array under x-kubernetes-preserve-unknown-fields,
    where pruning keeps an object's unknown fields (`skipPrune` recurses into `items`)."""
    if not isinstance(node, dict):
        raise SystemExit(f"{path}: schema node is not a mapping")
    out = {}
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    embedded = node.get("x-kubernetes-embedded-resource") is True
    for key, value in node.items():
        if key in DROPPED or key.startswith("x-kubernetes-validations"):
            continue
        if key in MARKERS:
            if value is True:
                out[key] = True
            continue
        if key == "nullable":
            continue
        if key == "properties":
            out["properties"] = {
                name: object_meta() if path == "" and name == "metadata" else convert(sub, f"{path}.{name}")
                for name, sub in value.items()
            }
        elif key == "items":
            out["items"] = convert(value, f"{path}[]", kept=preserve or kept)
        elif key == "additionalProperties":
            out["additionalProperties"] = value if isinstance(value, bool) else convert(value, f"{path}{{}}")
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [convert(v, path) for v in value]
        elif key == "not":
            out[key] = convert(value, path)
        elif key == "format":
            if value in INT_RANGES:
                lo, hi = INT_RANGES[value]
                out["minimum"] = max(lo, node.get("minimum", lo))
                out["maximum"] = min(hi, node.get("maximum", hi))
            # other formats (date-time, byte, ...) are not in the policy CRDs; drop rather than guess
        elif key in ("minimum", "maximum"):
            out.setdefault(key, value)
        elif key in ("type", "enum", "required", "default", "minItems", "maxItems", "minLength", "maxLength",
                     "pattern", "minProperties", "maxProperties", "exclusiveMinimum", "exclusiveMaximum",
                     "multipleOf", "uniqueItems"):
            out[key] = value
        else:
            raise SystemExit(f"{path}: CRD keyword `{key}` is not handled by this converter")
    if node.get("x-kubernetes-int-or-string") is True:
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if node.get("nullable") is True and "type" in out:
        out["type"] = [out["type"], "null"]
    if embedded and not preserve:
        # Pruning skips apiVersion, kind and metadata of an embedded resource; the ObjectMeta
        # coercion checks the metadata (schema/objectmeta/algorithm.go).
        props = out.setdefault("properties", {})
        props.setdefault("apiVersion", {"type": "string"})
        props.setdefault("kind", {"type": "string"})
        props.setdefault("metadata", object_meta())
    is_object = node.get("type") == "object"
    if is_object and not preserve and not kept and "additionalProperties" not in node:
        # An object with no listed fields and no additionalProperties would have everything
        # pruned by the API server; with strict validation every field is unknown.
        out["additionalProperties"] = False
    return out


def crds_from_git(clone, tag):
    """The policy CRDs of `tag`, written to a temporary directory with a SOURCE.txt."""
    import subprocess
    import tempfile

    out = tempfile.mkdtemp(prefix=f"karmada-crds-{tag}-")
    commit = subprocess.check_output(["git", "-C", clone, "rev-list", "-n1", tag], text=True).strip()
    with open(os.path.join(out, "SOURCE.txt"), "w") as f:
        f.write(f"Source repository: https://github.com/karmada-io/karmada\nTag: {tag}\nCommit: {commit}\n")
    for kind, file_name in KINDS.items():
        shown = subprocess.run(
            ["git", "-C", clone, "show", f"{tag}:charts/karmada/_crds/bases/policy/{file_name}"],
            text=True,
            capture_output=True,
        )
        if shown.returncode != 0:
            if kind in OPTIONAL:
                continue
            raise SystemExit(f"{tag}: {file_name}: {shown.stderr.strip()}")
        text = shown.stdout
        with open(os.path.join(out, file_name), "w") as f:
            f.write(text)
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    only = None
    if len(sys.argv) >= 5 and sys.argv[1] == "--git":
        crd_dir, out_dir = crds_from_git(sys.argv[2], sys.argv[3]), sys.argv[4]
        only = set(sys.argv[5:]) or None
        if only and not only <= set(KINDS):
            raise SystemExit(f"unknown kinds: {', '.join(sorted(only - set(KINDS)))}")
    else:
        crd_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "..", "shared", "karmada", "crds")
        out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "schemas")
    os.makedirs(out_dir, exist_ok=True)
    source = ""
    source_file = os.path.join(crd_dir, "SOURCE.txt")
    if os.path.exists(source_file):
        for line in open(source_file):
            if line.startswith("Commit:"):
                source = line.split(":", 1)[1].strip() + source
            if line.startswith("Tag:"):
                source += ", tag " + line.split(":", 1)[1].strip()
    for kind, file_name in KINDS.items():
        if only is not None and kind not in only:
            continue
        if kind in OPTIONAL and not os.path.exists(os.path.join(crd_dir, file_name)):
            print(f"skipped {kind}: {file_name} is not in {crd_dir}")
            continue
        with open(os.path.join(crd_dir, file_name)) as f:
            crd = yaml.safe_load(f)
        if crd["spec"]["names"]["kind"] != kind:
            raise SystemExit(f"{file_name}: kind {crd['spec']['names']['kind']}, expected {kind}")
        versions = [v for v in crd["spec"]["versions"] if v.get("served") and v.get("storage")]
        if len(versions) != 1:
            raise SystemExit(f"{file_name}: expected one served storage version")
        version = versions[0]
        schema = convert(version["schema"]["openAPIV3Schema"], "")
        doc = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$comment": (
                f"Generated by scripts/gen-schemas.py from karmada-io/karmada charts/karmada/_crds/bases/policy/"
                f"{file_name} (commit {source or 'unknown'}). Do not edit: regenerate."
            ),
            "title": f"{kind} ({crd['spec']['group']}/{version['name']})",
        }
        doc.update(schema)
        out = os.path.join(out_dir, f"{kind}.schema.json")
        with open(out, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {os.path.relpath(out, root)}")


if __name__ == "__main__":
    main()
