//! `.npy` handling: every kerf dtype round-trips through a file; files numpy itself
//! wrote (tests/data/npy, made by make_fixtures.py) read with the right values, in both
//! byte orders and memory orders; bad files give one clear error naming the file.

use kerfx::npy;
use kerfx::{DType, Tensor};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// Tracks the bytes each thread has live and their peak, so a test can bound the memory
/// reading a file takes (by what it allocates, not by the process's RSS).
struct Peak;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn record(delta: isize) {
    let _ = LIVE.try_with(|l| {
        l.set(l.get() + delta);
        let _ = PEAK.try_with(|p| p.set(p.get().max(l.get())));
    });
}

// SAFETY: forwards to the system allocator; only counts sizes.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size() as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size() as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size as isize - layout.size() as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        record(-(layout.size() as isize));
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Peak = Peak;

/// The most bytes live at once while `f` runs on this thread, above what was live before.
fn peak_bytes<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, (PEAK.with(Cell::get) - base).max(0) as usize)
}

/// A version-1 `.npy` file: the header padded to 64 bytes, then `data`.
fn npy_v1(header: &str, data: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    text.push_str(&" ".repeat(63 - (10 + text.len()) % 64));
    text.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((text.len() as u16).to_le_bytes());
    b.extend(text.as_bytes());
    b.extend(data);
    b
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/npy").join(name)
}

/// A tensor of `dtype` whose element i has bits derived from i (varied, in range).
fn sample(dtype: DType, shape: &[u64]) -> Tensor {
    let mut t = Tensor::zeros(dtype, shape).unwrap();
    let n = t.len();
    if dtype == DType::String {
        let values: Vec<&str> = (0..n).map(|i| ["", "a", "bé", "日本語", "x y z"][i as usize % 5]).collect();
        return Tensor::from_strings(shape, values).unwrap();
    }
    let bytes = t.bytes_mut().unwrap();
    match dtype {
        DType::Bool => bytes.iter_mut().enumerate().for_each(|(i, b)| *b = (i % 3 == 0) as u8),
        DType::I4 | DType::U4 => bytes.iter_mut().enumerate().for_each(|(i, b)| *b = (i as u8).wrapping_mul(37)),
        _ => bytes.iter_mut().enumerate().for_each(|(i, b)| *b = (i as u8).wrapping_mul(101).wrapping_add(7)),
    }
    if matches!(dtype, DType::I4 | DType::U4) && n % 2 == 1 {
        // An odd count leaves the last high nibble zero.
        let last = bytes.len() - 1;
        bytes[last] &= 0x0f;
    }
    t
}

#[test]
fn every_dtype_round_trips_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    for dtype in DType::ALL {
        for shape in [&[][..], &[0][..], &[5][..], &[2, 3, 5][..]] {
            let t = sample(dtype, shape);
            let path = dir.path().join(format!("{dtype}.npy"));
            npy::write(&path, &t).unwrap();
            // Types numpy lacks need the request's dtype to read back (the convention).
            let natural = npy::read(&path).unwrap();
            let back = npy::read_as(&path, Some(dtype)).unwrap();
            assert_eq!(back, t, "{dtype} {shape:?}");
            let expected_natural = match dtype {
                DType::BF16 => DType::U16,
                DType::F8E4M3FN | DType::F8E5M2 | DType::U4 => DType::U8,
                DType::I4 => DType::I8,
                d => d,
            };
            assert_eq!(natural.dtype(), expected_natural, "{dtype} is stored as {}", npy::storage_descr(dtype));
            assert_eq!(natural.shape(), shape);
            // Also through memory.
            assert_eq!(npy::from_bytes(&npy::to_bytes(&t), Path::new("mem"), Some(dtype)).unwrap(), t);
        }
    }
    // Only the written files remain: no temporaries beside them.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".npy") || n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn int4_values_are_unpacked_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("i4.npy");
    let bytes = [0x78u8, 0x0f]; // -8, 7, -1 packed low nibble first
    let t = Tensor::from_bytes(DType::I4, &[3], &bytes).unwrap();
    npy::write(&path, &t).unwrap();
    let raw = npy::read(&path).unwrap();
    assert_eq!(raw.dtype(), DType::I8);
    assert_eq!(raw.bytes().unwrap(), &[0xf8, 0x07, 0xff]);
    // Out-of-range values are refused naming the element.
    let bad = Tensor::from_bytes(DType::I8, &[2], &[3, 9]).unwrap();
    npy::write(&path, &bad).unwrap();
    let e = npy::read_as(&path, Some(DType::I4)).unwrap_err().to_string();
    assert!(e.contains("element 1 is 9") && e.contains("i4.npy"), "{e}");
    // Widths must match for reinterpretation.
    let e = npy::read_as(&path, Some(DType::BF16)).unwrap_err().to_string();
    assert!(e.contains("bf16") && e.contains("<u2"), "{e}");
}

