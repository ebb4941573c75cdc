//! Large lists, read straight from the request text into a tensor or an attribute.
//!
//! A TOML parser builds a tree node of tens to hundreds of bytes for every value, and a
//! 10 MB list took 738 MB that way (a 59 MB list of integers 4.5 GB). So before the request
//! is parsed, every list value (`key = [ ... ]`, an inline tensor's `values` and `shape`, an
//! attribute, a list input) that is at least [`LARGE`] bytes long and holds no inline
//! table is cut from the text handed to the TOML parser — left as `[]` — and read here
//! instead, one element at a time. [`Lists::original`] maps positions in the cut text back
//! to the request's own, so every message keeps its line and column. What is left for
//! the TOML parser is counted as it is cut ([`Lists::nodes`]): the caller refuses a file
//! whose tree would be too large before it is parsed.
//!
//! Elements are TOML values as before: plain integers, floats and booleans are read
//! here (by TOML's own grammar), anything else (strings, hex, `inf`, `[re, im]` pairs)
//! one at a time by the TOML parser.

use kerfx_spec::literal::{ragged_lengths, ragged_mix};
use std::borrow::Cow;
use std::ops::Range;
use toml::Value;

/// Lists shorter than this (in bytes of text) are left to the TOML parser.
pub const LARGE: usize = 4096;

/// The large lists cut from a request's text.
pub struct Lists {
    /// Their ranges in the request's text (`[` to `]`), in order.
    pub ranges: Vec<Range<usize>>,
    /// Per list, the bare key it is the value of (`""` for a quoted key).
    pub keys: Vec<String>,
    /// About how many values, keys and tables the TOML parser builds from the cut text.
    pub nodes: usize,
    /// Per list, where its `[]` is in the cut text, and the bytes cut up to its end.
    cut: Vec<(usize, usize)>,
}

impl Lists {
    fn new(ranges: Vec<Range<usize>>, keys: Vec<String>, nodes: usize) -> Lists {
        let mut total = 0;
        let cut = ranges
            .iter()
            .map(|r| {
                let at = r.start - total;
                total += r.len() - 2;
                (at, total)
            })
            .collect();
        Lists { ranges, keys, nodes, cut }
    }

    /// A byte position in the cut text → the same place in the request's text (a binary
    /// search: it is called for every entry of a request).
    pub fn original(&self, pos: usize) -> usize {
        // What follows a list's `[` moved back by the bytes cut up to that list's end.
        match self.cut.partition_point(|&(at, _)| pos > at) {
            0 => pos,
            n => pos + self.cut[n - 1].1,
        }
    }

    /// The cut lists inside `span` of the request's text, with their keys.
    pub fn within(&self, span: Range<usize>) -> impl Iterator<Item = (Range<usize>, &str)> {
        let from = self.ranges.partition_point(|r| r.start < span.start);
        let to = self.ranges.partition_point(|r| r.start < span.end);
        (from..to).map(|i| (self.ranges[i].clone(), self.keys[i].as_str()))
    }
}

/// The text with every large list cut to `[]`, and the lists.
pub fn cut_large_lists(text: &str) -> (Cow<'_, str>, Lists) {
    let (ranges, keys, nodes) = find_lists(text.as_bytes());
    if ranges.is_empty() {
        return (Cow::Borrowed(text), Lists::new(ranges, keys, nodes));
    }
    let mut cut = String::new();
    let mut from = 0;
    for r in &ranges {
        cut.push_str(&text[from..r.start]);
        cut.push_str("[]");
        from = r.end;
    }
    cut.push_str(&text[from..]);
    (Cow::Owned(cut), Lists::new(ranges, keys, nodes))
}

/// The end of the string starting at `i` (after its closing quote; at the end of the line
/// or text for an unterminated one, which the TOML parser then reports).
fn skip_string(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let escapes = q == b'"';
    if b[i..].starts_with(&[q, q, q]) {
        let mut j = i + 3;
        while j < b.len() {
            if escapes && b[j] == b'\\' {
                j += 2;
            } else if b[j] == q && b[j..].starts_with(&[q, q, q]) {
                // Up to two more quotes belong to the content: the last three close.
                let run = b[j..].iter().take_while(|&&c| c == q).count().min(5);
                return j + run;
            } else {
                j += 1;
            }
        }
        return b.len();
    }
    let mut j = i + 1;
    while j < b.len() && b[j] != b'\n' {
        if escapes && b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j] == q {
            return j + 1;
        }
        j += 1;
    }
    j.min(b.len())
}

