//! Regression tests for every finding of the audit and of fuzzing: inputs that once
//! panicked, overflowed or allocated without bound. Each names where it was found.

use kerf_ir::{DType, Kernel, Request, Tensor};
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

/// A .npy file: magic, version, header length, header text padded with spaces to 64 bytes.
fn npy_v1(header: &str, data: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    while !(10 + text.len() + 1).is_multiple_of(64) {
        text.push(' ');
    }
    text.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((text.len() as u16).to_le_bytes());
    b.extend(text.as_bytes());
    b.extend(data);
    b
}

fn read_npy(bytes: &[u8]) -> (Result<Tensor, String>, usize) {
    let (r, max) = largest_allocation(|| kerf::npy::from_bytes(bytes, Path::new("x.npy"), None));
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

/// Audit of kerf::npy: a header promising 8 GB of f64 data with none following used to
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
    let t = kerf::npy::from_bytes(
        &npy_v1("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", &data),
        Path::new("x.npy"),
        None,
    )
    .unwrap();
    assert_eq!(t.shape(), &[2, 3]);
    // Fortran order: element [0, 1] is the third stored value.
    assert_eq!(t.element_i128(1), Some(2));
    let s = kerf::npy::from_bytes(
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

/// Audit of kerf-ir (reference.rs): the input strides of [0, 2^40, 2^40] overflowed u64
/// ("attempt to multiply with overflow"), though an empty input reads nothing.
#[test]
fn reference_with_an_empty_leading_axis_and_huge_inner_axes() {
    let out = kerf::run_reference(&empty_leading_axis(&[0, 1 << 40, 1 << 40])).unwrap();
    assert_eq!(out.shape(), &[1, 1, 1]);
    assert_eq!(out.element_i128(0), Some(7));
}

/// Audit of kerf-ir (schedule.rs): the same with inner axes whose product overflows i128.
#[test]
fn schedule_and_jit_with_an_empty_leading_axis_and_huge_inner_axes() {
    let req = empty_leading_axis(&[0, 1 << 60, 1 << 60, 1 << 60]);
    let plan = kerf_ir::lower(&req).unwrap();
    kerf_ir::schedule::schedule(&plan).unwrap();
    let jit = kerf_jit::Jit::default();
    for k in [jit.compile_plan(&plan).unwrap(), jit.compile_dynamic_plan(&plan).unwrap()] {
        let mut out = [0u8; 4];
        k.run_bytes(Some(&[]), &mut out).unwrap();
        assert_eq!(i32::from_le_bytes(out), 7);
    }
}

/// Audit of kerf::npy (found by the test above): npyz computes the element count and the
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

/// Audit of kerf::ndarray: `run`, the allocating convenience, panicked ("small") on a
/// kernel whose output cannot be allocated, and multiplied the shape unchecked.
#[test]
fn ndarray_run_refuses_an_output_it_cannot_allocate() {
    let req = Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[4])
        .attr("start", [0])
        .attr("size", [1i64 << 42])
        .attr("stride", [0])
        .attr("mode", "wrap");
    let kernel = kerf_jit::Jit::default().compile(&req).unwrap();
    let input = ndarray::Array1::<f32>::zeros(4);
    let r = std::panic::catch_unwind(|| kerf::ndarray::run(kernel.as_ref(), Some(input.view())))
        .unwrap_or_else(|_| panic!("kerf::ndarray::run panicked"));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("too large"), "{e}");
}

/// Audit of kerf-ir (reference.rs): a `TensorView` (public fields) whose strings are fewer
/// than its shape holds, or whose data kind disagrees with its dtype, made the reference
/// index out of bounds or hit `expect("string output")`.
#[test]
fn reference_refuses_inconsistent_views() {
    use kerf_ir::tensor::{TensorView, ViewData};
    let req = Request::new("onnx.slice")
        .input_meta("data", DType::String, &[3])
        .input("starts", Tensor::from_i64s(&[0]))
        .input("ends", Tensor::from_i64s(&[3]));
    let plan = kerf_ir::lower(&req).unwrap();
    let two = kerf::Strings::from_strs(&["a", "b"]).unwrap();
    let short = TensorView { dtype: DType::String, shape: &[3], data: ViewData::Strings(&two) };
    let bytes = TensorView { dtype: DType::String, shape: &[3], data: ViewData::Bytes(&[1, 2, 3]) };
    for view in [short, bytes] {
        let r = std::panic::catch_unwind(|| kerf_ir::reference::evaluate(&plan, Some(view)))
            .unwrap_or_else(|_| panic!("the reference panicked on {view:?}"));
        assert!(r.unwrap_err().to_string().contains("does not hold"));
    }
    // A byte plan given strings.
    let req = Request::new("onnx.slice")
        .input_meta("data", DType::U8, &[2])
        .input("starts", Tensor::from_i64s(&[0]))
        .input("ends", Tensor::from_i64s(&[2]));
    let plan = kerf_ir::lower(&req).unwrap();
    let view = TensorView { dtype: DType::U8, shape: &[2], data: ViewData::Strings(&two) };
    let r = std::panic::catch_unwind(|| kerf_ir::reference::evaluate(&plan, Some(view)))
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
    let t = kerf::npy::from_bytes(
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
