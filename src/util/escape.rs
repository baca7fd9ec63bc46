//! Text from inputs made safe for a terminal or a CI log: every C0 and C1 control character and
//! DEL (Unicode general category Cc, `char::is_control`) is shown visibly as `\u{1b}`, as rustc
//! and ruff do, so no file, object or server answer can erase a line, move the cursor, set a
//! window title or ring the bell through our output. Every human-readable renderer passes the
//! text it took from an input through [`visible`] (or [`visible_lines`] for text whose own line
//! breaks are kept), and measures columns with [`width`].

use std::borrow::Cow;
use std::fmt;

/// Whether `c` is shown escaped: C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F).
pub fn is_escaped(c: char) -> bool {
    c.is_control()
}

/// How many columns `c` takes once shown: its escape's length, else 1.
pub fn width(c: char) -> usize {
    if is_escaped(c) {
        escape_len(c)
    } else {
        1
    }
}

/// `\u{1b}`: the length of the visible form of a control character.
fn escape_len(c: char) -> usize {
    let hex = if (c as u32) < 0x10 { 1 } else { 2 };
    4 + hex
}

fn push_escaped(out: &mut String, c: char) {
    use fmt::Write;
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// `s` with every control character escaped (line breaks and tabs too): a name, a message, a
/// value, a field path, a property of a CI annotation.
pub fn visible(s: &str) -> Cow<'_, str> {
    escape_except(s, |_, _| false)
}

/// `s` with every control character but line breaks (LF, and CR before LF: a CRLF file's
/// lines in a diff) escaped: a multi-line text whose lines are ours to break (a diff, an error
/// with a note on its next line).
pub fn visible_lines(s: &str) -> Cow<'_, str> {
    escape_except(s, |c, next| c == '\n' || (c == '\r' && next == Some('\n')))
}

/// The one escaping routine: every control character that `keep` (given the character and the
/// next one) does not keep, as `\u{..}`.
fn escape_except(s: &str, keep: impl Fn(char, Option<char>) -> bool) -> Cow<'_, str> {
    let mut chars = s.char_indices().peekable();
    let mut out: Option<String> = None;
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|(_, n)| *n);
        let escape = is_escaped(c) && !keep(c, next);
        match (&mut out, escape) {
            (None, false) => {}
            (None, true) => {
                let mut o = String::with_capacity(s.len() + 8);
                o.push_str(&s[..i]);
                push_escaped(&mut o, c);
                out = Some(o);
            }
            (Some(o), true) => push_escaped(o, c),
            (Some(o), false) => o.push(c),
        }
    }
    out.map_or(Cow::Borrowed(s), Cow::Owned)
}

/// A whole human-readable report as it goes to a terminal: every control character escaped
/// but its line feeds and, when `color` is on, the colour codes the renderer itself wrote (SGR
/// sequences, `ESC [ digits m`). Renderers escape what they take from inputs with [`visible`];
/// this pass over their result keeps a value they missed from reaching the terminal raw.
pub fn terminal_text(text: &str, color: bool) -> Cow<'_, str> {
    if !text.contains(|c: char| is_escaped(c) && c != '\n') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let sgr = if color && c == '\u{1b}' {
            sgr_len(rest)
        } else {
            0
        };
        if sgr > 0 {
            out.push_str(&rest[..sgr]);
            rest = &rest[sgr..];
            continue;
        }
        if is_escaped(c) && c != '\n' {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// The length of the SGR sequence (`ESC [ 0-9 ; ... m`) `s` starts with, else 0.
fn sgr_len(s: &str) -> usize {
    let Some(body) = s.strip_prefix("\u{1b}[") else {
        return 0;
    };
    let params = body
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    if body.as_bytes().get(params) == Some(&b'm') {
        2 + params + 1
    } else {
        0
    }
}

/// JSON text with the control characters JSON lets through raw (DEL and C1: JSON escapes only
/// C0) written as `\u007f`: the same strings to a JSON reader, nothing raw on a terminal.
/// Those characters can only stand inside JSON strings, where the escape means the same.
pub fn json_text(json: String) -> String {
    // A line break is between JSON tokens (a string has it escaped): left as it is.
    let raw = |c: char| is_escaped(c) && c != '\n';
    if !may_hold_control(&json) || !json.contains(raw) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if raw(c) {
            use fmt::Write;
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `s` may hold a control character other than a line break: a byte of C0 or DEL, or
/// 0xC2, the first byte of every C1 character in UTF-8 (and of U+00A0-U+00BF). A byte test the
/// compiler vectorizes, ahead of decoding every character of a report of megabytes.
fn may_hold_control(s: &str) -> bool {
    let control = |b: u8| (b < 0x20 && b != b'\n') || b == 0x7f || b == 0xc2;
    // In blocks without an early exit inside one: `any` over the bytes stops at each byte to
    // test, and did not vectorize (5 ms on the 5 MB report of 100,000 documents).
    let mut blocks = s.as_bytes().chunks_exact(64);
    let found = blocks.any(|block| block.iter().fold(false, |hit, &b| hit | control(b)));
    found || blocks.remainder().iter().any(|&b| control(b))
}

/// [`visible`] as a `Display` adapter, for `format!("{}", Visible(name))` without a copy when
/// nothing needs escaping.
pub struct Visible<'a>(pub &'a str);

impl fmt::Display for Visible<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&visible(self.0))
    }
}