fn skip_comment(b: &[u8], i: usize) -> usize {
    b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p)
}

/// The end of the list starting at `i` (after its `]`), whether it holds an inline
/// table, and how many values and keys it holds (about: its `,` `[` `{` `=`); `None`
/// when it never closes.
fn skip_list(b: &[u8], i: usize) -> Option<(usize, bool, usize)> {
    let (mut depth, mut tables, mut j, mut nodes) = (0usize, false, i, 0usize);
    while j < b.len() {
        match b[j] {
            b'"' | b'\'' => {
                j = skip_string(b, j);
                continue;
            }
            b'#' => {
                j = skip_comment(b, j);
                continue;
            }
            b'[' => {
                depth += 1;
                nodes += 1;
            }
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some((j + 1, tables, nodes));
                }
            }
            b'{' => {
                tables = true;
                nodes += 1;
            }
            b',' | b'=' => nodes += 1,
            _ => {}
        }
        j += 1;
    }
    None
}

/// The bare key before the `=` at `eq` (its last part, for a dotted key); `""` when it is
/// quoted.
fn key_before(b: &[u8], eq: usize) -> String {
    let key = b[..eq].trim_ascii_end();
    let start = key.iter().rposition(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))).map_or(0, |p| p + 1);
    String::from_utf8_lossy(&key[start..]).into_owned()
}

/// The ranges of the large lists, their keys, and about how many nodes the rest makes.
fn find_lists(b: &[u8]) -> (Vec<Range<usize>>, Vec<String>, usize) {
    let (mut found, mut keys) = (Vec::new(), Vec::new());
    let (mut i, mut tables, mut eq, mut nodes) = (0usize, 0usize, None::<usize>, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                i = skip_string(b, i);
                eq = None;
                continue;
            }
            b'#' => {
                i = skip_comment(b, i);
                continue;
            }
            b'=' => {
                eq = Some(i);
                nodes += 1;
            }
            b'{' => {
                tables += 1;
                eq = None;
                nodes += 1;
            }
            b'}' => {
                tables = tables.saturating_sub(1);
                eq = None;
            }
            b'[' if eq.is_some() => {
                let Some((end, has_table, inside)) = skip_list(b, i) else {
                    return (found, keys, nodes);
                };
                if !has_table && end - i >= LARGE {
                    found.push(i..end);
                    keys.push(eq.map(|e| key_before(b, e)).unwrap_or_default());
                } else {
                    nodes += inside;
                }
                i = end;
                eq = None;
                continue;
            }
            b'[' if tables == 0 => {
                nodes += 1;
                // A table header: to the end of its line.
                while i < b.len() && b[i] != b'\n' {
                    i = if matches!(b[i], b'"' | b'\'') { skip_string(b, i) } else { i + 1 };
                }
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => eq = None,
        }
        i += 1;
    }
    (found, keys, nodes)
}

/// Call `leaf` with the text of each element of the list `text` (its `[`...`]`), in
/// order, flattening nested lists, which must be rectangular (every list at one depth as
/// long, and holding only lists or only values); for complex types a list of two numbers
/// is one element. Errors say what is wrong (the caller names the input and its line).
pub fn for_each_element(
    text: &str,
    complex: bool,
    leaf: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    Walk { what: "`values`", complex, flat: false, rows: Vec::new(), leaf }.all(text)
}

/// As [`for_each_element`] for a list that holds values only, no lists (an attribute, a
/// list input, a shape).
pub fn for_each_flat(text: &str, leaf: &mut dyn FnMut(&str) -> Result<(), String>) -> Result<(), String> {
    Walk { what: "the list", complex: false, flat: true, rows: Vec::new(), leaf }.all(text)
}

/// Skip whitespace, newlines and comments.
fn skip_blank(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => i = skip_comment(b, i),
            _ => break,
        }
    }
    i
}

