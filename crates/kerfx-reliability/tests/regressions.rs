//! Regression tests for every finding of the audit and of fuzzing: inputs that once
//! panicked, overflowed or allocated without bound. Each names where it was found.

use kerfx_ir::{DType, Kernel, Request, Tensor};
use kerfx_jit::Options;
use kerfx_testkit::npy_v1;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

/// Records the largest single allocation each thread asks for, so a test can assert that
/// a few bytes of input never make kerf ask for gigabytes (which aborts the process when
/// the allocation fails, and exhausts memory when it does not).
struct Largest;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only records sizes.
unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|m| m.set(m.get().max(layout.size())));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|m| m.set(m.get().max(layout.size())));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = LARGEST.try_with(|m| m.set(m.get().max(new_size)));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Largest = Largest;

/// The largest allocation made while running `f` on this thread.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|m| m.set(0));
    let out = f();
    (out, LARGEST.with(Cell::get))
}

const MIB: usize = 1 << 20;

fn read_npy(bytes: &[u8]) -> (Result<Tensor, String>, usize) {
    let (r, max) = largest_allocation(|| kerfx::npy::from_bytes(bytes, Path::new("x.npy"), None));
    (r.map_err(|e| e.to_string()), max)
}

/// Fuzzing (target `npy`, artifact oom-6034a992…): a 46-byte version-2 file whose header
/// length field says 3.6 GB made npyz allocate that much before reading.
#[test]
fn npy_header_length_field_is_not_trusted() {
    let bytes: &[u8] = &[
        147, 78, 85, 77, 80, 89, 2, 0, 48, 0, 101, 216, 104, 115, 39, 58, 32, 40, 49, 44, 32, 52, 52, 52, 52, 0, 0, 0,
        51, 41, 44, 0, 0, 0, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 0,
    ];
    let (r, max) = read_npy(bytes);
    let e = r.unwrap_err();
    assert!(e.contains("header claims"), "{e}");
    assert!(max < MIB, "allocated {max} bytes for a 46-byte file");
}

/// Audit of kerfx::npy: a header promising 8 GB of f64 data with none following used to
/// allocate (and zero) the whole tensor before finding the file truncated.
#[test]
fn npy_data_is_not_allocated_before_it_is_read() {
    let bytes = npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }", &[0; 16]);
    let (r, max) = read_npy(&bytes);
    let e = r.unwrap_err();
    assert!(e.contains("truncated") && e.contains("the file holds 16"), "{e}");
    assert!(max < MIB, "allocated {max} bytes for a {}-byte file", bytes.len());

    // The same for strings: a billion 1000-character strings promised, none given.
    let bytes = npy_v1("{'descr': '<U1000', 'fortran_order': False, 'shape': (1000000000,), }", b"a\0\0\0");
    let (r, max) = read_npy(&bytes);
    let e = r.unwrap_err();
    assert!(e.contains("truncated"), "{e}");
    assert!(max < MIB, "allocated {max} bytes for a {}-byte file", bytes.len());

    // Zero-width strings: any count fits in no data at all; refused by name.
    let bytes = npy_v1("{'descr': '<U0', 'fortran_order': False, 'shape': (1000000000000,), }", b"");
    let (r, max) = read_npy(&bytes);
    let e = r.unwrap_err();
    assert!(e.contains("no width"), "{e}");
    assert!(max < MIB, "allocated {max} bytes");

    // A shape whose byte count overflows.
    let bytes = npy_v1("{'descr': '<c16', 'fortran_order': False, 'shape': (2305843009213693952, 4), }", b"");
    let (r, _) = read_npy(&bytes);
    assert!(r.unwrap_err().contains("too large"));
}

#[test]
fn npy_good_files_still_read() {
    let data: Vec<u8> = (0..6i32).flat_map(|v| v.to_le_bytes()).collect();
    let t = kerfx::npy::from_bytes(
        &npy_v1("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", &data),
        Path::new("x.npy"),
        None,
    )
    .unwrap();
    assert_eq!(t.shape(), &[2, 3]);
    // Fortran order: element [0, 1] is the third stored value.
    assert_eq!(t.element_i128(1), Some(2));
    let s = kerfx::npy::from_bytes(
        &npy_v1("{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }", b"a\0\0\0b\0\0\0c\0\0\0\0\0\0\0"),
        Path::new("x.npy"),
        None,
    )
    .unwrap();
    assert_eq!(s.strings().unwrap().to_vec(), ["ab", "c"]);
}

