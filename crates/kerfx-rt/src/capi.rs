//! The planner's C functions (`kerf_rt1_plan_*`, declared in `kerf_rt.h`): build an
//! immutable plan of a dynamic kernel from flat arrays, read its buffer sizes and output
//! shape, run it through the kernel's entry point, free it; and the calling thread's last
//! planner message. Every function checks its pointers, returns a status code and never
//! unwinds: a panic (which would be a bug) is caught and reported as `KERF_ERR_INVALID`.
//!
//! Callers are the objects `kerf aot` writes: their typed constructor `<lib>_<k>_plan`
//! passes its kernel's descriptor ([`KernelDesc`], in the object) and the parameters as
//! an array of [`ParamDesc`] on its stack; their entry point `<lib>_<k>` passes the plan,
//! the same descriptor (a plan built for another kernel is refused: `KERF_ERR_PLAN_KIND`)
//! and the kernel's code.

use crate::dynamic::MoveKey;
use crate::plan::{self, PlanError, Template};
use crate::status;
use kerfx_ir::map::Kind;
use std::cell::RefCell;
use std::ffi::{CStr, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A dynamic kernel as an object describes it (`kerf_rt1_kernel`, 32 bytes): the ABI
/// major it was written for, the key its code was compiled for (kind bits: 1 fills, 2
/// repeats; dtype name; depth) and its request template ([`Template::encode`]).
#[repr(C)]
pub struct KernelDesc {
    /// [`crate::ABI_MAJOR`].
    pub abi_major: u32,
    /// Bit 0: the map may fill; bit 1: its dims may repeat or be tables.
    pub kind: u32,
    /// Loop depth of the code.
    pub depth: u64,
    /// The dtype's name, NUL-terminated.
    pub dtype: *const c_char,
    /// The request template's text, NUL-terminated.
    pub request: *const c_char,
}

/// One parameter's values (`kerf_rt1_param`, 16 bytes): `count` i64 values at `values`
/// (which may be NULL when `count` is 0).
#[repr(C)]
pub struct ParamDesc {
    /// The values.
    pub values: *const i64,
    /// How many.
    pub count: usize,
}

const _: () = assert!(std::mem::size_of::<KernelDesc>() == 32 && std::mem::size_of::<ParamDesc>() == 16);

/// `kerf_rt1_kernel.kind`'s bits.
pub const KIND_FILLS: u32 = 1;
/// See [`KIND_FILLS`].
pub const KIND_REPEATS: u32 = 2;

/// A map kind as `kerf_rt1_kernel.kind`'s bits.
pub fn kind_bits(kind: Kind) -> u32 {
    (if kind.fills { KIND_FILLS } else { 0 }) | (if kind.repeats { KIND_REPEATS } else { 0 })
}

/// A plan handle (`kerf_rt1_plan`): the plan and the descriptor of the kernel it was
/// built for, behind a mark that [`plan_free`] clears (so that a pointer to something
/// else, or to a freed plan whose memory was not reused, is mostly refused rather than
/// read as a plan).
pub struct PlanHandle {
    magic: u64,
    kernel: *const KernelDesc,
    plan: plan::Plan,
}

/// [`PlanHandle`]'s mark of a live plan.
const PLAN_MAGIC: u64 = u64::from_le_bytes(*b"kerfplan");

impl PlanHandle {
    /// The plan.
    pub fn plan(&self) -> &plan::Plan {
        &self.plan
    }
}

/// The calling thread's last planner message (empty after a success): what
/// [`plan_error`] copies, for Rust callers.
pub fn last_message() -> String {
    LAST.with(|l| l.borrow().clone())
}

/// The kernel code's signature (kerf's kernel ABI: input, output, argument block, lo, hi).
pub type KernelCode = unsafe extern "C" fn(*const u8, *mut u8, *const i64, i64, i64);

thread_local! {
    /// The calling thread's last planner message (empty after a success).
    static LAST: RefCell<String> = const { RefCell::new(String::new()) };
}

fn remember(message: &str) {
    LAST.with(|l| {
        let mut l = l.borrow_mut();
        l.clear();
        l.push_str(message);
    });
}

/// Fail with `status` and `message` (remembered for [`plan_error`]).
fn fail(status: i32, message: &str) -> i32 {
    remember(message);
    status
}

/// The key and template a descriptor states; errors name what is wrong with it.
///
/// # Safety
/// `kernel` is NULL or points to a descriptor whose strings are NUL-terminated.
unsafe fn read_desc(kernel: *const KernelDesc) -> Result<(MoveKey, Template), PlanError> {
    // SAFETY: `kernel` is NULL (None here) or a descriptor (the caller vouches).
    let Some(k) = (unsafe { kernel.as_ref() }) else {
        return Err(PlanError::new(status::NULL, "no kernel descriptor"));
    };
    if k.abi_major != crate::ABI_MAJOR || k.dtype.is_null() || k.request.is_null() {
        return Err(PlanError::new(status::PLAN_KIND, "the kernel descriptor is not of runtime ABI 1"));
    }
    // SAFETY: non-NULL (checked) and NUL-terminated (the caller vouches: objects write them so).
    let (dtype, request) = unsafe { (CStr::from_ptr(k.dtype), CStr::from_ptr(k.request)) };
    let invalid = |what: &str| PlanError::new(status::PLAN_KIND, format!("the kernel descriptor's {what}"));
    let dtype = dtype.to_str().ok().and_then(|d| d.parse().ok()).ok_or_else(|| invalid("dtype"))?;
    let template = request.to_str().ok().and_then(|r| Template::decode(r).ok()).ok_or_else(|| invalid("request"))?;
    let kind = Kind { fills: k.kind & KIND_FILLS != 0, repeats: k.kind & KIND_REPEATS != 0 };
    let depth = usize::try_from(k.depth).map_err(|_| invalid("depth"))?;
    Ok((MoveKey { kind, dtype, depth }, template))
}

/// A slice of `count` elements at `ptr`, or the status for a NULL pointer with a count.
///
/// # Safety
/// `ptr` is NULL or valid for `count` elements.
unsafe fn slice_of<'a, T>(ptr: *const T, count: usize, what: &str) -> Result<&'a [T], PlanError> {
    if count == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(PlanError::new(status::NULL, format!("{what} is NULL with a count of {count}")));
    }
    // SAFETY: non-NULL (checked), valid for `count` elements (the caller vouches).
    Ok(unsafe { std::slice::from_raw_parts(ptr, count) })
}