/// A walk over a list's elements.
struct Walk<'a> {
    /// What the list is, for messages.
    what: &'static str,
    complex: bool,
    /// Nested lists are an error.
    flat: bool,
    /// Per depth, the length of its lists and whether they hold lists (the first seen).
    rows: Vec<Option<(usize, bool)>>,
    leaf: &'a mut dyn FnMut(&str) -> Result<(), String>,
}

impl Walk<'_> {
    fn all(&mut self, text: &str) -> Result<(), String> {
        let end = self.list(text, 0, 0)?;
        if text.as_bytes()[end..].iter().any(|c| !c.is_ascii_whitespace()) {
            return Err(format!("{}: text after the end of the list", self.what));
        }
        Ok(())
    }

    fn list(&mut self, text: &str, start: usize, depth: usize) -> Result<usize, String> {
        let b = text.as_bytes();
        let what = self.what;
        let unexpected = |i: usize| match text[i..].chars().next() {
            Some(c) => format!("{what}: unexpected `{c}` in the list"),
            None => format!("{what}: the list does not end"),
        };
        let (mut i, mut count, mut holds_lists) = (start + 1, 0usize, None::<bool>);
        loop {
            i = skip_blank(b, i);
            let is_list = match b.get(i) {
                None => return Err(unexpected(i)),
                Some(b']') => return self.end_row(depth, count, holds_lists, i + 1),
                Some(b'[') => {
                    let (end, _, _) = skip_list(b, i).ok_or_else(|| unexpected(b.len()))?;
                    let inner = &text[i..end];
                    if self.complex && !inner[1..].contains('[') && inner.matches(',').count() <= 2 && is_pair(inner) {
                        (self.leaf)(inner)?;
                        i = end;
                        false
                    } else if self.flat {
                        return Err(format!("{what}: a nested list, where values only are taken"));
                    } else {
                        i = self.list(text, i, depth + 1)?;
                        true
                    }
                }
                Some(b',' | b'{' | b'}' | b'=') => return Err(unexpected(i)),
                Some(b'"' | b'\'') => {
                    let end = skip_string(b, i);
                    (self.leaf)(&text[i..end])?;
                    i = end;
                    false
                }
                Some(_) => {
                    let end = b[i..]
                        .iter()
                        .position(|c| matches!(c, b',' | b']' | b' ' | b'\t' | b'\r' | b'\n' | b'#'))
                        .map_or(b.len(), |p| i + p);
                    (self.leaf)(&text[i..end])?;
                    i = end;
                    false
                }
            };
            if holds_lists.is_some_and(|h| h != is_list) {
                return Err(format!("{what}: {}", ragged_mix(depth + 1)));
            }
            holds_lists = Some(is_list);
            count += 1;
            i = skip_blank(b, i);
            match b.get(i) {
                Some(b',') => i += 1,
                Some(b']') => return self.end_row(depth, count, holds_lists, i + 1),
                _ => return Err(unexpected(i)),
            }
        }
    }

    /// A list at `depth` ended, holding `count` elements: as long as the others there.
    fn end_row(&mut self, depth: usize, count: usize, holds_lists: Option<bool>, end: usize) -> Result<usize, String> {
        let holds_lists = holds_lists.unwrap_or(false);
        if self.rows.len() <= depth {
            self.rows.resize(depth + 1, None);
        }
        match self.rows[depth] {
            None => self.rows[depth] = Some((count, holds_lists)),
            Some((n, _)) if n != count => {
                return Err(format!("{}: {}", self.what, ragged_lengths(depth + 1, n, count)));
            }
            Some((_, h)) if h != holds_lists => return Err(format!("{}: {}", self.what, ragged_mix(depth + 1))),
            Some(_) => {}
        }
        Ok(end)
    }
}

/// A `[re, im]` list of two numbers.
fn is_pair(text: &str) -> bool {
    matches!(value(text), Ok(Value::Array(a)) if a.len() == 2 && a.iter().all(|x| x.is_integer() || x.is_float()))
}