fn empty_leading_axis(shape: &[u64]) -> Request {
    let n = shape.len();
    Request::new("tensorrt.slice")
        .input("input", Tensor::zeros(DType::I32, shape).unwrap())
        .attr("start", vec![0; n])
        .attr("size", vec![1; n])
        .attr("stride", vec![1; n])
        .attr("mode", "fill")
        .input("fill", Tensor::scalar_bits(DType::I32, 7))
}

/// Audit of kerfx-ir (reference.rs): the input strides of [0, 2^40, 2^40] overflowed u64
/// ("attempt to multiply with overflow"), though an empty input reads nothing.
#[test]
fn reference_with_an_empty_leading_axis_and_huge_inner_axes() {
    let out = kerfx::run_reference(&empty_leading_axis(&[0, 1 << 40, 1 << 40])).unwrap();
    assert_eq!(out.shape(), &[1, 1, 1]);
    assert_eq!(out.element_i128(0), Some(7));
}

/// Audit of kerfx-ir (schedule.rs): the same with inner axes whose product overflows i128.
#[test]
fn schedule_and_jit_with_an_empty_leading_axis_and_huge_inner_axes() {
    let req = empty_leading_axis(&[0, 1 << 60, 1 << 60, 1 << 60]);
    let plan = kerfx_ir::lower(&req).unwrap();
    kerfx_ir::schedule::schedule(&plan).unwrap();
    let jit = kerfx_jit::Jit::default();
    for k in [jit.compile(&plan, &Options::STATIC).unwrap(), jit.compile(&plan, &Options::DYNAMIC).unwrap()] {
        let mut out = [0u8; 4];
        k.run_bytes(Some(&[]), &mut out).unwrap();
        assert_eq!(i32::from_le_bytes(out), 7);
    }
}

/// Audit of kerfx::npy (found by the test above): npyz computes the element count and the
/// strides of the header's shape with unchecked multiplication, which panicked for shapes
/// whose partial products overflow, even with a zero making the volume 0.
#[test]
fn npy_shapes_whose_products_overflow_are_refused_not_panicked_on() {
    for shape in ["(1000000000000, 1000000000000)", "(0, 1099511627776, 1099511627776)", "(4294967296, 4294967297, 0)"]
    {
        let bytes = npy_v1(&format!("{{'descr': '<i4', 'fortran_order': False, 'shape': {shape}, }}"), b"");
        let e = std::panic::catch_unwind(|| read_npy(&bytes).0).unwrap_or_else(|_| panic!("{shape}: panicked"));
        assert!(e.unwrap_err().contains("overflows"), "{shape}");
    }
    // Fortran order too.
    let bytes = npy_v1("{'descr': '<i4', 'fortran_order': True, 'shape': (1099511627776, 1099511627776, 0), }", b"");
    assert!(read_npy(&bytes).0.unwrap_err().contains("overflows"));
}

/// Audit of kerfx::ndarray: `run`, the allocating convenience, panicked ("small") on a
/// kernel whose output cannot be allocated, and multiplied the shape unchecked.
#[test]
fn ndarray_run_refuses_an_output_it_cannot_allocate() {
    let req = Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[4])
        .attr("start", [0])
        .attr("size", [1i64 << 42])
        .attr("stride", [0])
        .attr("mode", "wrap");
    let kernel = kerfx_jit::Jit::default().compile(&req, &Options::STATIC).unwrap();
    let input = ndarray::Array1::<f32>::zeros(4);
    let r = std::panic::catch_unwind(|| kerfx::ndarray::run(kernel.as_ref(), Some(input.view())))
        .unwrap_or_else(|_| panic!("kerfx::ndarray::run panicked"));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("too large"), "{e}");
}

/// Audit of kerfx-ir (reference.rs): a `TensorView` (public fields) whose strings are fewer
/// than its shape holds, or whose data kind disagrees with its dtype, made the reference
/// index out of bounds or hit `expect("string output")`.
#[test]
fn reference_refuses_inconsistent_views() {
    use kerfx_ir::tensor::{TensorView, ViewData};
    let req = Request::new("onnx.slice")
        .input_meta("data", DType::String, &[3])
        .input("starts", Tensor::from_i64s(&[0]))
        .input("ends", Tensor::from_i64s(&[3]));
    let plan = kerfx_ir::lower(&req).unwrap();
    let two = kerfx::Strings::from_strs(&["a", "b"]).unwrap();
    let short = TensorView { dtype: DType::String, shape: &[3], data: ViewData::Strings(&two) };
    let bytes = TensorView { dtype: DType::String, shape: &[3], data: ViewData::Bytes(&[1, 2, 3]) };
    for view in [short, bytes] {
        let r = std::panic::catch_unwind(|| kerfx_ir::reference::evaluate(&plan, Some(view)))
            .unwrap_or_else(|_| panic!("the reference panicked on {view:?}"));
        assert!(r.unwrap_err().to_string().contains("does not hold"));
    }
    // A byte plan given strings.
    let req = Request::new("onnx.slice")
        .input_meta("data", DType::U8, &[2])
        .input("starts", Tensor::from_i64s(&[0]))
        .input("ends", Tensor::from_i64s(&[2]));
    let plan = kerfx_ir::lower(&req).unwrap();
    let view = TensorView { dtype: DType::U8, shape: &[2], data: ViewData::Strings(&two) };
    let r = std::panic::catch_unwind(|| kerfx_ir::reference::evaluate(&plan, Some(view)))
        .unwrap_or_else(|_| panic!("the reference panicked"));
    assert!(r.is_err());
}