/// Build the plan of the kernel `kernel` from the input's `shape` (`rank` dims) and the
/// parameters (`param_count` of them at `params`, in the kernel's order), storing a new
/// plan in `*plan` (NULL on any failure). Returns `KERF_OK`, `KERF_ERR_NULL` (a NULL
/// `plan`, or a NULL array with a count), `KERF_ERR_PLAN_KIND` (a descriptor of another
/// runtime ABI), `KERF_ERR_RANK`, `KERF_ERR_PARAM`, `KERF_ERR_INVALID`, `KERF_ERR_KIND`;
/// the message is [`plan_error`]'s.
///
/// # Safety
/// `plan` is NULL or writable; `kernel` is NULL or a descriptor an object wrote; `shape`
/// and `params` are NULL or valid for `rank` and `param_count` elements, and each
/// parameter's `values` NULL or valid for its `count`.
#[unsafe(export_name = "kerf_rt1_plan_new")]
pub unsafe extern "C" fn plan_new(
    kernel: *const KernelDesc,
    shape: *const u64,
    rank: usize,
    params: *const ParamDesc,
    param_count: usize,
    plan: *mut *mut PlanHandle,
) -> i32 {
    if plan.is_null() {
        return fail(status::NULL, "the plan pointer is NULL");
    }
    // SAFETY: non-NULL (checked) and writable (the caller vouches).
    unsafe { plan.write(std::ptr::null_mut()) };
    let built = catch_unwind(AssertUnwindSafe(|| -> Result<PlanHandle, PlanError> {
        // SAFETY: the function's contract, for each pointer.
        let (key, template) = unsafe { read_desc(kernel)? };
        // SAFETY: as above.
        let shape = unsafe { slice_of(shape, rank, "the shape")? };
        // SAFETY: as above.
        let descs = unsafe { slice_of(params, param_count, "the parameter array")? };
        let mut values = Vec::with_capacity(descs.len());
        for (p, d) in descs.iter().enumerate() {
            let name = template.params.get(p).map_or("(extra)", |p| p.name.as_str());
            // SAFETY: as above.
            values.push(unsafe { slice_of(d.values, d.count, &format!("parameter `{name}`"))? });
        }
        Ok(PlanHandle { magic: PLAN_MAGIC, kernel, plan: plan::build(&key, &template, shape, &values)? })
    }));
    match built {
        Ok(Ok(handle)) => {
            remember("");
            // SAFETY: as above: `plan` is writable.
            unsafe { plan.write(Box::into_raw(Box::new(handle))) };
            status::OK
        }
        Ok(Err(e)) => fail(e.status, &e.message),
        Err(_) => fail(status::INVALID, "internal error in the planner (a bug: please report it)"),
    }
}

