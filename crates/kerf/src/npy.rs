//! `.npy` files ↔ [`Tensor`], through the `npyz` crate.
//!
//! # Reading
//!
//! Every numpy dtype that holds numbers or text is read: `b1` (bool), `i1`..`i8`,
//! `u1`..`u8`, `f2`, `f4`, `f8`, `c8` (complex64), `c16` (complex128), `U` (unicode
//! strings) and `S` (byte strings, which must be UTF-8), in either byte order, in C or
//! Fortran order (Fortran data is transposed to kerf's row-major layout on read).
//! Structured, object, datetime and `f16`-as-float128 arrays are refused with a message.
//!
//! # Types numpy does not have
//!
//! numpy has no bfloat16, fp8 or int4. kerf's convention (the one `ml_dtypes` users get
//! from `.view()`/`.astype()`):
//!
//! | kerf dtype | stored in the `.npy` as | how |
//! |---|---|---|
//! | `bf16` | `<u2` | the raw bits (`x.view(np.uint16)`) |
//! | `f8e4m3fn`, `f8e5m2` | `\|u1` | the raw bits (`x.view(np.uint8)`) |
//! | `i4` | `\|i1` | one value in [-8, 7] per element, unpacked (`x.astype(np.int8)`) |
//! | `u4` | `\|u1` | one value in [0, 15] per element, unpacked |
//!
//! A request names the type with the input's `dtype` key
//! (`data = { path = "x.npy", dtype = "bf16" }`), and [`read_as`] applies it: same-width
//! types are reinterpreted bit for bit, `i4`/`u4` are range-checked and packed two per
//! byte (low nibble first). [`write`] stores these types by the same table, so a file
//! kerf writes reads back with the same `dtype` key.
//!
//! # Writing
//!
//! [`write`] writes to a temporary file in the destination's directory and renames it
//! over the destination only once everything is written and synced, so an error never
//! leaves a partial file, and a reader never sees one.

use crate::error::FileError;
use kerf_ir::dtype::Layout;
use kerf_ir::{DType, Tensor};
use npyz::{Endianness, Order, TypeChar, TypeStr, WriterBuilder};
use std::io::{self, BufRead, Read, Write};
use std::path::Path;

/// The numpy type string kerf stores a dtype as (strings: `<U` + the longest length).
pub fn storage_descr(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "|b1",
        DType::I4 | DType::I8 => "|i1",
        DType::U4 | DType::U8 | DType::F8E4M3FN | DType::F8E5M2 => "|u1",
        DType::I16 => "<i2",
        DType::U16 | DType::BF16 => "<u2",
        DType::I32 => "<i4",
        DType::U32 => "<u4",
        DType::I64 => "<i8",
        DType::U64 => "<u8",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::C64 => "<c8",
        DType::C128 => "<c16",
        DType::String => "<U",
    }
}

/// The kerf dtype numpy data of this type string is read as, when the request names none.
fn natural_dtype(ts: &TypeStr) -> Result<DType, String> {
    let size = ts.size_field();
    let d = match (ts.type_char(), size) {
        (TypeChar::Bool, 1) => DType::Bool,
        (TypeChar::Int, 1) => DType::I8,
        (TypeChar::Int, 2) => DType::I16,
        (TypeChar::Int, 4) => DType::I32,
        (TypeChar::Int, 8) => DType::I64,
        (TypeChar::Uint, 1) => DType::U8,
        (TypeChar::Uint, 2) => DType::U16,
        (TypeChar::Uint, 4) => DType::U32,
        (TypeChar::Uint, 8) => DType::U64,
        (TypeChar::Float, 2) => DType::F16,
        (TypeChar::Float, 4) => DType::F32,
        (TypeChar::Float, 8) => DType::F64,
        (TypeChar::Complex, 8) => DType::C64,
        (TypeChar::Complex, 16) => DType::C128,
        (TypeChar::UnicodeStr | TypeChar::ByteStr, _) => DType::String,
        _ => {
            return Err(format!(
                "numpy dtype '{ts}' is not supported (kerf reads bool, signed and unsigned \
                 integers, float16/32/64, complex64/128 and strings)"
            ));
        }
    };
    Ok(d)
}

/// Read a `.npy` file as its own dtype (see the module docs for the mapping).
pub fn read(path: &Path) -> Result<Tensor, FileError> {
    read_as(path, None)
}

