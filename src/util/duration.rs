//! kubectl's duration syntax (`--timeout`, `--request-timeout`).

use std::time::Duration;

/// Parses kubectl durations: `30s`, `2m`, `1h`, `1m30s`, a bare number of seconds, `0`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    if let Ok(n) = s.parse::<u64>() {
        return Ok(Duration::from_secs(n));
    }
    let mut total = 0f64;
    let mut num = String::new();
    let mut chars = s.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let unit = if c == 'm' && chars.peek() == Some(&'s') {
            chars.next();
            "ms"
        } else {
            match c {
                'h' => "h",
                'm' => "m",
                's' => "s",
                _ => return Err(format!("invalid duration {s:?}")),
            }
        };
        let n: f64 = num.parse().map_err(|_| format!("invalid duration {s:?}"))?;
        num.clear();
        any = true;
        total += match unit {
            "h" => n * 3600.0,
            "m" => n * 60.0,
            "s" => n,
            _ => n / 1000.0,
        };
    }
    if !num.is_empty() || !any {
        return Err(format!("invalid duration {s:?} (use e.g. 30s, 2m, 1h)"));
    }
    Ok(Duration::from_secs_f64(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_kubectl() {
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("5").unwrap(), Duration::from_secs(5));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert!(parse_duration("abc").is_err());
        assert!(parse_duration("5x").is_err());
    }
}