/// Free a plan ([`plan_new`]'s); NULL is ignored.
///
/// # Safety
/// `plan` is NULL or a plan of [`plan_new`] not yet freed, which no other call uses.
#[unsafe(export_name = "kerf_rt1_plan_free")]
pub unsafe extern "C" fn plan_free(plan: *mut PlanHandle) {
    if !plan.is_null() {
        // SAFETY: a plan of `plan_new` (Box::into_raw), freed once (the caller vouches).
        let mut owned = unsafe { Box::from_raw(plan) };
        // The cleared mark reaches memory before it is freed.
        // SAFETY: `owned` is a valid, exclusive allocation.
        unsafe { std::ptr::write_volatile(&raw mut owned.magic, 0) };
        drop(owned);
    }
}

/// Copy the calling thread's last planner message (empty after a success) into `buf`
/// (`capacity` bytes, NUL-terminated, cut to fit); returns its whole length in bytes.
///
/// # Safety
/// `buf` is NULL (then nothing is copied) or writable for `capacity` bytes.
#[unsafe(export_name = "kerf_rt1_plan_error")]
pub unsafe extern "C" fn plan_error(buf: *mut c_char, capacity: usize) -> usize {
    LAST.with(|l| {
        let l = l.borrow();
        if !buf.is_null() && capacity > 0 {
            let n = l.len().min(capacity - 1);
            // SAFETY: `buf` is writable for `capacity` > n bytes (the caller vouches); the
            // message does not overlap it (it is this thread's own string).
            unsafe {
                std::ptr::copy_nonoverlapping(l.as_ptr().cast::<c_char>(), buf, n);
                buf.add(n).write(0);
            }
        }
        l.len()
    })
}

/// The plan's fields, or `None` for NULL or a handle without the live mark.
///
/// # Safety
/// `plan` is NULL or a live plan of [`plan_new`].
unsafe fn live<'a>(plan: *const PlanHandle) -> Option<&'a PlanHandle> {
    // SAFETY: the caller's contract.
    unsafe { plan.as_ref() }.filter(|p| p.magic == PLAN_MAGIC)
}

/// Bytes of the input a plan reads (0 for NULL).
///
/// # Safety
/// `plan` is NULL or a live plan of [`plan_new`].
#[unsafe(export_name = "kerf_rt1_plan_input_bytes")]
pub unsafe extern "C" fn plan_input_bytes(plan: *const PlanHandle) -> u64 {
    // SAFETY: the function's contract.
    unsafe { live(plan) }.map_or(0, |p| p.plan.input_bytes)
}

/// Bytes of the output a plan writes (0 for NULL).
///
/// # Safety
/// `plan` is NULL or a live plan of [`plan_new`].
#[unsafe(export_name = "kerf_rt1_plan_output_bytes")]
pub unsafe extern "C" fn plan_output_bytes(plan: *const PlanHandle) -> u64 {
    // SAFETY: the function's contract.
    unsafe { live(plan) }.map_or(0, |p| p.plan.output_bytes)
}

/// The output's rank (0 for NULL); its first `capacity` dims copied to `dims` (when not
/// NULL).
///
/// # Safety
/// `plan` is NULL or a live plan of [`plan_new`]; `dims` NULL or writable for `capacity`
/// values.
#[unsafe(export_name = "kerf_rt1_plan_output_shape")]
pub unsafe extern "C" fn plan_output_shape(plan: *const PlanHandle, dims: *mut u64, capacity: usize) -> usize {
    // SAFETY: the function's contract.
    let Some(p) = (unsafe { live(plan) }) else { return 0 };
    let shape = &p.plan.output_shape;
    if !dims.is_null() {
        let n = shape.len().min(capacity);
        // SAFETY: `dims` is writable for `capacity` ≥ n values (the caller vouches).
        unsafe { std::ptr::copy_nonoverlapping(shape.as_ptr(), dims, n) };
    }
    shape.len()
}