/// Fuzzing (target `npy`, artifact timeout-5fedbef5…): a 310-byte file whose header nests
/// 90 braces made npyz's backtracking header grammar run for hours (exponential in the
/// depth). Headers deeper than 4 are refused; within that, 10,000 bytes of the worst
/// nesting parse in milliseconds.
#[test]
fn npy_deeply_nested_headers_are_refused_quickly() {
    let bytes = include_bytes!("data/npy_nested_header.npy");
    let t = std::time::Instant::now();
    let e = read_npy(bytes).0.unwrap_err();
    assert!(e.contains("nests brackets"), "{e}");
    // Balanced groups at the deepest accepted nesting, filling the largest header.
    for group in ["{{{}}}", "[[[]]]", "((()))", "{[{}]}"] {
        let base = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': [";
        let n = (9900 - base.len()) / (group.len() + 2);
        let header = format!("{base}{}]}}", vec![group; n].join(", "));
        let _ = read_npy(&npy_v1(&header, &[0; 8]));
    }
    assert!(t.elapsed().as_secs() < 5, "took {:?}", t.elapsed());
}

/// The header checks read the header text only: not the binary data after it (a valid
/// file whose data holds bracket bytes or the text of a huge shape reads), and not the
/// length field before it (a header of 2,614 bytes has 0x0a, a newline, in its length).
#[test]
fn npy_header_checks_see_the_header_and_nothing_else() {
    let mut data = vec![b'('; 400];
    data.extend(b"'shape': (99999999999, 99999999999), ");
    data.resize(448, b'{');
    let t = kerfx::npy::from_bytes(
        &npy_v1("{'descr': '|u1', 'fortran_order': False, 'shape': (448,), }", &data),
        Path::new("x.npy"),
        None,
    )
    .unwrap();
    assert_eq!(t.bytes().unwrap(), data.as_slice());

    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': {}", "{".repeat(90));
    header.extend(std::iter::repeat_n(' ', 2613 - header.len()));
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    assert_eq!(bytes[9], b'\n', "the length field holds a newline byte");
    bytes.extend(header.as_bytes());
    bytes.extend([0u8; 4]);
    let t0 = std::time::Instant::now();
    let e = read_npy(&bytes).0.unwrap_err();
    assert!(e.contains("nests brackets"), "{e}");
    assert!(t0.elapsed().as_secs() < 5);
}

/// A request whose every axis wraps a 1-element input, of any rank: size 2 on the first
/// 16 axes, 1 on the others.
fn wrap_of_one_element(rank: usize) -> Request {
    Request::new("tensorrt.slice")
        .input_meta("input", DType::I8, &vec![1; rank])
        .attr("start", vec![-1; rank])
        .attr("size", (0..rank).map(|k| if k < 16 { 2 } else { 1 }).collect::<Vec<i64>>())
        .attr("stride", vec![1; rank])
        .attr("mode", "wrap")
}

/// Audit of kerfx-jit (issue 10, finding 4): dynamic kernels emitted the next dim's code
/// twice per dim — a 1-element wrap input of rank 14 took 116 s and 3.9 GB, rank 16
/// aborted, `kerf clif --dynamic` printed 39 MB of IR at rank 12. Code now grows linearly
/// with the rank and ranks above 63 share the depth-63 kernel.
#[test]
fn dynamic_kernels_of_high_rank_are_small() {
    let jit = kerfx_jit::Jit::default();
    let mut lines = Vec::new();
    for rank in [12usize, 14, 16, 64, 200] {
        let req = wrap_of_one_element(rank);
        let plan = kerfx_ir::lower(&req).unwrap();
        let (k, max) = largest_allocation(|| jit.compile(&plan, &Options::DYNAMIC).unwrap());
        assert!(max < 16 * MIB, "rank {rank}: allocated {max} bytes compiling");
        let mut out = vec![0u8; 1 << rank.min(16)];
        if rank <= 16 {
            k.run_bytes(Some(&[42]), &mut out).unwrap();
            assert!(out.iter().all(|&b| b == 42), "rank {rank}");
        }
        lines.push(k.clif().lines().count());
    }
    // 12 → 14 → 16 add the same code per dim; 64 and 200 are the depth-63 kernel.
    assert_eq!(lines[1] - lines[0], lines[2] - lines[1], "{lines:?}");
    assert_eq!(lines[3], lines[4], "{lines:?}");
    assert!(lines[3] < lines[0] * 8, "{lines:?}");
}