/// A source line as a snippet prints it: tabs as one space (columns count characters) and
/// control characters escaped; with the 0-based column (in characters of `line`) → column (in
/// characters printed) map for the carets under it, one entry per character plus the end.
pub fn snippet_line(line: &str) -> (String, Vec<usize>) {
    let mut shown = String::with_capacity(line.len());
    let mut columns = Vec::with_capacity(line.len() + 1);
    let mut at = 0;
    for c in line.chars() {
        columns.push(at);
        match c {
            '\t' => {
                shown.push(' ');
                at += 1;
            }
            c if is_escaped(c) => {
                push_escaped(&mut shown, c);
                at += escape_len(c);
            }
            c => {
                shown.push(c);
                at += 1;
            }
        }
    }
    columns.push(at);
    (shown, columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every C0 character, DEL and every C1 character.
    fn controls() -> impl Iterator<Item = char> {
        (0u32..0x20)
            .chain(std::iter::once(0x7f))
            .chain(0x80..0xa0)
            .filter_map(char::from_u32)
    }

    #[test]
    fn every_control_character_is_escaped_visibly() {
        let all: String = controls().collect();
        assert_eq!(all.chars().count(), 65);
        let shown = visible(&all);
        assert!(!shown.contains(|c: char| c.is_control()), "{shown:?}");
        assert!(shown.starts_with("\\u{0}\\u{1}"), "{shown}");
        assert!(shown.contains("\\u{1b}\\u{1c}"), "{shown}");
        assert!(shown.contains("\\u{1f}\\u{7f}\\u{80}"), "{shown}");
        assert!(shown.ends_with("\\u{9f}"), "{shown}");
        for c in controls() {
            assert_eq!(visible(&c.to_string()).chars().count(), width(c), "{c:?}");
        }
    }

    #[test]
    fn plain_text_is_borrowed_and_line_feeds_can_be_kept() {
        assert!(matches!(visible("naïve — ok"), Cow::Borrowed(_)));
        assert_eq!(visible_lines("a\nb\u{1b}[2K"), "a\nb\\u{1b}[2K");
        assert_eq!(visible("a\nb"), "a\\u{a}b");
        assert_eq!(visible_lines("a\r\nb\rc"), "a\r\nb\\u{d}c");
        assert_eq!(Visible("x\u{7}").to_string(), "x\\u{7}");
    }

    #[test]
    fn a_report_keeps_its_own_colours_and_line_feeds_only() {
        let report = "\u{1b}[1;31merror\u{1b}[0m: p\u{1b}[2Kx\u{9b}2J\n";
        assert_eq!(
            terminal_text(report, true),
            "\u{1b}[1;31merror\u{1b}[0m: p\\u{1b}[2Kx\\u{9b}2J\n"
        );
        let plain = terminal_text(report, false);
        assert!(
            !plain.contains(|c: char| c.is_control() && c != '\n'),
            "{plain}"
        );
    }

    #[test]
    fn json_text_escapes_what_json_leaves_raw_and_reads_back_the_same() {
        let v = serde_json::json!({"name": "a\u{7f}\u{85}\u{9b}\u{1b}b"});
        let text = json_text(serde_json::to_string_pretty(&v).unwrap());
        assert!(
            !text.contains(|c: char| c.is_control() && c != '\n'),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
    }

    #[test]
    fn the_byte_prefilter_misses_no_control_character() {
        // Every character that is escaped (other than a line break) is caught by the byte
        // test; characters it lets through are never escaped.
        for c in (0..=0x3000u32).filter_map(char::from_u32) {
            let s = format!("x{c}y");
            if is_escaped(c) && c != '\n' {
                assert!(may_hold_control(&s), "U+{:04X}", c as u32);
            }
            if !may_hold_control(&s) {
                assert!(!s.contains(|c: char| is_escaped(c) && c != '\n'));
            }
        }
        assert!(!may_hold_control("{\n  \"a\": \"é ü 中\"\n}"));
        // The test reads 64-byte blocks, then the rest: a character anywhere in either.
        for at in [0, 31, 63, 64, 127, 128, 150] {
            let mut s = "a".repeat(160);
            s.insert(at, '\u{1b}');
            assert!(may_hold_control(&s), "at {at}");
            s.insert(at, '\u{85}');
            assert!(may_hold_control(&s.replace('\u{1b}', "")), "C1 at {at}");
        }
        assert!(!may_hold_control(&"a\n".repeat(100)));
    }

    #[test]
    fn a_snippet_maps_columns_past_the_escapes() {
        let (shown, cols) = snippet_line("a\u{1b}b\tc");
        assert_eq!(shown, "a\\u{1b}b c");
        assert_eq!(cols, vec![0, 1, 7, 8, 9, 10]);
    }
}
