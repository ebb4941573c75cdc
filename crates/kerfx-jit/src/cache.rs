//! The kernel cache: a bounded least-recently-used map of once-computed results
//! (concurrent requests for one key run its initializer once; the others wait for its
//! result), and the key of static kernels, which a plan is looked up by without being
//! cloned.

use hashbrown::{Equivalent, HashMap};
use kerfx_ir::{BoundaryMode, Error, FillKind, FillPlan, Linspace, Plan, Step};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// A cached result: a value, or the error computing it gave.
type Res<T> = Result<T, Error>;

struct Entry<V> {
    slot: Arc<OnceLock<V>>,
    used: u64,
}

struct Inner<K, V> {
    map: HashMap<K, Entry<V>>,
    tick: u64,
}

pub(crate) struct Lru<K, T> {
    capacity: usize,
    inner: Mutex<Inner<K, Res<T>>>,
}

impl<K: Hash + Eq + Clone, T: Clone> Lru<K, T> {
    pub fn new(capacity: usize) -> Self {
        Lru { capacity, inner: Mutex::new(Inner { map: HashMap::new(), tick: 0 }) }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<K, Res<T>>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// The value of a key equivalent to `key`, if it is cached and computed (`None` while
    /// its initializer runs: [`Self::get_or_init`] waits for it).
    pub fn get<Q: Hash + Equivalent<K> + ?Sized>(&self, key: &Q) -> Option<Res<T>> {
        let mut inner = self.lock();
        let tick = inner.tick + 1;
        let e = inner.map.get_mut(key)?;
        let value = e.slot.get()?.clone();
        e.used = tick;
        inner.tick = tick;
        Some(value)
    }

    /// The value of `key`, computing it with `init` (outside the map's lock) if absent.
    /// A panic in `init` (a bug) is caught and becomes that key's error: it reaches
    /// neither the caller nor the callers waiting on the key, the key does not run its
    /// initializer again on every later call, and the other keys are untouched.
    pub fn get_or_init(&self, key: K, init: impl FnOnce() -> Res<T>) -> Res<T> {
        let slot = {
            let mut inner = self.lock();
            inner.tick += 1;
            let tick = inner.tick;
            if let Some(e) = inner.map.get_mut(&key) {
                e.used = tick;
                e.slot.clone()
            } else {
                if inner.map.len() >= self.capacity {
                    // Evict the least recently used; its value lives on in whoever holds it.
                    if let Some(old) = inner.map.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| k.clone()) {
                        inner.map.remove(&old);
                    }
                }
                let slot = Arc::new(OnceLock::new());
                inner.map.insert(key, Entry { slot: slot.clone(), used: tick });
                slot
            }
        };
        slot.get_or_init(|| {
            // The initializer builds a new value from its inputs and shares no state that
            // a panic could leave half-updated (the map's lock is not held).
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(init)).unwrap_or_else(|panic| {
                let why = panic
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("(no message)");
                Err(Error::Invalid { what: format!("jit: compiling this kernel panicked (a bug in kerf): {why}") })
            })
        })
        .clone()
    }
}

/// Cache key of a static kernel: a plan, equal to another when every field its kernel
/// and its validation depend on is equal — floats by their bits, the fill value only in
/// fill mode (elsewhere it is never read nor checked). Equal keys therefore validate
/// alike, so a plan found in the cache need not be validated again.
#[derive(Clone, Debug)]
pub(crate) struct PlanKey(Plan);

/// A plan borrowed as a [`PlanKey`]: looks the cache up without cloning the plan.
#[derive(Clone, Copy)]
pub(crate) struct PlanRef<'a>(pub(crate) &'a Plan);

/// The key of a compiled program: the program (its buffers' shapes and each move's
/// plans, input, output and box, plans compared as [`PlanKey`]s), whether its kernels
/// are dynamic, and the views of its buffers. Looked up as a [`ProgramRef`], without
/// cloning the program.
#[derive(Clone, Debug)]
pub(crate) struct ProgramKey {
    dynamic: bool,
    program: kerfx_ir::Program,
    views: crate::program::ProgramViews,
}

/// A program borrowed as a [`ProgramKey`].
#[derive(Clone, Copy)]
pub(crate) struct ProgramRef<'a> {
    pub(crate) program: &'a kerfx_ir::Program,
    pub(crate) dynamic: bool,
    pub(crate) views: &'a crate::program::ProgramViews,
}

