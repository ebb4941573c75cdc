//! A call of a compiled kernel on caller buffers and a kernel-cache hit allocate
//! nothing: every allocation of this thread is counted around them.

use kerfx_ir::{AxisRead, BoundaryMode, DType, FillKind, FillPlan, Kernel, Linspace, Plan, Step};
use kerfx_jit::{Jit, Options};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is passed on to the system allocator unchanged; the counter is a
// const-initialized thread local, which does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract for `realloc`, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCS.with(Cell::get);
    f();
    ALLOCS.with(Cell::get) - before
}

#[test]
fn calls_and_cache_hits_allocate_nothing() {
    let jit = Jit::default();
    // W6: f32 [3, 3] -> [2, 2]; a fill-mode pad; a linspace.
    let slice = |mode, start| {
        Plan::Step(Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            dtype: DType::F32,
            input_shape: vec![3, 3],
            axes: vec![AxisRead { extent: 2, start, step: 1 }; 2],
            mode,
            fill_bits: 0,
            output_shape: vec![2, 2],
            windows: Vec::new(),
            gathered: None,
        })
    };
    let linspace = Plan::Fill(FillPlan {
        dtype: DType::F32,
        shape: vec![2, 2],
        kind: FillKind::Linspace(Linspace::Float { alpha: 1.0, beta: vec![0.5, 0.25] }),
    });
    for plan in [slice(BoundaryMode::StrictBounds, 0), slice(BoundaryMode::Fill, -1), linspace] {
        let kernel = jit.compile(&plan, &Options::STATIC).unwrap();
        let input = plan.input_shape().map(|_| vec![7u8; 36]);
        let mut out = vec![0u8; 16];
        let n = allocations(|| {
            for _ in 0..100 {
                kernel.run_bytes(input.as_deref(), &mut out).unwrap();
                drop(jit.compile(&plan, &Options::STATIC).unwrap());
            }
        });
        assert_eq!(n, 0, "{plan}");
        assert!(std::sync::Arc::ptr_eq(&kernel, &jit.compile(&plan, &Options::STATIC).unwrap()));
    }
    // The counter counts: a miss compiles (and allocates).
    assert!(allocations(|| drop(jit.compile(&slice(BoundaryMode::Clamp, 0), &Options::STATIC).unwrap())) > 0);
}
