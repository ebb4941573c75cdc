//! Inline tensors as TOML writes them — a spec example's `{ dtype, shape, values }` and a
//! request file's inline input alike: the one rule for which values make a tensor of a
//! dtype and shape, and the element bits each value stands for (`specs/SEMANTICS.md`,
//! "Inline tensor values"). Spec checks and the request-file reader both use it.
//!
//! - `values` is row-major; nested lists are flattened (for complex dtypes a list of two
//!   numbers is one element, `[re, im]`), and the count must be the shape's volume. Nested
//!   lists must be rectangular: every list at one depth as long as the others, and holding
//!   only lists or only values (`[[1, 2], [3]]` is an error, not three values).
//! - `string`: a string (not ending with NUL, which numpy's storage cannot hold).
//! - `bool` and the integer dtypes: an integer within the type's range (`bool`: 0 or 1),
//!   or a float that is exactly such an integer (`3.0`); `bool` also takes `true`/`false`.
//! - float dtypes: any integer or float, rounded to nearest (ties to even); NaN and the
//!   infinities as written; a finite value beyond the type's largest finite value is an
//!   error (fp8 E4M3FN has no infinity, and for the others it is almost surely a slip).
//! - complex dtypes: a number (imaginary part 0) or `[re, im]`, each part by the float
//!   rule of the part's type (f32 for c64, f64 for c128).
//! - `u64` also takes a string of decimal digits (`"18446744073709551615"`): TOML's
//!   integers stop at 2^63 − 1, and this is the only way to write the values above.
//! - booleans are `bool` elements only; anything else (strings for other numbers, dates,
//!   tables) is an error naming the value.

use kerfx_dtype::DType;
use kerfx_dtype::scalar::{f64_to_bits, integer_to_bits};
use toml::Value;

/// The elements of a `values` list, row-major: nested lists flattened, except that for
/// complex dtypes a list of two numbers is one element.
pub fn flatten(values: &[Value], dtype: DType) -> Vec<&Value> {
    fn go<'a>(v: &'a Value, complex: bool, out: &mut Vec<&'a Value>) {
        match v {
            Value::Array(a) if !(complex && is_pair(a)) => a.iter().for_each(|x| go(x, complex, out)),
            other => out.push(other),
        }
    }
    let mut out = Vec::new();
    values.iter().for_each(|v| go(v, dtype.is_complex(), &mut out));
    out
}

/// Whether nested `values` lists are rectangular (see the module's rule); the error says
/// where they are not.
pub fn check_rectangular(values: &[Value], dtype: DType) -> Result<(), String> {
    /// Per depth, the length of its lists and whether they hold lists.
    fn go(a: &[Value], complex: bool, depth: usize, rows: &mut Vec<Option<(usize, bool)>>) -> Result<(), String> {
        let is_list = |v: &Value| matches!(v, Value::Array(x) if !(complex && is_pair(x)));
        let holds_lists = a.first().is_some_and(is_list);
        if a.iter().any(|v| is_list(v) != holds_lists) {
            return Err(ragged_mix(depth + 1));
        }
        if rows.len() <= depth {
            rows.resize(depth + 1, None);
        }
        match rows[depth] {
            None => rows[depth] = Some((a.len(), holds_lists)),
            Some((n, _)) if n != a.len() => return Err(ragged_lengths(depth + 1, n, a.len())),
            Some((_, h)) if h != holds_lists => return Err(ragged_mix(depth + 1)),
            Some(_) => {}
        }
        for v in a {
            if let Value::Array(x) = v
                && holds_lists
            {
                go(x, complex, depth + 1, rows)?;
            }
        }
        Ok(())
    }
    go(values, dtype.is_complex(), 0, &mut Vec::new())
}

/// The message for lists at `depth` (1 for the outermost) of different lengths.
pub fn ragged_lengths(depth: usize, a: usize, b: usize) -> String {
    format!(
        "ragged nested lists: at depth {depth} one list holds {a} elements and another {b} (nested lists must be rectangular)"
    )
}

/// The message for lists at `depth` holding both lists and values.
pub fn ragged_mix(depth: usize) -> String {
    format!("ragged nested lists: at depth {depth} lists and values are mixed (nested lists must be rectangular)")
}

fn is_pair(a: &[Value]) -> bool {
    a.len() == 2 && a.iter().all(|x| x.is_integer() || x.is_float())
}

/// Whether `count` values fill `shape`.
pub fn check_count(shape: &[u64], count: u64) -> Result<(), String> {
    match shape.iter().try_fold(1u64, |acc, d| acc.checked_mul(*d)) {
        None => Err(format!("shape {shape:?} holds more than 2^64 elements")),
        Some(n) if n != count => Err(format!("shape {shape:?} holds {n} elements, but {count} values are given")),
        Some(_) => Ok(()),
    }
}