fn base_values(signed: bool) -> Vec<f64> {
    (0..24).map(|i| if signed { i as f64 - 12.0 } else { i as f64 }).collect()
}

#[test]
fn numpy_written_numeric_files() {
    for (name, dtype, signed) in [
        ("i1", DType::I8, true),
        ("u1", DType::U8, false),
        ("i2", DType::I16, true),
        ("u2", DType::U16, false),
        ("i4", DType::I32, true),
        ("u4", DType::U32, false),
        ("i8", DType::I64, true),
        ("u8", DType::U64, false),
        ("f2", DType::F16, true),
        ("f4", DType::F32, true),
        ("f8", DType::F64, true),
        ("be_i4", DType::I32, true),
        ("be_f8", DType::F64, true),
        ("fortran_i4", DType::I32, true),
    ] {
        let t = npy::read(&fixture(&format!("{name}.npy"))).unwrap();
        assert_eq!((t.dtype(), t.shape()), (dtype, &[2, 3, 4][..]), "{name}");
        let got: Vec<f64> = (0..24).map(|i| t.element_f64(i).unwrap()).collect();
        assert_eq!(got, base_values(signed), "{name}");
    }
    let b = npy::read(&fixture("b1.npy")).unwrap();
    assert_eq!(b.dtype(), DType::Bool);
    assert_eq!(b.bytes().unwrap(), (0..24).map(|i| (i % 3 == 0) as u8).collect::<Vec<_>>().as_slice());
    for (name, dtype) in [("c8", DType::C64), ("c16", DType::C128), ("be_c16", DType::C128)] {
        let t = npy::read(&fixture(&format!("{name}.npy"))).unwrap();
        assert_eq!(t.dtype(), dtype, "{name}");
        for i in 0..24u64 {
            let bits = t.element_bits(i).unwrap();
            let (re, im) = match dtype {
                DType::C64 => (f32::from_bits(bits as u32) as f64, f32::from_bits((bits >> 32) as u32) as f64),
                _ => (f64::from_bits(bits as u64), f64::from_bits((bits >> 64) as u64)),
            };
            assert_eq!((re, im), (i as f64 - 12.0, i as f64), "{name}[{i}]");
        }
    }
    let s = npy::read(&fixture("scalar_f4.npy")).unwrap();
    assert_eq!((s.dtype(), s.shape(), s.element_f64(0)), (DType::F32, &[][..], Some(1.5)));
    let e = npy::read(&fixture("empty_i8.npy")).unwrap();
    assert_eq!((e.dtype(), e.shape(), e.len()), (DType::I64, &[0, 3][..], 0));
}

#[test]
fn numpy_written_string_files() {
    let expected: Vec<String> = ["a", "bé", "", "ünï", "x y", "日本"].iter().map(|s| s.to_string()).collect();
    for name in ["unicode", "fortran_unicode"] {
        let t = npy::read(&fixture(&format!("{name}.npy"))).unwrap();
        assert_eq!((t.dtype(), t.shape()), (DType::String, &[2, 3][..]), "{name}");
        assert_eq!(t.strings().unwrap().to_vec(), expected, "{name}");
    }
    let t = npy::read(&fixture("bytes.npy")).unwrap();
    assert_eq!(t.strings().unwrap().to_vec(), ["ab", "", "xyz"]);
}

#[test]
fn bad_files_give_one_line_naming_the_file() {
    for (name, needle) in [
        ("truncated_data.npy", "truncated"),
        ("truncated_header.npy", "truncated"),
        ("trailing_bytes.npy", "corrupt"),
        ("bad_magic.npy", "not a valid .npy"),
        ("empty_file.npy", "not a valid .npy"),
        ("object.npy", "not supported"),
        ("structured.npy", "structured"),
        ("datetime.npy", "not supported"),
        ("does_not_exist.npy", "cannot open"),
    ] {
        let e = npy::read(&fixture(name)).unwrap_err().to_string();
        assert!(e.contains(name), "{name}: {e}");
        assert!(e.contains(needle), "{name}: {e}");
        assert!(!e.contains('\n'), "{name}: {e}");
    }
}