/// Read a `.npy` file; with `dtype`, apply kerf's convention for types numpy lacks
/// (reinterpret same-width bits, or pack `i4`/`u4` values).
pub fn read_as(path: &Path, dtype: Option<DType>) -> Result<Tensor, FileError> {
    let file = std::fs::File::open(path).map_err(|e| FileError::io(path, "cannot open", e))?;
    // A buffer that holds any header kerf accepts, so the checks on the first bytes see it whole.
    from_reader(io::BufReader::with_capacity(MAX_HEADER_BYTES + 16, file), path, dtype)
}

/// Read `.npy` bytes held in memory; `name` is used in error messages.
pub fn from_bytes(bytes: &[u8], name: &Path, dtype: Option<DType>) -> Result<Tensor, FileError> {
    from_reader(bytes, name, dtype)
}

/// The `descr` a header names, read leniently from the file's first bytes (for messages
/// about headers npyz refuses, e.g. object arrays).
fn descr_hint(prefix: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(prefix);
    let at = text.find("'descr':")? + "'descr':".len();
    let rest = text[at..].trim_start();
    let rest = rest.strip_prefix('\'')?;
    Some(rest[..rest.find('\'')?].to_string())
}

/// The longest header kerf reads. numpy itself refuses headers over 10,000 bytes
/// (`max_header_size`); a length field beyond this is corrupt, and trusting it would
/// allocate up to 4 GiB for a file of a few bytes.
const MAX_HEADER_BYTES: usize = 10_000;

/// The header length a `.npy` prefix declares (u16 in version 1, u32 after), if readable.
fn declared_header_len(prefix: &[u8]) -> Option<usize> {
    if prefix.get(..6)? != b"\x93NUMPY" {
        return None;
    }
    match *prefix.get(6)? {
        1 => prefix.get(8..10).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize),
        _ => prefix.get(8..12).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize),
    }
}

/// The `shape` a header names, read leniently from the file's first bytes: `None` when it
/// cannot be found or read (npyz then says what is wrong).
fn shape_hint(prefix: &[u8]) -> Option<Vec<u64>> {
    let text = String::from_utf8_lossy(prefix.get(..prefix.len().min(MAX_HEADER_BYTES + 16))?);
    let at = text.find("'shape'").or_else(|| text.find("\"shape\""))? + "'shape'".len();
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('(').or_else(|| rest.strip_prefix('['))?;
    let end = rest.find([')', ']'])?;
    rest[..end].split(',').map(str::trim).filter(|t| !t.is_empty()).map(|t| t.parse::<u64>().ok()).collect()
}

/// The deepest nesting of `(`, `[` and `{` in a header (a close never goes below zero).
const MAX_HEADER_NESTING: usize = 4;