impl ProgramKey {
    pub(crate) fn of(program: &kerfx_ir::Program, dynamic: bool, views: &crate::program::ProgramViews) -> ProgramKey {
        ProgramKey { dynamic, program: program.clone(), views: views.clone() }
    }
    fn borrow(&self) -> ProgramRef<'_> {
        ProgramRef { program: &self.program, dynamic: self.dynamic, views: &self.views }
    }
}

impl PartialEq for ProgramKey {
    fn eq(&self, other: &ProgramKey) -> bool {
        other.borrow().equivalent(self)
    }
}

impl Eq for ProgramKey {}

impl Hash for ProgramKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.borrow().hash(h)
    }
}

impl Equivalent<ProgramKey> for ProgramRef<'_> {
    fn equivalent(&self, key: &ProgramKey) -> bool {
        // Destructured whole, so that a new field cannot be left out of the key.
        let kerfx_ir::Program { dtype, inputs, outputs, moves } = self.program;
        let other = &key.program;
        self.dynamic == key.dynamic
            && *self.views == key.views
            && *dtype == other.dtype
            && *inputs == other.inputs
            && *outputs == other.outputs
            && moves.len() == other.moves.len()
            && moves.iter().zip(&other.moves).all(|(a, b)| {
                let kerfx_ir::program::Move { input, steps, output, at } = a;
                *input == b.input
                    && *output == b.output
                    && *at == b.at
                    && steps.len() == b.steps.len()
                    && steps.iter().zip(&b.steps).all(|(x, y)| same_plan(x, y))
            })
    }
}

impl Hash for ProgramRef<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        let kerfx_ir::Program { dtype, inputs, outputs, moves } = self.program;
        (self.dynamic, self.views, dtype, inputs, outputs, moves.len()).hash(h);
        for kerfx_ir::program::Move { input, steps, output, at } in moves {
            (input, output, at, steps.len()).hash(h);
            steps.iter().for_each(|p| PlanRef(p).hash(h));
        }
    }
}

impl PlanKey {
    pub(crate) fn of(plan: &Plan) -> PlanKey {
        PlanKey(plan.clone())
    }
}

impl PartialEq for PlanKey {
    fn eq(&self, other: &PlanKey) -> bool {
        PlanRef(&other.0).equivalent(self)
    }
}

impl Eq for PlanKey {}

impl Hash for PlanKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        PlanRef(&self.0).hash(h)
    }
}

impl Equivalent<PlanKey> for PlanRef<'_> {
    fn equivalent(&self, key: &PlanKey) -> bool {
        same_plan(self.0, &key.0)
    }
}

/// Whether two short slices are equal, element by element: a plan's shapes and axes
/// hold a few numbers each, and `==` on them calls libc's `memcmp`, which took most of a
/// cache hit's time (about 170 of 380 ns on TR3's plan, measured with `perf` on the
/// project's host).
#[inline]
fn same<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Whether two plans are equal as [`PlanKey`]s.
fn same_plan(a: &Plan, b: &Plan) -> bool {
    match (a, b) {
        (Plan::Step(a), Plan::Step(b)) => {
            // Destructured whole, so that a new field cannot be left out of the key.
            let Step {
                dtype,
                input_shape,
                source_shape,
                axes,
                order,
                mode,
                fill_bits,
                output_shape,
                windows,
                gathered,
            } = a;
            *dtype == b.dtype
                && *mode == b.mode
                && (*mode != BoundaryMode::Fill || *fill_bits == b.fill_bits)
                && same(input_shape, &b.input_shape)
                && same(source_shape, &b.source_shape)
                && same(axes, &b.axes)
                && same(order, &b.order)
                && same(output_shape, &b.output_shape)
                && same(windows, &b.windows)
                && *gathered == b.gathered
        }
        (Plan::Fill(a), Plan::Fill(b)) => {
            let FillPlan { dtype, shape, kind } = a;
            *dtype == b.dtype && *shape == b.shape && fill_numbers(kind).eq(fill_numbers(&b.kind))
        }
        _ => false,
    }
}

impl Hash for PlanRef<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        match self.0 {
            Plan::Step(p) => {
                let Step {
                    dtype,
                    input_shape,
                    source_shape,
                    axes,
                    order,
                    mode,
                    fill_bits,
                    output_shape,
                    windows,
                    gathered,
                } = p;
                (dtype, mode, input_shape, source_shape, axes, order, output_shape, windows, gathered).hash(h);
                if *mode == BoundaryMode::Fill {
                    fill_bits.hash(h);
                }
            }
            Plan::Fill(p) => {
                let FillPlan { dtype, shape, kind } = p;
                (dtype, shape).hash(h);
                fill_numbers(kind).for_each(|n| n.hash(h));
            }
        }
    }
}

