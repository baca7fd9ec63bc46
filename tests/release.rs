//! Release artefacts (issue 20): the archive layout of scripts/package.py, the krew manifest
//! rendered from krew-manifest.yaml checked rule by rule as krew-index's `validate-krew-manifest` does,
//! and the Linux x86_64 archive that `scripts/release.sh` builds (glibc 2.17, static zlib).
//!
//! Tests that need a tool or an artefact print `SKIPPED: <reason>` on the real stderr (visible
//! without --nocapture); `.ci/run` installs the tools and builds the archive first.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as J;

const PLUGIN: &str = "karmada-policy";
const BIN: &str = "kubectl-karmada_policy";
/// Every platform the release workflow builds, as krew's os/arch labels.
const PLATFORMS: [(&str, &str); 5] = [
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
];
/// Platforms krew knows (its Go GOOS/GOARCH pairs): a selector must match at most one.
const KNOWN_PLATFORMS: [(&str, &str); 9] = [
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("linux", "arm"),
    ("linux", "386"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
    ("windows", "386"),
    ("windows", "arm64"),
];
/// Shared libraries a binary for old distributions may need: glibc's own and libgcc_s.
const ALLOWED_NEEDED: [&str; 6] = [
    "libc.so.6",
    "libm.so.6",
    "libpthread.so.0",
    "libdl.so.2",
    "libgcc_s.so.1",
    "ld-linux-x86-64.so.2",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A visible skip: the test harness captures `eprintln!`, not writes to the stderr handle.
fn skip(reason: &str) {
    let _ = writeln!(std::io::stderr(), "\nSKIPPED: {reason}");
}

fn have(tool: &str, arg: &str) -> bool {
    Command::new(tool)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn version_tag() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

fn archive_name(os: &str, arch: &str) -> String {
    let ext = if os == "windows" { "zip" } else { "tar.gz" };
    format!("{BIN}-{}-{os}-{arch}.{ext}", version_tag())
}

fn parse_yaml(name: &str, text: &str) -> J {
    let loaded =
        karmada_policy::source::load(karmada_policy::source::Source::new(name, text.to_string()));
    assert!(loaded.problems.is_empty(), "{name}: {:?}", loaded.problems);
    loaded.documents[0].root.to_json()
}

/// Renders krew-manifest.yaml with scripts/render-krew.py for the given SHA256SUMS text.
fn render(sums: &str, require_all: bool) -> Result<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let sums_path = dir.path().join("SHA256SUMS");
    std::fs::write(&sums_path, sums).unwrap();
    let mut cmd = Command::new("python3");
    cmd.arg(root().join("scripts/render-krew.py"))
        .args(["--tag", &version_tag(), "--sums"])
        .arg(&sums_path);
    if require_all {
        cmd.arg("--require-all");
    }
    let o = cmd.arg(root().join("krew-manifest.yaml")).output().unwrap();
    if o.status.success() {
        Ok(String::from_utf8(o.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// A SHA256SUMS line for every platform's archive, with made-up digests.
fn fake_sums() -> String {
    PLATFORMS
        .iter()
        .enumerate()
        .map(|(i, (os, arch))| {
            format!(
                "{}  {}\n",
                format!("{i:x}").repeat(64),
                archive_name(os, arch)
            )
        })
        .collect()
}

/// The rendered manifest for all platforms, or None (skipped) without python3.
fn manifest() -> Option<J> {
    if !have("python3", "--version") {
        skip("python3 is not installed (scripts/render-krew.py renders the krew manifest)");
        return None;
    }
    let text = render(&fake_sums(), true).expect("render krew-manifest.yaml");
    Some(parse_yaml("karmada-policy.yaml", &text))
}

fn platforms(m: &J) -> &Vec<J> {
    m["spec"]["platforms"].as_array().expect("spec.platforms")
}

fn is_semver_with_v(v: &str) -> bool {
    let Some(rest) = v.strip_prefix('v') else {
        return false;
    };
    let core = rest.split(['-', '+']).next().unwrap();
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
}

#[test]
fn krew_manifest_is_a_plugin_named_after_its_file() {
    let Some(m) = manifest() else { return };
    assert_eq!(
        m["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(m["kind"], "Plugin");
    assert_eq!(m["metadata"]["name"], PLUGIN);
    assert!(PLUGIN
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
    // krew-index requires plugins/<name>.yaml: both producers write that file name.
    for producer in ["scripts/release.sh", ".github/workflows/release.yml"] {
        let text = std::fs::read_to_string(root().join(producer)).unwrap();
        assert!(
            text.contains(&format!("dist/{PLUGIN}.yaml")),
            "{producer} does not write dist/{PLUGIN}.yaml"
        );
    }
    let short = m["spec"]["shortDescription"].as_str().unwrap();
    assert!(
        !short.is_empty() && short.len() < 50,
        "shortDescription is {} characters",
        short.len()
    );
    assert!(m["spec"]["homepage"]
        .as_str()
        .unwrap()
        .starts_with("https://"));
}

/// The template is `krew-manifest.yaml` at the top level; the release workflow renders that
/// file and hands the same path to krew-release-bot (whose default, `.krew.yaml`, is gone).
#[test]
fn the_release_workflow_names_the_krew_template_to_the_bot() {
    assert!(root().join("krew-manifest.yaml").is_file());
    assert!(!root().join(".krew.yaml").exists());
    let text = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    let workflow = parse_yaml("release.yml", &text);
    let steps = workflow["jobs"]["publish"]["steps"].as_array().unwrap();
    let bot = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("rajatjindal/krew-release-bot@"))
        })
        .expect("a krew-release-bot step");
    assert_eq!(bot["with"]["krew_template_file"], "krew-manifest.yaml");
    let render = steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .find(|r| r.contains("scripts/render-krew.py"))
        .expect("a render step");
    assert!(render.contains(" krew-manifest.yaml "), "{render}");
}

#[test]
fn krew_manifest_version_is_v_prefixed_semver_of_the_crate() {
    let Some(m) = manifest() else { return };
    let version = m["spec"]["version"].as_str().unwrap();
    assert!(is_semver_with_v(version), "{version}");
    assert_eq!(version, version_tag());
    assert!(is_semver_with_v("v1.2.3-rc.1") && !is_semver_with_v("1.2.3"));
    assert!(!is_semver_with_v("v1.2") && !is_semver_with_v("v01.2.3"));
}

#[test]
fn krew_manifest_sha256_is_lowercase_hex_and_uri_names_the_release() {
    let Some(m) = manifest() else { return };
    for p in platforms(&m) {
        let exe = if p["selector"]["matchLabels"]["os"] == "windows" {
            ".exe"
        } else {
            ""
        };
        assert_eq!(p["bin"], format!("{BIN}{exe}"));
        let sha = p["sha256"].as_str().unwrap();
        assert!(
            sha.len() == 64
                && sha
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "sha256 {sha}"
        );
        let uri = p["uri"].as_str().unwrap();
        assert!(uri.starts_with("https://github.com/"), "{uri}");
        assert!(
            uri.contains(&format!("/releases/download/{}/", version_tag())),
            "{uri}"
        );
    }
    // Digests are lowercased whatever sha256 tool wrote the sums.
    let upper: String = fake_sums()
        .lines()
        .map(|l| {
            let (digest, name) = l.split_once("  ").unwrap();
            format!("{}  {name}\n", digest.to_uppercase())
        })
        .collect();
    let text = render(&upper, true).unwrap();
    assert!(!text.contains("AAAA"), "{text}");
    // A platform without an archive is an error when every platform must be there.
    let partial: String = fake_sums()
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect();
    let err = render(&partial, true).unwrap_err();
    assert!(err.contains("no digest for"), "{err}");
}

#[test]
fn krew_selectors_use_only_os_and_arch_and_match_one_platform_each() {
    let Some(m) = manifest() else { return };
    let mut labels = Vec::new();
    for p in platforms(&m) {
        let selector = p["selector"].as_object().unwrap();
        assert_eq!(
            selector.keys().collect::<Vec<_>>(),
            ["matchLabels"],
            "selector uses more than matchLabels"
        );
        let ml = selector["matchLabels"].as_object().unwrap();
        let keys: BTreeSet<&str> = ml.keys().map(String::as_str).collect();
        assert_eq!(keys, BTreeSet::from(["arch", "os"]));
        labels.push((
            ml["os"].as_str().unwrap().to_string(),
            ml["arch"].as_str().unwrap().to_string(),
        ));
    }
    for (os, arch) in KNOWN_PLATFORMS {
        let matching = labels.iter().filter(|(o, a)| o == os && a == arch).count();
        assert!(
            matching <= 1,
            "{os}/{arch} is matched by {matching} platforms"
        );
    }
    let built: BTreeSet<(String, String)> = PLATFORMS
        .iter()
        .map(|(o, a)| (o.to_string(), a.to_string()))
        .collect();
    assert_eq!(labels.iter().cloned().collect::<BTreeSet<_>>(), built);
    assert_eq!(labels.len(), PLATFORMS.len());
}

/// Fake release assets: what scripts/release-assets.sh writes, with placeholder contents.
fn fake_assets(dir: &Path) -> PathBuf {
    let assets = dir.join("assets");
    std::fs::create_dir_all(assets.join("completions")).unwrap();
    std::fs::create_dir_all(assets.join("man")).unwrap();
    for name in [
        "kubectl-karmada_policy.bash",
        "_kubectl-karmada_policy",
        "kubectl-karmada_policy.fish",
        "kubectl-karmada_policy.ps1",
        "kubectl_complete-karmada_policy",
    ] {
        std::fs::write(assets.join("completions").join(name), "# completion\n").unwrap();
    }
    std::fs::write(
        assets.join("man").join("kubectl-karmada_policy.1"),
        ".TH x 1\n",
    )
    .unwrap();
    assets
}

fn package(binary: &Path, platform: &str, assets: &Path, out: &Path) -> std::process::Output {
    Command::new("python3")
        .arg(root().join("scripts/package.py"))
        .arg(binary)
        .args([platform, &version_tag()])
        .arg(assets)
        .arg(out)
        .output()
        .unwrap()
}

/// Extracts an archive with the system tools (as krew would unpack it) into `dest`.
fn extract(archive: &Path, dest: &Path) {
    std::fs::create_dir_all(dest).unwrap();
    let ok = if archive.extension().is_some_and(|e| e == "zip") {
        Command::new("unzip")
            .args(["-q", "-o"])
            .arg(archive)
            .arg("-d")
            .arg(dest)
            .status()
    } else {
        Command::new("tar")
            .arg("-xzf")
            .arg(archive)
            .arg("-C")
            .arg(dest)
            .status()
    };
    assert!(ok.unwrap().success(), "extracting {}", archive.display());
}

/// Applies a platform's `files` (from → to) as krew's installer does, into `install`.
fn install_files(platform: &J, unpacked: &Path, install: &Path) {
    std::fs::create_dir_all(install).unwrap();
    for f in platform["files"].as_array().expect("files") {
        let from = f["from"].as_str().unwrap();
        let to = f["to"].as_str().unwrap();
        assert_eq!(to, ".", "files are installed at the plugin's root");
        let src = unpacked.join(from);
        assert!(src.is_file(), "{from} is not in the archive");
        std::fs::copy(&src, install.join(from)).unwrap();
    }
}

#[test]
fn every_krew_platform_installs_its_binary_and_license() {
    let Some(m) = manifest() else { return };
    if !have("unzip", "-v") {
        skip("unzip is not installed (the Windows archive is a zip)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let assets = fake_assets(dir.path());
    for p in platforms(&m) {
        let os = p["selector"]["matchLabels"]["os"].as_str().unwrap();
        let arch = p["selector"]["matchLabels"]["arch"].as_str().unwrap();
        let bin_name = p["bin"].as_str().unwrap();
        let binary = dir.path().join(bin_name);
        std::fs::write(&binary, "#!/bin/sh\n").unwrap();
        let out = dir.path().join("dist");
        let o = package(&binary, &format!("{os}-{arch}"), &assets, &out);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let archive = out.join(archive_name(os, arch));
        assert!(p["uri"]
            .as_str()
            .unwrap()
            .ends_with(&archive_name(os, arch)));
        let unpacked = dir.path().join(format!("unpacked-{os}-{arch}"));
        extract(&archive, &unpacked);
        let install = dir.path().join(format!("install-{os}-{arch}"));
        install_files(p, &unpacked, &install);
        assert!(
            install.join(bin_name).is_file(),
            "{os}/{arch}: bin {bin_name} not installed"
        );
        // krew-index: a license file must be among the installed files.
        let licensed = std::fs::read_dir(&install).unwrap().any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .to_lowercase()
                .contains("license")
        });
        assert!(licensed, "{os}/{arch}: no license file is installed");
    }
}

#[test]
fn package_fails_loudly_on_a_missing_file_and_writes_sane_modes() {
    if !have("python3", "--version") {
        skip("python3 is not installed (scripts/package.py builds the archives)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let assets = fake_assets(dir.path());
    let binary = dir.path().join(BIN);
    std::fs::write(&binary, "#!/bin/sh\n").unwrap();
    let out = dir.path().join("dist");
    std::fs::remove_file(assets.join("completions/kubectl-karmada_policy.fish")).unwrap();
    let o = package(&binary, "linux-amd64", &assets, &out);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("missing files") && err.contains("kubectl-karmada_policy.fish"),
        "{err}"
    );
    assert!(!out.join(archive_name("linux", "amd64")).exists());

    std::fs::write(
        assets.join("completions/kubectl-karmada_policy.fish"),
        "#\n",
    )
    .unwrap();
    let o = package(&binary, "linux-amd64", &assets, &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let listing = Command::new("tar")
        .arg("-tvzf")
        .arg(out.join(archive_name("linux", "amd64")))
        .output()
        .unwrap();
    let listing = String::from_utf8(listing.stdout).unwrap();
    for line in listing.lines() {
        let name = line.rsplit(' ').next().unwrap();
        let executable = name == BIN || name == "completions/kubectl_complete-karmada_policy";
        let want = if executable {
            "-rwxr-xr-x"
        } else {
            "-rw-r--r--"
        };
        assert!(line.starts_with(want), "{line}");
        assert!(line.contains("root/root"), "{line}");
    }
    assert!(
        listing.contains(" LICENSE\n") && listing.contains(" README.md\n"),
        "{listing}"
    );
}

/// The archive `scripts/release.sh` leaves in dist/ for this machine's Linux x86_64 build.
fn release_archive() -> Option<PathBuf> {
    let path = root().join("dist").join(archive_name("linux", "amd64"));
    if path.is_file() {
        Some(path)
    } else {
        skip(&format!(
            "{} is not built (run `scripts/release.sh`)",
            path.display()
        ));
        None
    }
}

/// `readelf` output for the binary, or None (skipped) without binutils.
fn readelf(args: &[&str], binary: &Path) -> Option<String> {
    let o = Command::new("readelf").args(args).arg(binary).output();
    match o {
        Ok(o) if o.status.success() => Some(String::from_utf8(o.stdout).unwrap()),
        _ => {
            skip("readelf (binutils) is not installed");
            None
        }
    }
}

/// The highest `GLIBC_x.y` version among the binary's required symbol versions.
fn highest_glibc(versions: &str) -> (u32, u32) {
    versions
        .split(|c: char| c.is_whitespace())
        .filter_map(|w| w.strip_prefix("GLIBC_"))
        .filter_map(|v| {
            let mut it = v.split('.').map(|n| n.parse::<u32>().ok());
            Some((it.next()??, it.next().flatten().unwrap_or(0)))
        })
        .max()
        .unwrap_or((0, 0))
}

#[test]
fn release_archive_runs_on_glibc_2_17_and_needs_only_libc() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        skip("the glibc-2.17 archive is checked on Linux x86_64 only");
        return;
    }
    let Some(archive) = release_archive() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    extract(&archive, dir.path());
    assert!(
        dir.path().join("LICENSE").is_file(),
        "the archive has no LICENSE"
    );
    let binary = dir.path().join(BIN);
    let Some(versions) = readelf(&["--version-info", "--wide"], &binary) else {
        return;
    };
    let (major, minor) = highest_glibc(&versions);
    let _ = writeln!(
        std::io::stderr(),
        "release binary: highest required symbol version GLIBC_{major}.{minor}"
    );
    assert!((major, minor) <= (2, 17), "needs GLIBC_{major}.{minor}");
    let Some(dynamic) = readelf(&["--dynamic", "--wide"], &binary) else {
        return;
    };
    let needed: Vec<&str> = dynamic
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split('[').nth(1)?.split(']').next())
        .collect();
    let _ = writeln!(std::io::stderr(), "release binary: NEEDED {needed:?}");
    for lib in &needed {
        assert!(
            ALLOWED_NEEDED.contains(lib),
            "unexpected dynamic dependency {lib}"
        );
    }
    let o = Command::new(&binary).arg("--version").output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn highest_glibc_reads_readelf_version_needs() {
    let sample = "  0x0010:   Name: GLIBC_2.3.4  Flags: none  Version: 5\n  0x0020:   Name: GLIBC_2.17  Flags: none\n  Name: GLIBC_2.2.5\n";
    assert_eq!(highest_glibc(sample), (2, 17));
    assert_eq!(highest_glibc(""), (0, 0));
}

#[test]
fn release_manifest_in_dist_matches_the_built_archive() {
    let Some(archive) = release_archive() else {
        return;
    };
    let text = std::fs::read_to_string(root().join("dist").join(format!("{PLUGIN}.yaml")))
        .expect("scripts/release.sh writes dist/karmada-policy.yaml");
    let m = parse_yaml("karmada-policy.yaml", &text);
    let sums = std::fs::read_to_string(root().join("dist/SHA256SUMS")).unwrap();
    let name = archive.file_name().unwrap().to_str().unwrap();
    let digest = sums
        .lines()
        .find(|l| l.ends_with(name))
        .and_then(|l| l.split_whitespace().next())
        .expect("the archive is in SHA256SUMS");
    let linux = platforms(&m)
        .iter()
        .find(|p| p["uri"].as_str().unwrap().ends_with(name))
        .expect("a platform for the archive");
    assert_eq!(linux["sha256"], digest);
    // The real krew, where it is installed: `kubectl krew install --manifest --archive`.
    if !have("kubectl-krew", "version") {
        skip("krew is not installed: the krew rules are checked one by one above");
        return;
    }
    let krew_root = tempfile::tempdir().unwrap();
    let o = Command::new("kubectl-krew")
        .args(["install", "--manifest"])
        .arg(root().join("dist").join(format!("{PLUGIN}.yaml")))
        .arg("--archive")
        .arg(&archive)
        .env("KREW_ROOT", krew_root.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn dockerfile_runs_a_static_binary_as_non_root_on_a_minimal_base() {
    let text = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let from: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("FROM "))
        .collect();
    let last = from.last().expect("a FROM line");
    assert!(
        last.starts_with("gcr.io/distroless/static") || last.starts_with("scratch"),
        "final stage is {last}"
    );
    assert!(
        text.contains("+crt-static"),
        "the binary is not linked statically"
    );
    let user = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("a USER line");
    assert!(
        !user.starts_with("0") && !user.starts_with("root"),
        "USER {user}"
    );
    assert!(text.contains("COPY LICENSE"));
}

/// The Action's metadata: the inputs the README's workflow passes exist, the binary is
/// downloaded (never compiled), SARIF is written and `--base` is passed through.
#[test]
fn action_inputs_cover_the_example_workflow() {
    let action = parse_yaml(
        "action.yml",
        &std::fs::read_to_string(root().join("action.yml")).unwrap(),
    );
    let inputs = action["inputs"].as_object().expect("inputs");
    let workflow = parse_yaml(
        "examples/github-workflow.yml",
        &std::fs::read_to_string(root().join("examples/github-workflow.yml")).unwrap(),
    );
    let steps = workflow["jobs"]["lint"]["steps"].as_array().unwrap();
    let ours = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("kubectl-karmada-policy/kubectl-karmada-policy@"))
        })
        .expect("the example uses the Action");
    for key in ours["with"].as_object().unwrap().keys() {
        assert!(
            inputs.contains_key(key),
            "input `{key}` is not in action.yml"
        );
    }
    assert!(action["outputs"]["sarif-file"].is_object());
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .expect("the example uploads SARIF");
    assert_eq!(
        upload["with"]["sarif_file"],
        "${{ steps.lint.outputs.sarif-file }}"
    );
    let run: String = action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    assert!(run.contains("gh release download") && !run.contains("cargo "));
    assert!(run.contains("--base") && run.contains("sarif=${SARIF_FILE}"));
    // The archive name the Action asks for is the one the release workflow publishes.
    assert!(run.contains("kubectl-karmada_policy-${VERSION}-${os}-${arch}.${ext}"));
}