/// One value as an element of the numeric or `bool` dtype `dtype`, as its bits (the
/// low bits of the result, little-endian like the tensor's bytes).
pub fn element_bits(dtype: DType, v: &Value) -> Result<u128, String> {
    let not = |e: kerfx_dtype::scalar::ConvertError| format!("not a {dtype}: {e}");
    if dtype == DType::String {
        return Err(format!("a string tensor takes strings, found {}", describe(v)));
    }
    if dtype.is_complex() {
        let part = if dtype == DType::C64 { DType::F32 } else { DType::F64 };
        let (re, im) = match v {
            Value::Array(a) if is_pair(a) => (&a[0], &a[1]),
            Value::Integer(_) | Value::Float(_) => (v, &Value::Float(0.0)),
            _ => return Err(format!("a complex value is [re, im] or a number, found {}", describe(v))),
        };
        let half = if dtype == DType::C64 { 32 } else { 64 };
        return Ok(element_bits(part, im)? << half | element_bits(part, re)?);
    }
    match v {
        Value::Boolean(b) if dtype == DType::Bool => Ok(u128::from(*b)),
        Value::String(s) if dtype == DType::U64 => match s.parse::<u64>() {
            Ok(n) if s.bytes().all(|c| c.is_ascii_digit()) => Ok(u128::from(n)),
            _ => Err(format!(
                "u64 takes numbers, or a string of decimal digits up to 18446744073709551615 for the values \
                 TOML integers cannot write, found {}",
                describe(v)
            )),
        },
        Value::Integer(i) => integer_to_bits(dtype, i128::from(*i)).map_err(not),
        Value::Float(f) => f64_to_bits(dtype, *f).map_err(not),
        other => Err(format!("{dtype} takes numbers, found {}", describe(other))),
    }
}

/// One value as an element of a `string` tensor.
pub fn string_element(v: &Value) -> Result<&str, String> {
    match v {
        Value::String(s) if s.ends_with('\0') => Err("a string ending with NUL cannot be stored (as in numpy)".into()),
        Value::String(s) => Ok(s),
        other => Err(format!("a string tensor takes strings, found {}", describe(other))),
    }
}

/// Whether `v` is an element of `dtype`.
pub fn check_element(dtype: DType, v: &Value) -> Result<(), String> {
    match dtype {
        DType::String => string_element(v).map(drop),
        _ => element_bits(dtype, v).map(drop),
    }
}

/// The message for element `i` (`v`) that `why` refuses.
pub fn element_error(i: u64, v: &Value, why: &str) -> String {
    format!("value {i} ({}): {why}", short(v))
}

/// Check an inline tensor: one element of `dtype` per element of `shape`, each by the
/// rule above.
pub fn check_values(dtype: DType, shape: &[u64], values: &[Value]) -> Result<(), String> {
    check_rectangular(values, dtype)?;
    let flat = flatten(values, dtype);
    check_count(shape, flat.len() as u64)?;
    for (i, v) in flat.into_iter().enumerate() {
        check_element(dtype, v).map_err(|m| element_error(i as u64, v, &m))?;
    }
    Ok(())
}

/// What kind of TOML value this is, for messages.
pub fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string \"{s}\""),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the float {f}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::Datetime(d) => format!("the date {d}"),
        Value::Array(_) => format!("the list {}", short(v)),
        Value::Table(_) => "a table".to_string(),
    }
}

