//! The Karmada version whose rules apply (`--karmada-version`).

use std::fmt;
use std::str::FromStr;

/// A Karmada minor release, `1.x`. Rules that differ between releases branch on this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KarmadaVersion {
    pub major: u32,
    pub minor: u32,
}

impl KarmadaVersion {
    /// The newest release whose rules this tool knows (the specification's commit is v1.19).
    pub const LATEST: KarmadaVersion = KarmadaVersion {
        major: 1,
        minor: 19,
    };
    /// The oldest release we model; older ones are refused rather than guessed at.
    pub const OLDEST: KarmadaVersion = KarmadaVersion {
        major: 1,
        minor: 10,
    };

    pub const fn new(major: u32, minor: u32) -> KarmadaVersion {
        KarmadaVersion { major, minor }
    }

    /// The known release nearest to a Karmada 1.x outside the known range: [`Self::OLDEST`]
    /// for an older one, [`Self::LATEST`] for a newer; `None` for another major version.
    pub fn nearest_known(v: KarmadaVersion) -> Option<KarmadaVersion> {
        (v.major == 1).then(|| v.clamp(KarmadaVersion::OLDEST, KarmadaVersion::LATEST))
    }

    /// The Kubernetes minor release (1.x) of the karmada-apiserver this release installs, which
    /// decides the built-in API versions it serves. The three installers agree on it:
    /// `charts/karmada/values.yaml` (`apiServer.image.tag`), `karmadactl init`'s
    /// `--kube-image-tag` default (`pkg/karmadactl/cmdinit/cmdinit.go`) and the operator's
    /// `KubeDefaultVersion` (`operator/pkg/constants/constants.go`): v1.27.11 in 1.10, v1.29.6 in
    /// 1.11, v1.31.3 in 1.12 to 1.15, v1.34.1 in 1.16, v1.35.2 in 1.17 and 1.18, v1.36.2 after.
    pub fn apiserver_minor(self) -> u32 {
        match self.minor {
            ..=10 => 27,
            11 => 29,
            12..=15 => 31,
            16 => 34,
            17 | 18 => 35,
            _ => 36,
        }
    }

    /// `true` for this version and every later one.
    pub fn at_least(self, major: u32, minor: u32) -> bool {
        self >= KarmadaVersion::new(major, minor)
    }
}

impl Default for KarmadaVersion {
    fn default() -> Self {
        KarmadaVersion::LATEST
    }
}

impl fmt::Display for KarmadaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl FromStr for KarmadaVersion {
    type Err = String;

    /// Accepts `1.18`, `v1.18` and `v1.18.2` (the patch level does not change any rule).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split('.');
        let parse = |p: Option<&str>| p.and_then(|x| x.parse::<u32>().ok());
        let (Some(major), Some(minor)) = (parse(parts.next()), parse(parts.next())) else {
            return Err(format!(
                "invalid Karmada version `{s}`: expected MAJOR.MINOR such as 1.19"
            ));
        };
        let v = KarmadaVersion::new(major, minor);
        if v > KarmadaVersion::LATEST || v < KarmadaVersion::OLDEST {
            return Err(format!(
                "Karmada {v} is not known to this tool: supported versions are {} to {}",
                KarmadaVersion::OLDEST,
                KarmadaVersion::LATEST
            ));
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_release_installs_its_kube_apiserver() {
        let minor = |m| KarmadaVersion::new(1, m).apiserver_minor();
        assert_eq!(
            [10, 11, 12, 15, 16, 17, 18, 19].map(minor),
            [27, 29, 31, 31, 34, 35, 35, 36]
        );
    }

    #[test]
    fn parses_user_spellings() {
        assert_eq!(
            "1.18".parse::<KarmadaVersion>().unwrap(),
            KarmadaVersion::new(1, 18)
        );
        assert_eq!(
            "v1.19.2".parse::<KarmadaVersion>().unwrap(),
            KarmadaVersion::LATEST
        );
        assert!("2.0".parse::<KarmadaVersion>().is_err());
        assert!("latest".parse::<KarmadaVersion>().is_err());
    }
}
