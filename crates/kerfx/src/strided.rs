//! Kernels that read and write views (strided buffers), compiled once per layout and
//! kept: the JIT's own cache holds dense plans only, and a view kernel compiles in tens
//! to hundreds of microseconds, which a call on buffers of a layout seen before should
//! not pay again. `kerfx::ndarray::run_strided` (feature `ndarray`) and the Python package's calls on
//! strided arrays share this cache.

use kerfx_ir::schedule::Strided;
use kerfx_ir::{Error, Step};
use kerfx_jit::{Jit, JitKernel, Options};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Kernels kept; past this the least recently used is dropped (its code is freed when
/// no caller holds it any more).
pub const CAPACITY: usize = 64;

/// The Jit's thread count (baked into a kernel's calls), the plan compiled, the input
/// view and the output view (`None`: contiguous row-major). Kernels do not refer to the
/// `Jit` that compiled them, so Jits of the same settings share them.
type Key = (usize, Step, Strided, Option<Strided>);

struct Cache {
    map: HashMap<Key, (Arc<JitKernel>, u64)>,
    tick: u64,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// The static kernel of `plan` reading its input through `input` and writing its
/// output through `output` (`None`: dense row-major) — [`Jit::compile`] with
/// [`Options::STATIC`]'s views — from the cache, or compiled and kept (outside the lock:
/// two threads missing the same key at once both compile, and one result is kept).
/// Run it with [`JitKernel::run_from_ptr`] (or `run_from_ptrs` for an output view).
pub fn compile(jit: &Jit, plan: &Step, input: &Strided, output: Option<&Strided>) -> Result<Arc<JitKernel>, Error> {
    let key: Key = (jit.settings().threads, plan.clone(), input.clone(), output.cloned());
    {
        let mut guard = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        let cache = guard.get_or_insert_with(|| Cache { map: HashMap::new(), tick: 0 });
        cache.tick += 1;
        let tick = cache.tick;
        if let Some((kernel, used)) = cache.map.get_mut(&key) {
            *used = tick;
            return Ok(kernel.clone());
        }
    }
    let options = Options::STATIC.input(input);
    let kernel = jit.compile(
        plan,
        &match output {
            Some(view) => options.output(view),
            None => options,
        },
    )?;
    let mut guard = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let cache = guard.get_or_insert_with(|| Cache { map: HashMap::new(), tick: 0 });
    if cache.map.len() >= CAPACITY
        && let Some(old) = cache.map.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone())
    {
        cache.map.remove(&old);
    }
    cache.tick += 1;
    let tick = cache.tick;
    cache.map.insert(key, (kernel.clone(), tick));
    Ok(kernel)
}

/// Kernels cached now (tests).
#[cfg(test)]
pub(crate) fn cached() -> usize {
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map_or(0, |c| c.map.len())
}