/// Audit (issue 10, finding 4): an ONNX slice of an input with 1,000 unit axes took 48 s
/// on a dynamic kernel.
#[test]
fn onnx_slice_of_a_thousand_unit_axes_is_cheap_dynamically() {
    let mut shape = vec![1u64; 1000];
    shape[500] = 6;
    let req = Request::new("onnx.slice")
        .input_meta("data", DType::F32, &shape)
        .input("starts", Tensor::from_i64s(&[1]))
        .input("ends", Tensor::from_i64s(&[5]))
        .input("axes", Tensor::from_i64s(&[500]));
    let plan = kerfx_ir::lower(&req).unwrap();
    let jit = kerfx_jit::Jit::default();
    let (k, max) = largest_allocation(|| jit.compile(&plan, &Options::DYNAMIC).unwrap());
    assert!(max < 16 * MIB, "allocated {max} bytes compiling");
    let input: Vec<u8> = (0..6f32 as i32).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let mut out = vec![0u8; 16];
    k.run_bytes(Some(&input), &mut out).unwrap();
    assert_eq!(out, input[4..20]);
    assert!(k.argument_words() < 1000);
}

/// Audit (issue 10, finding 5): wrap/reflect of a 3-element i8 input to 10^8 elements
/// took 2.45 GB (JIT) and 3.13 GB (dynamic) for a 100 MB output — index tables of 16–32
/// bytes per output element. Now nothing but the output grows with the output.
#[test]
fn repeating_a_tiny_input_allocates_nothing_per_output_element() {
    let n = 100_000_000u64;
    let jit = kerfx_jit::Jit::default();
    let input = [7u8, 8, 9];
    let mut out = vec![0u8; n as usize];
    for (mode, start, want) in [
        ("wrap", 0i64, [7u8, 8, 9, 7, 8, 9, 7, 8]),
        ("reflect", 0, [7, 8, 9, 8, 7, 8, 9, 8]),
        ("reflect", -1, [8, 7, 8, 9, 8, 7, 8, 9]),
    ] {
        let req = Request::new("tensorrt.slice")
            .input_meta("input", DType::I8, &[3])
            .attr("start", [start])
            .attr("size", [n as i64])
            .attr("stride", [1])
            .attr("mode", mode);
        let plan = kerfx_ir::lower(&req).unwrap();
        for dynamic in [false, true] {
            out.fill(0);
            let (r, max) = largest_allocation(|| {
                let k = jit.compile(&plan, &Options::dynamic(dynamic)).unwrap();
                k.run_bytes(Some(&input), &mut out)
            });
            r.unwrap();
            assert!(max < MIB, "{mode} dynamic={dynamic}: allocated {max} bytes");
            let p = want.len() - if mode == "wrap" { 5 } else { 4 };
            for at in [0usize, 1, 2, 3, 1000, 65_537, n as usize - 8] {
                for i in at..at + 8 {
                    assert_eq!(out[i], want[i % p], "{mode} dynamic={dynamic} at {i}");
                }
            }
        }
    }
}

/// Audit (issue 10, finding 5): `kerf expand` of a wrap to 10^7 elements printed 34.6 MB
/// of Rust (a literal table entry per output element) and took 4.9 GB.
#[test]
fn expanding_a_wrap_to_ten_million_elements_is_small() {
    let req = Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[3])
        .attr("start", [-1])
        .attr("size", [10_000_000])
        .attr("stride", [1])
        .attr("mode", "wrap");
    let (text, max) = largest_allocation(|| kerfx_codegen::expand_request(&req, "Big").unwrap());
    assert!(text.len() < 16_000, "{} bytes", text.len());
    assert!(max < MIB, "allocated {max} bytes");
}