/// A value as TOML text, cut to 60 characters.
pub fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 { format!("{}…", s.chars().take(60).collect::<String>()) } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(s: &str) -> Vec<Value> {
        toml::from_str::<toml::Table>(&format!("v = {s}")).unwrap()["v"].as_array().unwrap().clone()
    }

    fn bits(dtype: &str, s: &str) -> Result<Vec<u128>, String> {
        let d: DType = dtype.parse().unwrap();
        let v = values(s);
        flatten(&v, d).into_iter().map(|x| element_bits(d, x)).collect()
    }

    /// The strictness rule, one line per clause of the module's doc.
    #[test]
    fn one_rule_for_every_dtype() {
        // Integer dtypes: integers in range, and floats that are exactly such integers.
        assert_eq!(bits("i8", "[-128, 127, 3.0, -0.0]"), Ok(vec![0x80, 0x7f, 3, 0]));
        assert!(bits("i8", "[128]").unwrap_err().contains("range"));
        assert!(bits("i32", "[2.5]").unwrap_err().contains("whole number"));
        assert!(bits("u8", "[-1.0]").unwrap_err().contains("range"));
        assert!(bits("i64", "[nan]").unwrap_err().contains("NaN"));
        assert!(bits("i32", "[true]").unwrap_err().contains("takes numbers, found the boolean true"));
        assert_eq!(bits("i4", "[-8, 7]"), Ok(vec![8, 7]));
        // bool: booleans, 0 and 1 (and 0.0, 1.0).
        assert_eq!(bits("bool", "[true, false, 1, 0.0]"), Ok(vec![1, 0, 1, 0]));
        assert!(bits("bool", "[2]").is_err());
        // Floats: any number, rounded; beyond the largest finite value refused.
        assert_eq!(bits("bf16", "[1.0, 1]"), Ok(vec![0x3f80, 0x3f80]));
        let big = (1i64 << 60) + (1 << 36) + 1; // one rounding, not two through f64
        assert_eq!(bits("f32", &format!("[{big}]")), Ok(vec![(big as f32).to_bits() as u128]));
        assert_eq!(bits("f32", "[inf, -inf]"), Ok(vec![0x7f80_0000, 0xff80_0000]));
        assert!(bits("f16", "[1e9]").unwrap_err().contains("range"));
        assert!(bits("f8e4m3fn", "[1000.0]").unwrap_err().contains("range"));
        assert!(bits("f32", "[false]").unwrap_err().contains("takes numbers"));
        assert!(bits("f32", "[\"2\"]").unwrap_err().contains("the string \"2\""));
        // Complex: a number or [re, im], each part by the float rule of its type.
        let one = 1f32.to_bits() as u128;
        let minus_two = (-2f32).to_bits() as u128;
        assert_eq!(bits("c64", "[[1.0, -2.0], 1]"), Ok(vec![minus_two << 32 | one, one]));
        assert!(bits("c64", "[[1e300, 0]]").unwrap_err().contains("range"));
        let triple = &values("[[1.0, 2.0, 3.0]]")[0];
        assert!(element_bits(DType::C128, triple).unwrap_err().contains("[re, im]"));
        assert_eq!(bits("c128", "[[1e300, 0]]"), Ok(vec![1e300f64.to_bits() as u128]));
        // u64 beyond i64: a string of decimal digits, and nothing else in a string.
        assert_eq!(
            bits("u64", "[\"18446744073709551615\", \"9223372036854775808\", 7]"),
            Ok(vec![u64::MAX as u128, 1 << 63, 7])
        );
        for bad in ["[\"18446744073709551616\"]", "[\"+1\"]", "[\"0x10\"]", "[\"\"]", "[\"1.0\"]"] {
            assert!(bits("u64", bad).unwrap_err().contains("a string of decimal digits"), "{bad}");
        }
        assert!(bits("i64", "[\"1\"]").unwrap_err().contains("takes numbers, found the string"));
        // Strings: strings only, no trailing NUL.
        assert_eq!(string_element(&values("[\"ab\"]")[0]), Ok("ab"));
        assert!(string_element(&values("[\"a\\u0000\"]")[0]).unwrap_err().contains("NUL"));
        assert!(check_element(DType::String, &values("[1]")[0]).unwrap_err().contains("takes strings"));
        assert!(element_bits(DType::String, &values("[1]")[0]).is_err());
    }

    #[test]
    fn values_fill_the_shape_row_major() {
        let d = DType::F32;
        assert_eq!(check_values(d, &[2, 2], &values("[[1, 2], [3, 4.5]]")), Ok(()));
        assert_eq!(check_values(d, &[2, 0], &values("[]")), Ok(()));
        assert_eq!(check_values(DType::C64, &[2], &values("[[1, 2], [3, 4]]")), Ok(()));
        // Ragged lists are refused, not flattened into the right count by chance.
        assert!(check_values(d, &[3], &values("[[1, 2], [3]]")).unwrap_err().contains("at depth 2 one list holds 2"));
        assert!(check_values(d, &[3], &values("[[1, 2], 3]")).unwrap_err().contains("at depth 1 lists and values"));
        assert!(check_values(d, &[3], &values("[[[1], [2]], [3]]")).unwrap_err().contains("ragged"));
        assert_eq!(check_values(DType::C64, &[3], &values("[[1, 2], 3, [4, 5]]")), Ok(()));
        assert!(check_values(DType::C64, &[1], &values("[[1, 2], [3, 4]]")).unwrap_err().contains("2 values"));
        assert!(check_values(d, &[3], &values("[1, 2]")).unwrap_err().contains("holds 3 elements, but 2"));
        assert!(check_values(d, &[u64::MAX, 2], &values("[]")).unwrap_err().contains("more than 2^64"));
        let e = check_values(DType::I32, &[2], &values("[1, 2.5]")).unwrap_err();
        assert_eq!(e, "value 1 (2.5): not a i32: it is not a whole number");
    }
}