fn max_nesting(header: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for &b in header {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The header text of a `.npy` prefix: the declared length after the length field, cut to
/// what the prefix holds; the whole prefix (up to the header limit) when it has no valid magic.
fn header_text(prefix: &[u8]) -> &[u8] {
    let start = match prefix.get(6) {
        Some(1) => 10,
        _ => 12,
    };
    match declared_header_len(prefix) {
        Some(n) => prefix.get(start..).map_or(&[][..], |t| &t[..t.len().min(n)]),
        None => &prefix[..prefix.len().min(MAX_HEADER_BYTES + 16)],
    }
}

/// Read exactly the `expected` data bytes that follow the header. Memory grows with the
/// bytes actually present, never with what a (possibly corrupt) header promises.
fn read_data<R: Read>(reader: R, expected: usize, path: &Path) -> Result<Result<Vec<u8>, usize>, FileError> {
    let mut data = Vec::new();
    reader.take(expected as u64 + 1).read_to_end(&mut data).map_err(|e| FileError::io(path, "cannot read", e))?;
    Ok(if data.len() == expected { Ok(data) } else { Err(data.len()) })
}

fn from_reader<R: BufRead>(mut reader: R, path: &Path, dtype: Option<DType>) -> Result<Tensor, FileError> {
    let bad = |detail: String| FileError::npy(path, detail);
    let prefix = reader.fill_buf().map_err(|e| FileError::io(path, "cannot read", e))?.to_vec();
    if prefix.is_empty() {
        return Err(bad("not a valid .npy file: the file is empty".into()));
    }
    if let Some(n) = declared_header_len(&prefix).filter(|&n| n > MAX_HEADER_BYTES) {
        return Err(bad(format!(
            "not a valid .npy file: its header claims {n} bytes (kerf reads headers of at most {MAX_HEADER_BYTES})"
        )));
    }
    // npyz parses the header with a backtracking (pest) grammar that takes exponential time
    // in the nesting depth: a 310-byte header of 90 nested braces ran for hours. numpy
    // writes a flat dict (structured dtypes, which kerf refuses anyway, nest a few levels).
    // Only the header text counts: the data after it is binary, and so are the length
    // fields before it (a length such as 0x0a36 holds a newline byte).
    let depth = max_nesting(header_text(&prefix));
    if depth > MAX_HEADER_NESTING {
        return Err(bad(format!(
            "not a valid .npy file: its header nests brackets {depth} deep (kerf reads at most {MAX_HEADER_NESTING})"
        )));
    }
    // npyz multiplies the shape's entries (element count, strides in either order) without
    // checking, which panics in builds with overflow checks: refuse such shapes first. The
    // product of the nonzero entries bounds every partial product.
    if let Some(shape) = shape_hint(header_text(&prefix))
        && shape.iter().filter(|&&d| d != 0).try_fold(1u64, |acc, &d| acc.checked_mul(d)).is_none()
    {
        return Err(bad(format!("shape {shape:?} in the header overflows")));
    }
    let header = npyz::NpyHeader::from_reader(&mut reader).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            bad("not a valid .npy file: truncated before the end of its header".into())
        } else if let Some(d) = descr_hint(&prefix).filter(|d| d.parse::<TypeStr>().is_err()) {
            bad(format!(
                "numpy dtype '{d}' is not supported (kerf reads bool, signed and unsigned integers, \
                 float16/32/64, complex64/128 and strings; object arrays are not)"
            ))
        } else {
            bad(format!("not a valid .npy file: {e}"))
        }
    })?;
    let ts = match header.dtype() {
        npyz::DType::Plain(ts) => ts,
        other => {
            return Err(bad(format!(
                "structured numpy dtype {} is not supported; kerf reads arrays of one plain type",
                other.descr()
            )));
        }
    };
    let shape = header.shape().to_vec();
    let order = header.order();
    let natural = natural_dtype(&ts).map_err(bad)?;
    let count =
        kerf_ir::tensor::volume(&shape).ok_or_else(|| bad(format!("shape {shape:?} in the header overflows")))?;

    let mut tensor = if natural == DType::String {
        read_strings(reader, header, &shape, path)?
    } else {
        let width = natural.byte_width().expect("numeric numpy types are byte-sized");
        let expected = natural
            .buffer_bytes(count)
            .ok_or_else(|| bad(format!("header: a {natural} tensor of shape {shape:?} is too large to allocate")))?;
        let data = match read_data(&mut reader, expected, path)? {
            Ok(data) => data,
            Err(got) if got < expected => {
                return Err(bad(format!(
                    "truncated: the header promises {count} elements of '{ts}' ({expected} bytes of data), \
                     the file holds {got}"
                )));
            }
            Err(_) => {
                return Err(bad(format!(
                    "corrupt: bytes follow the {count} elements of '{ts}' that the header describes \
                     (shape {shape:?})"
                )));
            }
        };
        let mut t = Tensor::from_bytes(natural, &shape, &data).map_err(|e| bad(format!("header: {e}")))?;
        drop(data);
        let buf = t.bytes_mut().expect("numeric tensor");
        if ts.endianness() == Endianness::Big && width > 1 {
            // Complex numbers swap each part on its own.
            let part = if natural.is_complex() { width / 2 } else { width };
            for chunk in buf.chunks_exact_mut(part) {
                chunk.reverse();
            }
        }
        if natural == DType::Bool {
            for b in buf.iter_mut() {
                *b = u8::from(*b != 0);
            }
        }
        t
    };
    if order == Order::Fortran && shape.len() > 1 {
        tensor = fortran_to_c(&tensor);
    }
    match dtype {
        None => Ok(tensor),
        Some(d) => convert_storage(tensor, d).map_err(|m| bad(format!("as {d}: {m}"))),
    }
}