/// Issue 20: `JitSettings.threads` was unbounded (100,000 threads turned an 8 ms copy into
/// 6.3 s, one OS thread spawned per chunk owner). `Jit::new` refuses more than
/// `MAX_THREADS`, naming the setting; at the cap a call is still exact (and spawns no more
/// threads than its megabytes of work: `threads_follow_the_work` in kerfx-jit).
#[test]
fn jit_threads_are_capped() {
    use kerfx_jit::{Jit, JitSettings, MAX_THREADS};
    let e = Jit::new(JitSettings { threads: 100_000, cache_capacity: 8 }).err().expect("refused").to_string();
    assert!(e.contains("JitSettings.threads = 100000") && e.contains(&MAX_THREADS.to_string()), "{e}");
    assert!(Jit::new(JitSettings { threads: MAX_THREADS + 1, cache_capacity: 8 }).is_err());
    let jit = Jit::new(JitSettings { threads: MAX_THREADS, cache_capacity: 8 }).unwrap();
    let req = Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[1024, 1024])
        .attr("start", [1, 0])
        .attr("size", [1000, 1024])
        .attr("stride", [1, 1]);
    let plan = kerfx_ir::lower(&req).unwrap();
    let input: Vec<u8> = (0..1024 * 1024u32).flat_map(|v| v.to_le_bytes()).collect();
    let want = kerfx_reliability::reference_bytes(&plan, Some(&input)).unwrap();
    let mut out = vec![0u8; want.len()];
    jit.compile(&plan, &Options::STATIC).unwrap().run_bytes(Some(&input), &mut out).unwrap();
    assert!(out == want);
}

/// Issue 20: the reference accepted a `TensorView` whose buffer is longer than its shape
/// holds (and read a shorter one until an element fell outside); the JIT's kernels refuse
/// both. A view's data must be exactly its dtype and shape's.
#[test]
fn reference_refuses_views_of_the_wrong_length() {
    use kerfx_ir::tensor::{TensorView, ViewData};
    let req = Request::new("tensorrt.slice")
        .input_meta("input", DType::I4, &[3])
        .attr("start", [0])
        .attr("size", [3])
        .attr("stride", [1]);
    let plan = kerfx_ir::lower(&req).unwrap();
    let fused = kerfx::chain::lower_chain(&kerfx::chain::ChainRequest { steps: vec![req.clone()] })
        .unwrap()
        .fused()
        .unwrap()
        .clone();
    for bytes in [&[0x21, 0x03][..], &[0x21, 0x03, 0x00], &[0x21]] {
        let view = TensorView { dtype: DType::I4, shape: &[3], data: ViewData::Bytes(bytes) };
        let slice = kerfx_ir::reference::evaluate(&plan, Some(view));
        let chain = kerfx_ir::map::evaluate(&fused, Some(view));
        if bytes.len() == 2 {
            assert_eq!(slice.unwrap().bytes(), Some(&[0x21, 0x03][..]));
            assert_eq!(chain.unwrap().bytes(), Some(&[0x21, 0x03][..]));
        } else {
            for e in [slice.unwrap_err().to_string(), chain.unwrap_err().to_string()] {
                assert!(e.contains(&format!("its data ({} bytes) does not hold the i4 [3]", bytes.len())), "{e}");
            }
        }
    }
}

/// Audit (issue 20, finding 3): a reflect slice whose step is coprime to 2d − 2 takes an
/// index table of one period (2,000,004 entries here), which `kerf expand` and the derive
/// printed as a literal array: 18.4 MB of Rust (and 4.8 GB, then an abort, at 10^7
/// elements). The generated code now computes the table from its rule, once.
#[test]
fn expanding_a_reflect_index_table_of_two_million_entries_is_small() {
    let req = Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[1_000_003])
        .attr("start", [-5])
        .attr("size", [3_000_000])
        .attr("stride", [7])
        .attr("mode", "reflect");
    let nest = kerfx_ir::Step::map(match &kerfx_ir::lower(&req).unwrap() {
        kerfx_ir::Plan::Step(p) => p,
        _ => unreachable!("a slice"),
    })
    .and_then(|m| kerfx_ir::schedule::map_nest(&m))
    .unwrap();
    assert!(matches!(&nest.dims[0].indexing, kerfx_ir::schedule::Indexing::Table(t) if t.len() == 2_000_004), "{nest}");
    let text = kerfx_codegen::expand_request(&req, "Big").unwrap();
    assert!(text.len() < 20_000, "{} bytes", text.len());
    // The rule (mode, start, step, window, no list of coordinates) and the period, where
    // the entries were.
    assert!(text.contains(r#"&[("reflect", -5, 7, 0, 1000003, &[])]"#) && text.contains("2000004usize"), "{text}");
}
