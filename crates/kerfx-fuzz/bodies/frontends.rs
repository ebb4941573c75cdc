//! Any bytes as request TOML: parse (kerfx::request_file), lower (the four frontends),
//! schedule, and on small shapes run the reference. Nothing may panic; every failure must
//! be an error value. Inputs naming `.npy` files resolve in the fixtures directory
//! (`crate::FIXTURES`: valid, truncated and corrupt files); a path with a separator or `..` is skipped so the fuzzer never
//! opens anything outside it (a device or a FIFO would block).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Largest output (elements) the reference runs on, and largest schedule built.
const REFERENCE_LIMIT: u64 = 1 << 14;
const SCHEDULE_LIMIT: u64 = 1 << 20;

fn request_path() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| Path::new(crate::FIXTURES).join("request.toml"))
}

fn plain_name(s: &str) -> bool {
    !s.is_empty() && !s.contains("..") && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Whether every file an input could name is a plain name inside the fixtures directory.
fn paths_are_safe(text: &str) -> bool {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return true; // the request parser refuses it before reading any file
    };
    let Some(toml::Value::Table(inputs)) = table.get("inputs") else {
        return true;
    };
    inputs.values().all(|v| match v {
        toml::Value::String(s) => plain_name(s),
        toml::Value::Table(t) => match t.get("path") {
            Some(toml::Value::String(s)) => plain_name(s),
            _ => true,
        },
        _ => true,
    })
}

fn volume(shape: &[u64]) -> Option<u64> {
    kerfx_ir::tensor::volume(shape)
}

/// The target on one input: returns quietly, or panics with what went wrong.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if !paths_are_safe(text) {
        return;
    }
    let file = match kerfx::request_file::parse(text, request_path()) {
        Ok(f) => f,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let request = &file.request;
    let plan = match kerfx::lower(request) {
        Ok(p) => p,
        Err(e) => {
            let _ = file.describe_error(&e);
            return;
        }
    };
    let _ = plan.to_string();
    let out_len = volume(plan.output_shape());
    if out_len.is_some_and(|n| n <= SCHEDULE_LIMIT)
        && let Ok(kerfx_ir::schedule::Schedule::Slice(nest)) = kerfx_ir::schedule::schedule(&plan)
    {
        nest.verify().expect("a nest the schedule returns verifies");
    }
    let in_len = plan.input_shape().map(volume).unwrap_or(Some(0));
    if out_len.is_some_and(|n| n <= REFERENCE_LIMIT)
        && in_len.is_some_and(|n| n <= REFERENCE_LIMIT)
        && let Ok(t) = kerfx::run_reference(request)
    {
        assert_eq!(t.shape(), plan.output_shape(), "the reference output has the plan's shape");
        let _ = kerfx::display::format_values(&t);
    }
}