/// An element's TOML value: plain decimal integers, floats and booleans by TOML's grammar
/// here, anything else by the TOML parser.
pub fn value(raw: &str) -> Result<Value, String> {
    match raw {
        "true" => return Ok(Value::Boolean(true)),
        "false" => return Ok(Value::Boolean(false)),
        _ => {}
    }
    if let Some(v) = plain_number(raw) {
        return Ok(v);
    }
    // A `[re, im]` pair of plain numbers.
    if let Some(inner) = raw.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let mut parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        if parts.len() > 1 && parts.last() == Some(&"") {
            parts.pop();
        }
        if let Some(v) = parts.iter().map(|p| plain_number(p)).collect::<Option<Vec<_>>>() {
            return Ok(Value::Array(v));
        }
    }
    let doc = format!("v = {raw}");
    let mut t: toml::Table = toml::from_str(&doc).map_err(|e| format!("`{}`: {}", short(raw), e.message()))?;
    t.remove("v").ok_or_else(|| format!("`{}` is not a value", short(raw)))
}

fn short(s: &str) -> String {
    if s.chars().count() > 40 { format!("{}…", s.chars().take(40).collect::<String>()) } else { s.to_string() }
}

/// Digits with single underscores between them (TOML's `1_000`), without the underscores.
fn digits(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let ok = !b.is_empty()
        && b[0].is_ascii_digit()
        && b[b.len() - 1].is_ascii_digit()
        && b.iter().all(|c| c.is_ascii_digit() || *c == b'_')
        && !s.contains("__");
    ok.then(|| s.replace('_', ""))
}