/// Run a plan on the kernel `kernel` whose code is `code`: checks, before anything is
/// written, the plan (`KERF_ERR_PLAN` for NULL or a handle without a live plan's mark,
/// `KERF_ERR_PLAN_KIND` for a plan built for another kernel), NULL buffers that must hold bytes (`KERF_ERR_NULL`), both lengths
/// against the plan's (`KERF_ERR_INPUT_BYTES`, `KERF_ERR_OUTPUT_BYTES`) and overlap
/// (`KERF_ERR_OVERLAP`); then runs the code over the plan's whole extent.
///
/// # Safety
/// `plan` is NULL or a live plan of [`plan_new`]; `kernel` and `code` are the
/// descriptor and code of one kernel of an object (its entry point passes them);
/// `input` and `output` are NULL or valid (readable, writable) for their lengths.
#[unsafe(export_name = "kerf_rt1_plan_run")]
pub unsafe extern "C" fn plan_run(
    plan: *const PlanHandle,
    kernel: *const KernelDesc,
    code: Option<KernelCode>,
    input: *const u8,
    input_bytes: usize,
    output: *mut u8,
    output_bytes: usize,
) -> i32 {
    // SAFETY: the function's contract.
    let Some(p) = (unsafe { live(plan) }) else { return status::PLAN };
    if !std::ptr::eq(p.kernel, kernel) {
        return status::PLAN_KIND;
    }
    let Some(code) = code else { return status::PLAN_KIND };
    let plan = &p.plan;
    if (plan.input_bytes > 0 && input.is_null()) || (plan.output_bytes > 0 && output.is_null()) {
        return status::NULL;
    }
    if input_bytes as u64 != plan.input_bytes {
        return status::INPUT_BYTES;
    }
    if output_bytes as u64 != plan.output_bytes {
        return status::OUTPUT_BYTES;
    }
    let (i, o) = (input as usize, output as usize);
    if input_bytes > 0 && output_bytes > 0 && i < o.wrapping_add(output_bytes) && o < i.wrapping_add(input_bytes) {
        return status::OVERLAP;
    }
    if plan.odd_nibble && output_bytes > 0 {
        // SAFETY: `output` is non-NULL and writable for `output_bytes` > 0 bytes (checked, and the caller vouches).
        unsafe { output.add(output_bytes - 1).write(0) };
    }
    if plan.extent > 0 {
        // The argument block was encoded from a nest verified (on this plan's numbers) to
        // read only input bytes [0, input_bytes) and to write exactly [0, output_bytes)
        // over [0, extent), for code of this key (the plan's kernel is this one: checked).
        // SAFETY: by the above; and the buffers hold exactly those bytes (checked).
        unsafe { code(input, output, plan.args.as_ptr(), 0, plan.extent as i64) };
    }
    status::OK
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NULLs and a foreign ABI are named statuses, never a crash; the message is the
    /// thread's.
    #[test]
    fn bad_pointers_are_statuses() {
        let mut out: *mut PlanHandle = std::ptr::dangling_mut();
        // SAFETY: every pointer is NULL or valid.
        unsafe {
            assert_eq!(plan_new(std::ptr::null(), std::ptr::null(), 0, std::ptr::null(), 0, &mut out), status::NULL);
            assert!(out.is_null());
            assert_eq!(
                plan_new(std::ptr::null(), std::ptr::null(), 0, std::ptr::null(), 0, std::ptr::null_mut()),
                status::NULL
            );
            let desc = KernelDesc { abi_major: 2, kind: 0, depth: 1, dtype: c"f32".as_ptr(), request: c"".as_ptr() };
            assert_eq!(plan_new(&desc, std::ptr::null(), 0, std::ptr::null(), 0, &mut out), status::PLAN_KIND);
            let mut buf = [0 as c_char; 8];
            let n = plan_error(buf.as_mut_ptr(), buf.len());
            assert!(n > 7 && buf[7] == 0);
            assert_eq!(
                plan_run(std::ptr::null(), &desc, None, std::ptr::null(), 0, std::ptr::null_mut(), 0),
                status::PLAN
            );
            assert_eq!(plan_output_bytes(std::ptr::null()), 0);
            // A handle without the live mark (freed, or not a plan) is no plan.
            let empty = plan::Plan {
                args: Vec::new(),
                extent: 0,
                input_bytes: 0,
                output_bytes: 0,
                odd_nibble: false,
                output_shape: Vec::new(),
            };
            let dead = PlanHandle { magic: 0, kernel: &desc, plan: empty };
            assert_eq!(plan_run(&dead, &desc, None, std::ptr::null(), 0, std::ptr::null_mut(), 0), status::PLAN);
            let live = PlanHandle { magic: PLAN_MAGIC, ..dead };
            let other = KernelDesc { abi_major: 1, ..desc };
            assert_eq!(plan_run(&live, &other, None, std::ptr::null(), 0, std::ptr::null_mut(), 0), status::PLAN_KIND);
            plan_free(std::ptr::null_mut());
        }
    }
}