fn read_strings<R: Read>(reader: R, header: npyz::NpyHeader, shape: &[u64], path: &Path) -> Result<Tensor, FileError> {
    let bad = |detail: String| FileError::npy(path, detail);
    // Read the data first (its size is what the file holds, not what the header says), so
    // that neither the element count nor the string width can make memory explode.
    let ts = header.dtype().descr();
    let item = match header.dtype() {
        npyz::DType::Plain(t) => {
            let unit = if t.type_char() == TypeChar::UnicodeStr { 4 } else { 1 };
            t.size_field().checked_mul(unit)
        }
        _ => None,
    };
    let item = item.filter(|&n| n > 0).ok_or_else(|| bad(format!("string dtype {ts} has no width")))?;
    let expected = kerf_ir::tensor::volume(shape)
        .and_then(|n| n.checked_mul(item))
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| bad(format!("header: a string tensor of shape {shape:?} ({ts}) is too large to allocate")))?;
    let data = match read_data(reader, expected, path)? {
        Ok(data) => data,
        Err(got) if got < expected => {
            return Err(bad(format!("truncated: fewer {ts} strings than the header's shape {shape:?} promises")));
        }
        Err(_) => {
            return Err(bad(format!(
                "corrupt: bytes follow the {ts} strings that the header describes (shape {shape:?})"
            )));
        }
    };
    let npy = npyz::NpyFile::with_header(header, &data[..]);
    let values: Vec<String> = npy.into_vec().map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            bad(format!("truncated: fewer {ts} strings than the header's shape {shape:?} promises"))
        } else {
            bad(format!("corrupt string data ({ts}): {e}"))
        }
    })?;
    Tensor::from_strings(shape, values).map_err(|e| bad(e.to_string()))
}