/// A decimal integer or float in TOML's grammar (sign, no leading zeros, `_` between
/// digits, a fraction and/or an exponent for floats); `None` for anything else.
fn plain_number(raw: &str) -> Option<Value> {
    // The common case, digits alone (no leading zero), without building strings.
    let digits_only = raw.strip_prefix('-').unwrap_or(raw).as_bytes();
    if !digits_only.is_empty()
        && digits_only.iter().all(u8::is_ascii_digit)
        && (digits_only.len() == 1 || digits_only[0] != b'0')
    {
        return raw.parse::<i64>().ok().map(Value::Integer);
    }
    let (sign, body) = match raw.as_bytes().first()? {
        b'+' => ("", &raw[1..]),
        b'-' => ("-", &raw[1..]),
        _ => ("", raw),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(p) => (&body[..p], Some(&body[p + 1..])),
        None => (body, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let int = digits(int)?;
    if int.len() > 1 && int.starts_with('0') {
        return None;
    }
    if frac.is_none() && exp.is_none() {
        return format!("{sign}{int}").parse::<i64>().ok().map(Value::Integer);
    }
    let frac = frac.map(digits).unwrap_or(Some(String::new()))?;
    let exp = match exp {
        None => String::new(),
        Some(e) => {
            let (s, d) = match e.as_bytes().first()? {
                b'+' => ("", &e[1..]),
                b'-' => ("-", &e[1..]),
                _ => ("", e),
            };
            format!("e{s}{}", digits(d)?)
        }
    };
    let dot = if frac.is_empty() { String::new() } else { format!(".{frac}") };
    format!("{sign}{int}{dot}{exp}").parse::<f64>().ok().map(Value::Float)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_numbers_follow_tomls_grammar() {
        for (raw, want) in [
            ("0", Some(Value::Integer(0))),
            ("-12", Some(Value::Integer(-12))),
            ("+1_000", Some(Value::Integer(1000))),
            ("1.5", Some(Value::Float(1.5))),
            ("-2e3", Some(Value::Float(-2000.0))),
            ("6.25E-1", Some(Value::Float(0.625))),
            ("1_0.0_1", Some(Value::Float(10.01))),
        ] {
            assert_eq!(plain_number(raw), want, "{raw}");
            assert_eq!(value(raw).ok(), want, "{raw}");
        }
        // Not TOML: refused here and by the TOML parser alike.
        for raw in ["01", ".5", "5.", "1__0", "_1", "1_", "1e", "1.e3", "--1", "NaN", "0x", ""] {
            assert_eq!(plain_number(raw), None, "{raw}");
            assert!(value(raw).is_err(), "{raw}");
        }
        // TOML, through the parser.
        assert_eq!(value("0x1f").unwrap(), Value::Integer(31));
        assert!(value("-inf").unwrap().as_float().is_some_and(|f| f == f64::NEG_INFINITY));
        assert_eq!(value("'a,]b'").unwrap(), Value::String("a,]b".into()));
        // Beyond i64: an error, as TOML says.
        assert!(value("9223372036854775808").is_err());
    }

    fn elements(text: &str, complex: bool) -> Result<Vec<String>, String> {
        let mut v = Vec::new();
        for_each_element(text, complex, &mut |s| {
            v.push(s.to_string());
            Ok(())
        })?;
        Ok(v)
    }

    #[test]
    fn lists_are_walked_element_by_element() {
        assert_eq!(elements("[1, 2 ,3,]", false).unwrap(), ["1", "2", "3"]);
        assert_eq!(elements("[[1, 2], # c\n [3, \"a]b\"]\n]", false).unwrap(), ["1", "2", "3", "\"a]b\""]);
        assert_eq!(elements("[[1, 2], [3, 4]]", true).unwrap(), ["[1, 2]", "[3, 4]"]);
        assert_eq!(elements("[[[1, 2]], [3]]", true).unwrap(), ["[1, 2]", "3"]);
        assert_eq!(elements("[]", false).unwrap(), Vec::<String>::new());
        for bad in ["[1,,2]", "[1 2]", "[1, 2", "[{a = 1}]", "[,]"] {
            assert!(elements(bad, false).is_err(), "{bad}");
        }
        // Ragged lists are errors, not flattened into the right count by chance.
        for (bad, complex, needle) in [
            ("[[1, 2], [3]]", false, "at depth 2 one list holds 2 elements and another 1"),
            ("[[1, 2], 3]", false, "at depth 1 lists and values are mixed"),
            ("[[[1, 2]], 3]", true, "at depth 1 lists and values are mixed"),
            ("[[[1], [2]], [[3]]]", false, "at depth 2 one list holds 2"),
            ("[[], [1]]", false, "ragged"),
        ] {
            assert!(elements(bad, complex).unwrap_err().contains(needle), "{bad}");
        }
        // Flat lists (attributes, list inputs, shapes) take no nested list.
        let mut seen = Vec::new();
        for_each_flat("[1, \"a\", 2.5]", &mut |s| {
            seen.push(s.to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, ["1", "\"a\"", "2.5"]);
        assert!(for_each_flat("[1, [2]]", &mut |_| Ok(())).unwrap_err().contains("a nested list"));
    }

    #[test]
    fn every_large_list_without_tables_is_cut() {
        let big = format!("[{}]", vec!["1"; LARGE].join(",\n"));
        let line = format!("[{}]", vec!["1"; LARGE].join(", "));
        let text = format!(
            "op = \"x\"\nbig = {big}\n[inputs]\n# values = {line}\na = {{ dtype = \"f32\", values = {big} }}\n\
             b = {{ dtype = \"f32\", values = [1] }}\nc = {{ s = \"values = [\", values = {big} }}\n\
             d = {{ other_values = {big} }}\ne = 1\n"
        );
        let (cut, lists) = cut_large_lists(&text);
        assert_eq!(lists.keys, ["big", "values", "values", "other_values"]);
        for r in &lists.ranges {
            assert_eq!(&text[r.clone()], big);
        }
        // What is left for the TOML parser, counted: 14 keys, 4 inline tables, a header and
        // b's list.
        assert_eq!(lists.nodes, 14 + 4 + 1 + 1);
        // A large list of tables is left to the parser, and counted.
        let tables = format!("t = [{}]\n", vec!["{}"; LARGE].join(", "));
        let (_, of_tables) = cut_large_lists(&tables);
        assert!(of_tables.ranges.is_empty() && of_tables.nodes > 2 * LARGE, "{}", of_tables.nodes);
        let t: toml::Table = toml::from_str(&cut).unwrap();
        assert_eq!(t["inputs"]["a"]["values"], Value::Array(vec![]));
        // Positions map back: before, inside and after the cut lists.
        for needle in ["op", "a = {", "dtype", "b = {", "c = {", "e = 1"] {
            assert_eq!(lists.original(cut.find(needle).unwrap()), text.find(needle).unwrap(), "{needle}");
        }
    }
}
