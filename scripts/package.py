#!/usr/bin/env python3
"""Builds one release archive: the binary, LICENSE, README.md, completions/ and man/.

    scripts/package.py BINARY PLATFORM VERSION ASSETS_DIR OUT_DIR     (PLATFORM: linux-amd64, ...)

The workflow (.github/workflows/release.yml) and scripts/release.sh both call it, so archives
have one layout everywhere. Every file is required: a missing one fails the build instead of
shipping an archive without it (krew-index rejects archives without a license). Entries are
sorted, owned by 0:0, dated at the commit time (SOURCE_DATE_EPOCH) and have modes 0755 for the
binary and the completion shim, 0644 otherwise: reproducible and extractable by any user.
"""
import gzip
import io
import os
import sys
import tarfile
import zipfile
from pathlib import Path

EXECUTABLES = {"kubectl-karmada_policy", "kubectl-karmada_policy.exe", "completions/kubectl_complete-karmada_policy"}
COMPLETIONS = [
    "kubectl-karmada_policy.bash",
    "_kubectl-karmada_policy",
    "kubectl-karmada_policy.fish",
    "kubectl-karmada_policy.ps1",
    "kubectl_complete-karmada_policy",
]


def fail(message):
    print(f"package: {message}", file=sys.stderr)
    sys.exit(1)


def members(binary, root, assets):
    """(name in archive, path on disk), every one checked to exist."""
    exe = ".exe" if binary.name.endswith(".exe") else ""
    files = [(f"kubectl-karmada_policy{exe}", binary), ("LICENSE", root / "LICENSE"), ("README.md", root / "README.md")]
    files += [(f"completions/{name}", assets / "completions" / name) for name in COMPLETIONS]
    pages = sorted((assets / "man").glob("*.1")) if (assets / "man").is_dir() else []
    if not pages:
        fail(f"no man pages in {assets / 'man'} (scripts/release-assets.sh writes them)")
    files += [(f"man/{p.name}", p) for p in pages]
    missing = [str(path) for _, path in files if not path.is_file()]
    if missing:
        fail("missing files: " + ", ".join(missing))
    return sorted(files)


def write_tar(path, files, mtime):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, src in files:
            data = src.read_bytes()
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), mtime
            info.mode = 0o755 if name in EXECUTABLES else 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            tar.addfile(info, io.BytesIO(data))
    with open(path, "wb") as out, gzip.GzipFile(fileobj=out, mode="wb", mtime=mtime, filename="") as gz:
        gz.write(raw.getvalue())


def write_zip(path, files, mtime):
    import time

    stamp = time.gmtime(max(mtime, 315532800))[:6]  # zip dates start in 1980
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, src in files:
            info = zipfile.ZipInfo(name, stamp)
            info.external_attr = (0o100755 if name in EXECUTABLES else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, src.read_bytes())


def main():
    if len(sys.argv) != 6:
        fail(__doc__.strip().splitlines()[2].strip())
    binary, platform, version, assets, out = sys.argv[1:]
    if not version.startswith("v"):
        fail(f"version {version} must start with v (krew requires v-prefixed semver)")
    root = Path(__file__).resolve().parent.parent
    files = members(Path(binary), root, Path(assets))
    ext = "zip" if platform.startswith("windows-") else "tar.gz"
    Path(out).mkdir(parents=True, exist_ok=True)
    archive = Path(out) / f"kubectl-karmada_policy-{version}-{platform}.{ext}"
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    (write_zip if ext == "zip" else write_tar)(archive, files, mtime)
    os.chmod(archive, 0o644)
    print(archive)


if __name__ == "__main__":
    main()
