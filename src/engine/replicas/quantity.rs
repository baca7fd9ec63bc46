//! Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource`), as far as the
//! general estimator reads them: exact parsing of `<number><suffix>` and the two roundings it
//! uses, `Value()` (whole units, rounded up) and `MilliValue()` (thousandths, rounded up).
//!
//! A quantity is held exactly in nano units (10⁻⁹) in an `i128`, which covers every quantity
//! a Kubernetes object can carry (`Ei` is 2⁶⁰ ≈ 1.2·10¹⁸); digits below a nano are rounded up,
//! as the apiserver's canonical form rounds them.

use std::fmt;

/// A parsed quantity, in nano units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Quantity(i128);

/// A quantity that does not parse, with the text that was given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {0:?}")]
pub struct BadQuantity(pub String);

const NANO: i128 = 1_000_000_000;

impl Quantity {
    pub const ZERO: Quantity = Quantity(0);

    /// `resource.NewQuantity(n, ...)`.
    pub fn from_units(n: i64) -> Quantity {
        Quantity(i128::from(n) * NANO)
    }

    /// `resource.NewMilliQuantity(n, ...)`.
    pub fn from_millis(n: i64) -> Quantity {
        Quantity(i128::from(n) * 1_000_000)
    }

    /// `resource.ParseQuantity`: a signed decimal number, then a binary-SI suffix (`Ki`..`Ei`),
    /// a decimal-SI suffix (`n u m "" k M G T P E`) or a decimal exponent (`e3`, `E-2`).
    pub fn parse(text: &str) -> Result<Quantity, BadQuantity> {
        let bad = || BadQuantity(text.to_string());
        let s = text.trim();
        let (negative, s) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let end = s
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(s.len());
        let (number, suffix) = s.split_at(end);
        let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
        if whole.is_empty() && frac.is_empty() || frac.contains('.') {
            return Err(bad());
        }
        let (pow10, binary): (i32, u32) = match suffix {
            "" => (0, 0),
            "n" => (-9, 0),
            "u" => (-6, 0),
            "m" => (-3, 0),
            "k" => (3, 0),
            "M" => (6, 0),
            "G" => (9, 0),
            "T" => (12, 0),
            "P" => (15, 0),
            "E" => (18, 0),
            "Ki" => (0, 1),
            "Mi" => (0, 2),
            "Gi" => (0, 3),
            "Ti" => (0, 4),
            "Pi" => (0, 5),
            "Ei" => (0, 6),
            e if e.starts_with(['e', 'E']) => (e[1..].parse::<i32>().map_err(|_| bad())?, 0),
            _ => return Err(bad()),
        };
        // The digits as one integer (no allocation: this runs for every cluster's summary).
        let mut value: i128 = 0;
        let mut scale = pow10 - frac.len() as i32 + 9;
        let mut significant = 0;
        for b in whole.bytes().chain(frac.bytes()) {
            if value == 0 && b == b'0' {
                continue;
            }
            significant += 1;
            if significant > 36 {
                // Beyond i128's reach in nanos: only zeros may follow (scaled, not stored).
                if b != b'0' {
                    return Err(bad());
                }
                scale += 1;
                continue;
            }
            value = value * 10 + i128::from(b - b'0');
        }
        if value == 0 {
            return Ok(Quantity::ZERO);
        }
        for _ in 0..binary {
            value = value.checked_mul(1024).ok_or_else(bad)?;
        }
        if scale >= 0 {
            for _ in 0..scale {
                value = value.checked_mul(10).ok_or_else(bad)?;
            }
        } else {
            // Below a nano: rounded up.
            let divisor = 10i128.checked_pow((-scale) as u32);
            value = match divisor {
                Some(d) => (value + d - 1) / d,
                None => 1,
            };
        }
        Ok(Quantity(if negative { -value } else { value }))
    }

    /// `Quantity.Value()`: whole units, rounded up (away from zero).
    pub fn value(self) -> i64 {
        saturate(div_away(self.0, NANO))
    }

    /// `Quantity.MilliValue()`: thousandths, rounded up (away from zero).
    pub fn milli_value(self) -> i64 {
        saturate(div_away(self.0, 1_000_000))
    }

    pub fn is_positive(self) -> bool {
        self.0 > 0
    }
}

impl std::ops::Sub for Quantity {
    type Output = Quantity;
    fn sub(self, rhs: Quantity) -> Quantity {
        Quantity(self.0 - rhs.0)
    }
}

impl std::ops::Add for Quantity {
    type Output = Quantity;
    fn add(self, rhs: Quantity) -> Quantity {
        Quantity(self.0 + rhs.0)
    }
}

impl fmt::Display for Quantity {
    /// Whole units when exact, else millis when exact, else nanos (for messages only).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 % NANO == 0 {
            write!(f, "{}", self.0 / NANO)
        } else if self.0 % 1_000_000 == 0 {
            write!(f, "{}m", self.0 / 1_000_000)
        } else {
            write!(f, "{}n", self.0)
        }
    }
}

fn div_away(n: i128, d: i128) -> i128 {
    let q = n / d;
    if n % d == 0 {
        q
    } else if n > 0 {
        q + 1
    } else {
        q - 1
    }
}

fn saturate(n: i128) -> i64 {
    n.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_suffixes() {
        let q = |s: &str| Quantity::parse(s).unwrap();
        assert_eq!(q("500m").milli_value(), 500);
        assert_eq!(q("500m").value(), 1, "Value rounds up");
        assert_eq!(q("2").milli_value(), 2000);
        assert_eq!(q("0.1").milli_value(), 100);
        assert_eq!(q("1Ki").value(), 1024);
        assert_eq!(q("8Gi").value(), 8 * 1024 * 1024 * 1024);
        assert_eq!(q("1e3").value(), 1000);
        assert_eq!(q("1.5k").value(), 1500);
        assert_eq!(q("100Mi").value(), 104_857_600);
        assert_eq!(q("1n").milli_value(), 1, "MilliValue rounds up");
        assert_eq!(q("-500m").value(), -1);
        assert_eq!(q("0").value(), 0);
        assert_eq!(q("110").value(), 110);
        assert_eq!(q("1Ei").value(), 1 << 60);
        assert!(Quantity::parse("abc").is_err());
        assert!(Quantity::parse("1.2.3").is_err());
        assert!(Quantity::parse("1X").is_err());
        assert!(Quantity::parse("").is_err());
        assert_eq!((q("4") - q("1500m")).milli_value(), 2500);
    }
}
