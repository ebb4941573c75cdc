//! Kernels that read and write views (strided buffers), compiled once per layout and
//! kept: the JIT's own cache holds dense plans only, and a view kernel compiles in tens
//! to hundreds of microseconds, which a call on buffers of a layout seen before should
//! not pay again. Fused chains ([`Map`]s reading their input) are kept the same way. `kerfx::ndarray::run_strided` (feature `ndarray`) and the Python package's calls on
//! strided arrays share this cache.

use kerfx_ir::map::{Digit, Head, Kind};
use kerfx_ir::schedule::Strided;
use kerfx_ir::{DType, Error, Map, Step};
use kerfx_jit::{Jit, JitKernel, Options};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Kernels kept; past this the least recently used is dropped (its code is freed when
/// no caller holds it any more).
pub const CAPACITY: usize = 64;

/// The Jit's thread count (baked into a kernel's calls), what was compiled, the input
/// view and the output view (`None`: contiguous row-major). Kernels do not refer to the
/// `Jit` that compiled them, so Jits of the same settings share them.
type Key = (usize, Compiled, Strided, Option<Strided>);

/// What a kernel was compiled from.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Compiled {
    Step(Step),
    Map(MapKey),
}

/// A map that reads its input, as a key: every field of [`Map`] (a map's head is its
/// input's shape here; a fill head holds floats, which have no `Eq`, and such maps are
/// compiled per call).
#[derive(Clone, PartialEq, Eq, Hash)]
struct MapKey {
    dtype: DType,
    head_shape: Vec<u64>,
    kind: Kind,
    source: Vec<u64>,
    fill_bits: Vec<u128>,
    axes: Vec<Digit>,
    fixed: Vec<Digit>,
    output_shape: Vec<u64>,
}

impl MapKey {
    /// The key of `map`, `None` for a map that starts with a fill. Destructured without `..`:
    /// a field added to `Map` is a compile error here, not a kernel reused for another map.
    fn of(map: &Map) -> Option<MapKey> {
        let Map { dtype, head, kind, source, fill_bits, axes, fixed, output_shape } = map;
        let Head::Input { shape } = head else { return None };
        Some(MapKey {
            dtype: *dtype,
            head_shape: shape.clone(),
            kind: *kind,
            source: source.clone(),
            fill_bits: fill_bits.clone(),
            axes: axes.clone(),
            fixed: fixed.clone(),
            output_shape: output_shape.clone(),
        })
    }
}

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
    let key: Key = (jit.settings().threads, Compiled::Step(plan.clone()), input.clone(), output.cloned());
    cached(key, || jit.compile(plan, &options(input, output)))
}

/// [`compile`] for a fused map ([`crate::chain::lower_chain`]'s): its static kernel
/// through the views, kept as a plan's is (a map that starts with a fill, which reads no
/// input and takes no view, is compiled per call).
pub fn compile_map(jit: &Jit, map: &Map, input: &Strided, output: Option<&Strided>) -> Result<Arc<JitKernel>, Error> {
    let Some(key) = MapKey::of(map) else {
        return jit.compile(map, &options(input, output));
    };
    let key: Key = (jit.settings().threads, Compiled::Map(key), input.clone(), output.cloned());
    cached(key, || jit.compile(map, &options(input, output)))
}

/// A static kernel's options reading `input` and writing `output` (`None`: dense).
fn options<'v>(input: &'v Strided, output: Option<&'v Strided>) -> Options<'v> {
    let options = Options::STATIC.input(input);
    match output {
        Some(view) => options.output(view),
        None => options,
    }
}

/// The cached kernel of `key`, or `compile`'s (outside the lock: two threads missing the
/// same key at once both compile, and one result is kept).
fn cached(key: Key, compile: impl FnOnce() -> Result<Arc<JitKernel>, Error>) -> Result<Arc<JitKernel>, Error> {
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
    let kernel = compile()?;
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
pub(crate) fn cached_count() -> usize {
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map_or(0, |c| c.map.len())
}