/// A fill's kind and numbers, as words: a tag, then its floats by their bits (or its
/// integers), then (linspaces) the count of its coefficients and their words.
fn fill_numbers(kind: &FillKind) -> impl Iterator<Item = u64> + '_ {
    let (head, ints, floats): ([u64; 4], &[i64], &[f64]) = match kind {
        FillKind::Linspace(Linspace::Int { alpha, beta }) => ([0, *alpha as u64, beta.len() as u64, 0], beta, &[]),
        FillKind::Linspace(Linspace::Float { alpha, beta }) => ([1, alpha.to_bits(), beta.len() as u64, 0], &[], beta),
        FillKind::RandomUniform { alpha, beta, seed } => {
            ([2, alpha.to_bits().into(), beta.to_bits().into(), *seed], &[], &[])
        }
        FillKind::RandomNormal { alpha, beta, seed } => {
            ([3, alpha.to_bits().into(), beta.to_bits().into(), *seed], &[], &[])
        }
    };
    head.into_iter().chain(ints.iter().map(|&b| b as u64)).chain(floats.iter().map(|b| b.to_bits()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerfx_ir::{AxisRead, DType, FillPlan};
    use std::hash::BuildHasher;

    fn slice(mode: BoundaryMode, fill_bits: u128) -> Plan {
        Plan::Step(Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            dtype: DType::F32,
            input_shape: vec![3, 3],
            axes: vec![AxisRead { extent: 2, start: 0, step: 1 }; 2],
            mode,
            fill_bits,
            output_shape: vec![2, 2],
            windows: Vec::new(),
            gathered: None,
        })
    }

    fn fill(dtype: DType, kind: FillKind) -> Plan {
        Plan::Fill(FillPlan { dtype, shape: vec![4], kind })
    }

    /// Which plans are one key: equal where the kernel and validation read, floats by
    /// their bits, the fill value only in fill mode, the kind by its tag; and a key and
    /// its borrowed plan hash alike.
    #[test]
    fn keys_equal_exactly_the_plans_one_kernel_serves() {
        let lin_f = |alpha: f64| FillKind::Linspace(Linspace::Float { alpha, beta: vec![0.5] });
        let plans = [
            // 0 and 1: the fill value outside fill mode is never read: one key.
            slice(BoundaryMode::Clamp, 0),
            slice(BoundaryMode::Clamp, 5),
            slice(BoundaryMode::Fill, 0),
            slice(BoundaryMode::Fill, 5),
            slice(BoundaryMode::Wrap, 0),
            // 5 and 6: 0.0 and -0.0 differ in their first value's bits.
            fill(DType::F32, lin_f(0.0)),
            fill(DType::F32, lin_f(-0.0)),
            // 7 and 8: NaN is one key with itself (its bits), unlike f64's equality.
            fill(DType::F32, lin_f(f64::NAN)),
            fill(DType::F32, lin_f(f64::NAN)),
            // The same words under another kind or dtype.
            fill(DType::I32, FillKind::Linspace(Linspace::Int { alpha: 0, beta: vec![0] })),
            fill(DType::F32, FillKind::Linspace(Linspace::Float { alpha: 0.0, beta: vec![0.0] })),
            fill(DType::F32, FillKind::RandomUniform { alpha: 0.0, beta: 1.0, seed: 7 }),
            fill(DType::F32, FillKind::RandomNormal { alpha: 0.0, beta: 1.0, seed: 7 }),
            fill(DType::F16, FillKind::RandomNormal { alpha: 0.0, beta: 1.0, seed: 7 }),
            fill(DType::F16, FillKind::RandomNormal { alpha: 0.0, beta: 1.0, seed: 8 }),
        ];
        let same = |i: usize, j: usize| i == j || matches!((i.min(j), i.max(j)), (0, 1) | (7, 8));
        let hasher = hashbrown::DefaultHashBuilder::default();
        for (i, a) in plans.iter().enumerate() {
            assert_eq!(hasher.hash_one(PlanRef(a)), hasher.hash_one(PlanKey::of(a)), "plan {i}");
            for (j, b) in plans.iter().enumerate() {
                assert_eq!(PlanRef(a).equivalent(&PlanKey::of(b)), same(i, j), "plans {i} and {j}");
                assert_eq!(PlanKey::of(a) == PlanKey::of(b), same(i, j), "keys {i} and {j}");
            }
        }
    }

    /// Programs are one key exactly when their dynamic flag, shapes and moves (inputs,
    /// outputs, boxes, plans as plan keys) are; a key and its borrowed program hash alike.
    #[test]
    fn program_keys_equal_exactly_the_programs_one_kernel_serves() {
        let mv = |input, at: u64, plan: Plan| kerfx_ir::program::Move {
            input,
            steps: vec![plan],
            output: 0,
            at: vec![at, 0],
        };
        let program = |moves| kerfx_ir::Program {
            dtype: DType::F32,
            inputs: vec![vec![3, 3]; 2],
            outputs: vec![vec![4, 2]],
            moves,
        };
        let programs = [
            program(vec![mv(Some(0), 0, slice(BoundaryMode::Clamp, 0)), mv(Some(1), 2, slice(BoundaryMode::Wrap, 0))]),
            // The same up to a fill value never read: one key with the first.
            program(vec![mv(Some(0), 0, slice(BoundaryMode::Clamp, 7)), mv(Some(1), 2, slice(BoundaryMode::Wrap, 0))]),
            program(vec![mv(Some(0), 0, slice(BoundaryMode::Clamp, 0)), mv(Some(0), 2, slice(BoundaryMode::Wrap, 0))]),
            program(vec![mv(Some(0), 2, slice(BoundaryMode::Clamp, 0)), mv(Some(1), 0, slice(BoundaryMode::Wrap, 0))]),
            program(vec![mv(Some(0), 0, slice(BoundaryMode::Clamp, 0))]),
        ];
        let hasher = hashbrown::DefaultHashBuilder::default();
        for dynamic in [false, true] {
            for (i, a) in programs.iter().enumerate() {
                let dense = crate::program::ProgramViews::default();
                let strided = crate::program::ProgramViews {
                    inputs: vec![
                        Some(kerfx_ir::schedule::Strided { offset: 0, strides: vec![3, 1], buffer_len: 9 }),
                        None,
                    ],
                    outputs: Vec::new(),
                };
                let borrowed = ProgramRef { program: a, dynamic, views: &dense };
                assert_eq!(
                    hasher.hash_one(borrowed),
                    hasher.hash_one(ProgramKey::of(a, dynamic, &dense)),
                    "program {i}"
                );
                assert!(!borrowed.equivalent(&ProgramKey::of(a, !dynamic, &dense)));
                assert!(!borrowed.equivalent(&ProgramKey::of(a, dynamic, &strided)));
                for (j, b) in programs.iter().enumerate() {
                    let same = i == j || i.max(j) == 1 && i.min(j) == 0;
                    assert_eq!(borrowed.equivalent(&ProgramKey::of(b, dynamic, &dense)), same, "programs {i} and {j}");
                }
            }
        }
    }

    #[test]
    fn get_finds_computed_values_only() {
        let lru: Lru<PlanKey, u32> = Lru::new(2);
        let get = |p: &Plan| lru.get(&PlanRef(p)).map(Result::unwrap);
        let (a, b) = (slice(BoundaryMode::Clamp, 0), slice(BoundaryMode::Wrap, 0));
        assert_eq!(get(&a), None);
        assert_eq!(lru.get_or_init(PlanKey::of(&a), || Ok(1)).unwrap(), 1);
        assert_eq!(get(&slice(BoundaryMode::Clamp, 9)), Some(1));
        assert_eq!(get(&b), None);
        // A hit counts as a use: `a`, used last, outlives `b` when a third key comes.
        lru.get_or_init(PlanKey::of(&b), || Ok(2)).unwrap();
        assert_eq!(get(&a), Some(1));
        lru.get_or_init(PlanKey::of(&slice(BoundaryMode::Reflect, 0)), || Ok(3)).unwrap();
        assert_eq!((get(&a), get(&b), lru.len()), (Some(1), None, 2));
    }

    /// A panicking initializer is that key's error, computed once: later calls get the
    /// error without running it again, and other keys work as before.
    #[test]
    fn a_panic_in_an_initializer_is_an_error_of_its_key() {
        let lru: Lru<PlanKey, u32> = Lru::new(4);
        let (a, b) = (slice(BoundaryMode::Clamp, 0), slice(BoundaryMode::Wrap, 0));
        let err = lru.get_or_init(PlanKey::of(&a), || panic!("emitter bug")).unwrap_err().to_string();
        assert!(err.contains("panicked") && err.contains("emitter bug"), "{err}");
        let again = lru.get_or_init(PlanKey::of(&a), || unreachable!("the error is cached")).unwrap_err();
        assert_eq!(again.to_string(), err);
        assert_eq!(lru.get_or_init(PlanKey::of(&b), || Ok(2)).unwrap(), 2);
    }
}