#[test]
fn writing_is_atomic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.npy");
    let old = sample(DType::F32, &[4]);
    npy::write(&path, &old).unwrap();
    // A write that cannot happen (no such directory) leaves nothing; a write into a
    // directory path fails without touching anything.
    let e = npy::write(&dir.path().join("missing/out.npy"), &old).unwrap_err().to_string();
    assert!(e.contains("missing/out.npy"), "{e}");
    let e = npy::write(dir.path(), &old).unwrap_err().to_string();
    assert!(!e.is_empty());
    assert_eq!(npy::read(&path).unwrap(), old);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("out.npy")]);
    // An ordinary file's permissions, not a temporary file's 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_ne!(mode & 0o044, 0, "mode {mode:o}: others cannot read the output");
    }
    // Replacing works.
    let new = sample(DType::I16, &[2, 2]);
    npy::write(&path, &new).unwrap();
    assert_eq!(npy::read(&path).unwrap(), new);
}

/// Reading takes memory in proportion to the data — at most twice it, plus a small fixed
/// amount — for byte strings, UTF-32 strings and Fortran order alike. (A 40 MB `|S1`
/// file once took 2.8 GB: a heap string per element; Fortran order a table of source
/// indices, 8 bytes per element.)
#[test]
fn reading_takes_memory_in_proportion_to_the_data() {
    const N: usize = 1 << 22;
    let slack = 1 << 20;
    let dir = tempfile::tempdir().unwrap();
    let s1: Vec<u8> = (0..N).map(|i| b"xyz"[i % 3]).collect();
    let u4: Vec<u8> = (0..N / 4).flat_map(|i| [0x61 + (i % 26) as u8, 0, 0, 0, 0x62, 0, 0, 0]).collect();
    let f4: Vec<u8> = (0..N as u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let files = [
        ("s1.npy", npy_v1(&format!("{{'descr': '|S1', 'fortran_order': False, 'shape': ({N},), }}"), &s1)),
        ("u2.npy", npy_v1(&format!("{{'descr': '<U2', 'fortran_order': False, 'shape': ({},), }}", N / 4), &u4)),
        (
            "f4_fortran.npy",
            npy_v1(&format!("{{'descr': '<f4', 'fortran_order': True, 'shape': (1024, {}), }}", N / 1024), &f4),
        ),
        (
            "s1_fortran.npy",
            npy_v1(&format!("{{'descr': '|S1', 'fortran_order': True, 'shape': (1024, {}), }}", N / 1024), &s1),
        ),
    ];
    for (name, bytes) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let data = bytes.len() - 128;
        let (t, peak) = peak_bytes(|| npy::read(&path).unwrap());
        assert!(peak <= 2 * data + slack, "{name}: {peak} bytes live at once for {data} bytes of data");
        // The tensor itself is no larger than the data.
        let held = t.strings().map_or_else(|| t.bytes().unwrap().len(), |s| s.bytes().len());
        assert!(held <= data, "{name}: holds {held} bytes for {data}");
    }
}

/// An inline tensor in a request file takes a copy of the text and the tensor, not a
/// tree node per value (a 10 MB `values` list once took 738 MB).
#[test]
fn inline_tensors_take_memory_in_proportion_to_the_text() {
    let n = 1 << 20;
    let list = (0..n).map(|i| (i % 100).to_string()).collect::<Vec<_>>().join(", ");
    let text = format!(
        "op = \"onnx.slice\"\n[inputs]\ndata = {{ dtype = \"f32\", values = [{list}] }}\nstarts = [0]\nends = [1]\n"
    );
    let (file, peak) = peak_bytes(|| kerfx::request_file::parse(&text, Path::new("req.toml")).unwrap());
    let tensor = 4 * n;
    assert_eq!(file.request.inputs["data"].tensor().unwrap().element_f64(123), Some(23.0));
    assert!(peak <= text.len() + 2 * tensor + (1 << 20), "{peak} bytes live at once for {} bytes of text", text.len());
}
