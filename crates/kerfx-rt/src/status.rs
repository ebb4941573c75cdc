//! The status codes kerf's C entry points return (the generated header's and
//! `kerf_rt.h`'s `KERF_*`): the checking entry points of objects written by `kerf aot`
//! and the planner's functions. One list, so that both say the same.

/// The kernel ran (or the plan was built).
pub const OK: i32 = 0;
/// A buffer that must hold bytes is NULL.
pub const NULL: i32 = 1;
/// `input_bytes` is not the kernel's input size.
pub const INPUT_BYTES: i32 = 2;
/// `output_bytes` is not the kernel's output size.
pub const OUTPUT_BYTES: i32 = 3;
/// The input and output buffers overlap.
pub const OVERLAP: i32 = 4;
/// `[lo, hi)` is not a range of `[0, extent)` with aligned bounds (a program
/// kernel's: `lo > hi` or `hi > extent`).
pub const RANGE: i32 = 5;
/// A program kernel's scratch could not be allocated (ABI 1.1).
pub const NOMEM: i32 = 6;
/// A dynamic kernel was given no plan: NULL, or not a live plan (ABI 1.3).
pub const PLAN: i32 = 7;
/// A dynamic kernel was given a plan built for another kernel (ABI 1.3).
pub const PLAN_KIND: i32 = 8;
/// The input shape's rank is not the dynamic kernel's (ABI 1.3).
pub const RANK: i32 = 9;
/// A parameter's count or value does not fit it (ABI 1.3).
pub const PARAM: i32 = 10;
/// The shape and parameters make no valid request (ABI 1.3; the message says why).
pub const INVALID: i32 = 11;
/// The shape and parameters make a plan another dynamic kernel runs (ABI 1.3).
pub const KIND: i32 = 12;

/// Every code but [`OK`]: its header name, value and meaning (the headers' `#define`s,
/// the errors of `kerfx-build`'s wrappers).
pub const ERRORS: [(&str, i32, &str); 12] = [
    ("KERF_ERR_NULL", NULL, "a buffer that must hold bytes is NULL"),
    ("KERF_ERR_INPUT_BYTES", INPUT_BYTES, "an input's length is not the kernel's input size"),
    ("KERF_ERR_OUTPUT_BYTES", OUTPUT_BYTES, "an output's length is not the kernel's output size"),
    ("KERF_ERR_OVERLAP", OVERLAP, "an output overlaps an input or another output"),
    ("KERF_ERR_RANGE", RANGE, "[lo, hi) is not an aligned range of [0, extent)"),
    ("KERF_ERR_NOMEM", NOMEM, "a program kernel's scratch could not be allocated"),
    ("KERF_ERR_PLAN", PLAN, "a dynamic kernel was given a NULL plan (or not a live plan)"),
    ("KERF_ERR_PLAN_KIND", PLAN_KIND, "a dynamic kernel was given a plan built for another kernel"),
    ("KERF_ERR_RANK", RANK, "the input shape's rank is not the dynamic kernel's"),
    ("KERF_ERR_PARAM", PARAM, "a parameter's count or value does not fit it"),
    ("KERF_ERR_INVALID", INVALID, "the shape and parameters make no valid request (see kerf_rt1_plan_error)"),
    ("KERF_ERR_KIND", KIND, "the shape and parameters make a plan of another kind than the kernel's"),
];

/// The ABI minor that introduced each code: the generated header groups them so.
pub fn since_minor(code: i32) -> u32 {
    match code {
        NOMEM => 1,
        PLAN..=KIND => 3,
        _ => 0,
    }
}