/// Row-major copy of a tensor whose elements are stored in Fortran (column-major) order.
fn fortran_to_c(t: &Tensor) -> Tensor {
    let shape = t.shape().to_vec();
    let n = t.len() as usize;
    // Fortran strides: the first axis is contiguous.
    let mut fstride = vec![1usize; shape.len()];
    for k in 1..shape.len() {
        fstride[k] = fstride[k - 1] * shape[k - 1] as usize;
    }
    // Source (Fortran) index of every row-major position, by an odometer.
    let mut src = Vec::with_capacity(n);
    let mut idx = vec![0u64; shape.len()];
    for _ in 0..n {
        src.push(idx.iter().zip(&fstride).map(|(&i, &s)| i as usize * s).sum::<usize>());
        for k in (0..shape.len()).rev() {
            idx[k] += 1;
            if idx[k] < shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    if let Some(strings) = t.strings() {
        let values = src.iter().map(|&s| strings[s].clone()).collect();
        return Tensor::from_strings(&shape, values).expect("same shape");
    }
    let w = t.dtype().byte_width().expect("numpy types are byte-sized");
    let from = t.bytes().expect("byte tensor");
    let mut out = Tensor::zeros(t.dtype(), &shape).expect("same size as the input");
    let to = out.bytes_mut().expect("byte tensor");
    for (i, &s) in src.iter().enumerate() {
        to[i * w..(i + 1) * w].copy_from_slice(&from[s * w..(s + 1) * w]);
    }
    out
}

/// Apply the storage convention: a tensor as read from a `.npy` → the dtype a request
/// names. Same-width layouts are reinterpreted; `i4`/`u4` are packed from one integer
/// value per element.
pub fn convert_storage(t: Tensor, dtype: DType) -> Result<Tensor, String> {
    let from = t.dtype();
    if from == dtype {
        return Ok(t);
    }
    match dtype.layout() {
        Layout::Nibbles => {
            if from.byte_width() != Some(1) || !(from.is_integer() || from == DType::Bool) {
                return Err(format!(
                    "{dtype} is stored one value per element as a 1-byte integer \
                     (numpy int8/uint8), found {from} ('{}')",
                    storage_descr(from)
                ));
            }
            let (lo, hi) = dtype.int_range().expect("nibble types are integers");
            let mut out = Tensor::zeros(dtype, t.shape()).map_err(|e| e.to_string())?;
            let dst = out.bytes_mut().expect("nibble tensor");
            for i in 0..t.len() {
                let v = t.element_i128(i).expect("integer element");
                if v < lo || v > hi {
                    return Err(format!("element {i} is {v}, outside the {dtype} range [{lo}, {hi}]"));
                }
                let nibble = (v as u8) & 0xf;
                dst[(i / 2) as usize] |= nibble << ((i % 2) * 4);
            }
            Ok(out)
        }
        Layout::Strings => Err(format!("{from} data cannot be read as strings")),
        Layout::Bytes(w) => {
            if from.layout() != Layout::Bytes(w) {
                return Err(format!(
                    "{dtype} takes the raw bits of a {w}-byte type (e.g. '{}'), found {from} ('{}')",
                    storage_descr(dtype),
                    storage_descr(from)
                ));
            }
            t.reinterpret(dtype).map_err(|e| e.to_string())
        }
    }
}

/// Serialize a tensor as `.npy` bytes (see the module docs for how each dtype is stored).
pub fn to_writer<W: Write>(w: W, t: &Tensor) -> io::Result<()> {
    let shape = t.shape();
    let dtype = t.dtype();
    let ts = |s: &str| -> npyz::DType { npyz::DType::Plain(s.parse().expect("a valid type string")) };
    macro_rules! typed {
        ($ty:ty, $n:expr, $conv:expr) => {{
            let bytes = t.bytes().expect("byte tensor");
            let mut writer =
                npyz::WriteOptions::<$ty>::new().dtype(ts(storage_descr(dtype))).shape(shape).writer(w).begin_nd()?;
            writer.extend(bytes.chunks_exact($n).map(|c| {
                let a: [u8; $n] = c.try_into().expect("chunk of the element width");
                $conv(a)
            }))?;
            writer.finish()
        }};
    }
    match dtype {
        DType::Bool => typed!(bool, 1, |a: [u8; 1]| a[0] != 0),
        DType::I8 => typed!(i8, 1, i8::from_le_bytes),
        DType::U8 | DType::F8E4M3FN | DType::F8E5M2 => typed!(u8, 1, u8::from_le_bytes),
        DType::I16 => typed!(i16, 2, i16::from_le_bytes),
        DType::U16 | DType::BF16 => typed!(u16, 2, u16::from_le_bytes),
        DType::I32 => typed!(i32, 4, i32::from_le_bytes),
        DType::U32 => typed!(u32, 4, u32::from_le_bytes),
        DType::I64 => typed!(i64, 8, i64::from_le_bytes),
        DType::U64 => typed!(u64, 8, u64::from_le_bytes),
        DType::F16 => typed!(half::f16, 2, half::f16::from_le_bytes),
        DType::F32 => typed!(f32, 4, f32::from_le_bytes),
        DType::F64 => typed!(f64, 8, f64::from_le_bytes),
        DType::C64 => typed!(num_complex::Complex<f32>, 8, |a: [u8; 8]| {
            num_complex::Complex::new(
                f32::from_le_bytes(a[..4].try_into().expect("4 bytes")),
                f32::from_le_bytes(a[4..].try_into().expect("4 bytes")),
            )
        }),
        DType::C128 => typed!(num_complex::Complex<f64>, 16, |a: [u8; 16]| {
            num_complex::Complex::new(
                f64::from_le_bytes(a[..8].try_into().expect("8 bytes")),
                f64::from_le_bytes(a[8..].try_into().expect("8 bytes")),
            )
        }),
        DType::I4 => {
            let mut writer = npyz::WriteOptions::<i8>::new().dtype(ts("|i1")).shape(shape).writer(w).begin_nd()?;
            writer.extend((0..t.len()).map(|i| t.element_i128(i).expect("i4 element") as i8))?;
            writer.finish()
        }
        DType::U4 => {
            let mut writer = npyz::WriteOptions::<u8>::new().dtype(ts("|u1")).shape(shape).writer(w).begin_nd()?;
            writer.extend((0..t.len()).map(|i| t.element_i128(i).expect("u4 element") as u8))?;
            writer.finish()
        }
        DType::String => {
            let strings = t.strings().expect("string tensor");
            let n = strings.iter().map(|s| s.chars().count()).max().unwrap_or(0).max(1);
            let mut writer =
                npyz::WriteOptions::<str>::new().dtype(ts(&format!("<U{n}"))).shape(shape).writer(w).begin_nd()?;
            for s in strings {
                writer.push(s.as_str())?;
            }
            writer.finish()
        }
    }
}

/// `.npy` bytes of a tensor, in memory.
pub fn to_bytes(t: &Tensor) -> Vec<u8> {
    let mut v = Vec::new();
    to_writer(&mut v, t).expect("writing to memory cannot fail");
    v
}

/// Write a tensor to `path` atomically: a temporary file in the same directory, synced,
/// then renamed over `path`. On error nothing is left behind (the temporary file is
/// removed) and an existing file at `path` is untouched.
pub fn write(path: &Path, t: &Tensor) -> Result<(), FileError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| {
        FileError::io(path, "cannot write", io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))
    })?;
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // An ordinary file's permissions (0666 less the umask), not a temporary file's 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp =
        builder.tempfile_in(dir).map_err(|e| FileError::io(path, "cannot create a temporary file beside", e))?;
    {
        let mut buf = io::BufWriter::new(tmp.as_file_mut());
        to_writer(&mut buf, t).map_err(|e| FileError::io(path, "cannot write", e))?;
        buf.flush().map_err(|e| FileError::io(path, "cannot write", e))?;
    }
    tmp.as_file().sync_all().map_err(|e| FileError::io(path, "cannot write", e))?;
    tmp.persist(path).map_err(|e| FileError::io(path, "cannot rename the temporary file to", e.error))?;
    Ok(())
}
