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
//! byte (low nibble first). [`write`](fn@write) stores these types by the same table, so a file
//! kerf writes reads back with the same `dtype` key.
//!
//! # Writing
//!
//! [`write`](fn@write) writes to a temporary file in the destination's directory and renames it
//! over the destination only once everything is written and synced, so an error never
//! leaves a partial file, and a reader never sees one.

use crate::error::FileError;
use kerfx_ir::dtype::Layout;
use kerfx_ir::tensor::Strings;
use kerfx_ir::{DType, Tensor};
use npyz::{Endianness, Order, TypeChar, TypeStr};
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
/// The file must be a regular file (a FIFO or device is refused, not waited on).
pub fn read_as(path: &Path, dtype: Option<DType>) -> Result<Tensor, FileError> {
    let (file, len) = crate::file::open_regular(path, "cannot open")?;
    // A buffer that holds any header kerf accepts, so the checks on the first bytes see it whole.
    from_reader(io::BufReader::with_capacity(MAX_HEADER_BYTES + 16, file), len, path, dtype)
}

/// Read `.npy` bytes held in memory; `name` is used in error messages.
pub fn from_bytes(bytes: &[u8], name: &Path, dtype: Option<DType>) -> Result<Tensor, FileError> {
    from_reader(bytes, bytes.len() as u64, name, dtype)
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

/// The bytes before the data: magic, version, length field and the header text.
fn header_bytes(prefix: &[u8]) -> Option<u64> {
    let before = if prefix.get(6)? == &1 { 10 } else { 12 };
    Some(before + declared_header_len(prefix)? as u64)
}

/// Check that the file holds exactly the `expected` data bytes the header describes
/// (before allocating anything for them); `what` describes them for messages.
fn check_data_len(available: u64, expected: u64, what: &str, path: &Path) -> Result<(), FileError> {
    if available < expected {
        return Err(FileError::npy(
            path,
            format!("truncated: the header promises {what} ({expected} bytes of data), the file holds {available}"),
        ));
    }
    if available > expected {
        return Err(FileError::npy(path, format!("corrupt: bytes follow the {what} that the header describes")));
    }
    Ok(())
}

fn read_exact<R: Read>(mut reader: R, buf: &mut [u8], path: &Path) -> Result<(), FileError> {
    reader.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            FileError::npy(path, "truncated: the file ended while its data was read")
        } else {
            FileError::io(path, "cannot read", e)
        }
    })
}

/// `total` is the length of the whole file: data sizes are checked against it before
/// anything is allocated for them, so memory follows what the file holds, never what a
/// (possibly corrupt) header promises.
fn from_reader<R: BufRead>(mut reader: R, total: u64, path: &Path, dtype: Option<DType>) -> Result<Tensor, FileError> {
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
        kerfx_ir::tensor::volume(&shape).ok_or_else(|| bad(format!("shape {shape:?} in the header overflows")))?;

    let available = total.saturating_sub(header_bytes(&prefix).unwrap_or(total));
    let tensor = if natural == DType::String {
        read_strings(reader, &ts, &shape, order, available, path)?
    } else {
        let width = natural.byte_width().expect("numeric numpy types are byte-sized");
        let what = format!("{count} elements of '{ts}' (shape {shape:?})");
        let expected = natural
            .buffer_bytes(count)
            .ok_or_else(|| bad(format!("header: a {natural} tensor of shape {shape:?} is too large to allocate")))?;
        check_data_len(available, expected as u64, &what, path)?;
        // Read straight into the tensor: memory is the data's, once.
        let mut t = Tensor::zeros(natural, &shape).map_err(|e| bad(format!("header: {e}")))?;
        let buf = t.bytes_mut().expect("numeric tensor");
        read_exact(&mut reader, buf, path)?;
        if ts.endianness() == Endianness::Big && width > 1 {
            // Complex numbers swap each part on its own.
            let part = if natural.is_complex() { width / 2 } else { width };
            for chunk in buf.chunks_exact_mut(part) {
                chunk.reverse();
            }
        }
        if natural == DType::Bool {
            check_bools(buf).map_err(bad)?;
        }
        if order == Order::Fortran && shape.len() > 1 {
            let mut c = Tensor::zeros(natural, &shape).map_err(|e| bad(format!("header: {e}")))?;
            fortran_to_c(t.bytes().expect("numeric tensor"), c.bytes_mut().expect("numeric tensor"), &shape, width);
            c
        } else {
            t
        }
    };
    match dtype {
        None => Ok(tensor),
        Some(d) => convert_storage(tensor, d).map_err(|m| bad(format!("as {d}: {m}"))),
    }
}

/// `S` (bytes) and `U` (UTF-32) strings into kerf's fixed-width UTF-8 [`Strings`]: `S`
/// data is that layout already; `U` data is re-encoded as wide as its longest element
/// needs. Memory is at most the file's data twice over, with no allocation per element.
fn read_strings<R: Read>(
    mut reader: R,
    ts: &TypeStr,
    shape: &[u64],
    order: Order,
    available: u64,
    path: &Path,
) -> Result<Tensor, FileError> {
    let bad = |detail: String| FileError::npy(path, detail);
    let unicode = ts.type_char() == TypeChar::UnicodeStr;
    let chars = usize::try_from(ts.size_field()).unwrap_or(usize::MAX);
    let item = chars.checked_mul(if unicode { 4 } else { 1 }).filter(|&n| n > 0);
    let item = item.ok_or_else(|| bad(format!("string dtype '{ts}' has no width")))?;
    let count = kerfx_ir::tensor::volume(shape).and_then(|n| usize::try_from(n).ok());
    let too_large = || bad(format!("header: a string tensor of shape {shape:?} ('{ts}') is too large to allocate"));
    let count = count.ok_or_else(too_large)?;
    let expected = count.checked_mul(item).ok_or_else(too_large)?;
    check_data_len(available, expected as u64, &format!("{count} '{ts}' strings (shape {shape:?})"), path)?;
    let mut data = Vec::new();
    data.try_reserve_exact(expected).map_err(|_| too_large())?;
    data.resize(expected, 0);
    read_exact(&mut reader, &mut data, path)?;
    let (width, bytes) =
        if unicode { utf32_to_utf8(&data, chars, ts.endianness()).map_err(&bad)? } else { (item, data) };
    let bytes = if order == Order::Fortran && shape.len() > 1 {
        let mut c = vec![0u8; bytes.len()];
        fortran_to_c(&bytes, &mut c, shape, width);
        c
    } else {
        bytes
    };
    let strings =
        Strings::from_padded(width, count, bytes).map_err(|e| bad(format!("corrupt string data ('{ts}'): {e}")))?;
    Tensor::from_string_storage(shape, strings).map_err(|e| bad(e.to_string()))
}

/// UTF-32 elements of `chars` code points each → UTF-8 elements as wide as the longest
/// needs (trailing NULs are padding, as in numpy): (width, bytes).
fn utf32_to_utf8(data: &[u8], chars: usize, endian: Endianness) -> Result<(usize, Vec<u8>), String> {
    let code = |b: &[u8]| {
        let b: [u8; 4] = b.try_into().expect("4 bytes");
        if endian == Endianness::Big { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) }
    };
    let elements = || data.chunks_exact(4 * chars).enumerate();
    // The first pass checks every code point and finds the widest element.
    let mut width = 0;
    for (i, e) in elements() {
        let mut n = 0;
        for c in e.chunks_exact(4).map(code) {
            let c = char::from_u32(c)
                .ok_or_else(|| format!("corrupt string data: element {i} holds {c:#x}, not a character"))?;
            n += c.len_utf8();
        }
        let padding: usize = e.chunks_exact(4).rev().take_while(|b| code(b) == 0).count();
        width = width.max(n - padding);
    }
    let mut out = Vec::new();
    out.try_reserve_exact(width * (data.len() / (4 * chars)))
        .map_err(|_| "the strings are too large to allocate".to_string())?;
    for (_, e) in elements() {
        let start = out.len();
        for c in e.chunks_exact(4).map(code) {
            let c = char::from_u32(c).expect("checked above");
            let mut b = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        }
        // Cut trailing NULs (padding), then pad to the width.
        while out.len() > start && out.last() == Some(&0) {
            out.pop();
        }
        out.resize(start + width, 0);
    }
    Ok((width, out))
}

/// Row-major copy of elements of `w` bytes stored in Fortran (column-major) order: an
/// odometer over the rows, each gathered with the last axis's stride; no index tables.
fn fortran_to_c(src: &[u8], dst: &mut [u8], shape: &[u64], w: usize) {
    let rank = shape.len();
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    if rank == 0 || dims.contains(&0) || w == 0 {
        return;
    }
    // Fortran strides in elements: the first axis is contiguous.
    let mut fstride = vec![1usize; rank];
    for k in 1..rank {
        fstride[k] = fstride[k - 1] * dims[k - 1];
    }
    let last = rank - 1;
    let (inner, step) = (dims[last], fstride[last]);
    let mut idx = vec![0usize; last];
    let mut base = 0usize;
    for row in dst.chunks_exact_mut(inner * w) {
        for (j, out) in row.chunks_exact_mut(w).enumerate() {
            let at = (base + j * step) * w;
            out.copy_from_slice(&src[at..at + w]);
        }
        for k in (0..last).rev() {
            idx[k] += 1;
            base += fstride[k];
            if idx[k] < dims[k] {
                break;
            }
            base -= fstride[k] * dims[k];
            idx[k] = 0;
        }
    }
}

/// Bool elements are the bytes 0 and 1 (specs/SEMANTICS.md, "Bool elements in `.npy`
/// files"): any other byte is refused, never passed on to a kernel or normalized.
fn check_bools(bytes: &[u8]) -> Result<(), String> {
    match bytes.iter().position(|&b| b > 1) {
        Some(i) => Err(format!(
            "bool element {i} is the byte {}; a bool is stored as 0 or 1 (numpy's own bool arrays hold nothing else)",
            bytes[i]
        )),
        None => Ok(()),
    }
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
            if dtype == DType::Bool {
                check_bools(t.bytes().expect("byte tensor"))?;
            }
            t.reinterpret(dtype).map_err(|e| e.to_string())
        }
    }
}

/// The `.npy` header (version 1, or 2 when the text needs a longer length field): the
/// dict numpy writes, padded with spaces and a newline so the data starts 64-byte aligned.
fn write_header<W: Write>(w: &mut W, descr: &str, shape: &[u64]) -> io::Result<()> {
    let mut text = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (");
    for d in shape {
        text.push_str(&format!("{d}, "));
    }
    text.push_str("), }");
    let (version, before) = if text.len() + 64 <= u16::MAX as usize { (1u8, 10) } else { (2u8, 12) };
    text.push_str(&" ".repeat(63 - (before + text.len()) % 64));
    text.push('\n');
    w.write_all(b"\x93NUMPY")?;
    w.write_all(&[version, 0])?;
    if version == 1 {
        w.write_all(&(text.len() as u16).to_le_bytes())?;
    } else {
        let len = u32::try_from(text.len()).map_err(|_| io::Error::other("the .npy header is too long"))?;
        w.write_all(&len.to_le_bytes())?;
    }
    w.write_all(text.as_bytes())
}

/// Serialize a tensor as `.npy` bytes (see the module docs for how each dtype is stored).
/// The data is written as it is stored (little-endian), in blocks, with no per-element
/// calls and no copy of the whole tensor.
pub fn to_writer<W: Write>(mut w: W, t: &Tensor) -> io::Result<()> {
    /// Elements converted per block for the types that are not stored as they are held.
    const BLOCK: u64 = 1 << 16;
    let shape = t.shape();
    if let Some(strings) = t.strings() {
        // numpy's `<U`: UTF-32, as many code points per element as the longest has.
        let n = strings.iter().map(|s| s.chars().count()).max().unwrap_or(0).max(1);
        write_header(&mut w, &format!("<U{n}"), shape)?;
        let mut buf = Vec::with_capacity(4 * n);
        for s in strings.iter() {
            buf.clear();
            buf.extend(s.chars().flat_map(|c| (c as u32).to_le_bytes()));
            buf.resize(4 * n, 0);
            w.write_all(&buf)?;
        }
        return Ok(());
    }
    let dtype = t.dtype();
    write_header(&mut w, storage_descr(dtype), shape)?;
    let bytes = t.bytes().expect("byte tensor");
    match dtype {
        DType::Bool => {
            for block in bytes.chunks(BLOCK as usize) {
                w.write_all(&block.iter().map(|&b| u8::from(b != 0)).collect::<Vec<u8>>())?;
            }
        }
        // One value per byte, unpacked (i4 sign-extended).
        DType::I4 | DType::U4 => {
            let n = t.len();
            for start in (0..n).step_by(BLOCK as usize) {
                let block: Vec<u8> =
                    (start..n.min(start + BLOCK)).map(|i| t.element_i128(i).expect("nibble element") as u8).collect();
                w.write_all(&block)?;
            }
        }
        _ => w.write_all(bytes)?,
    }
    Ok(())
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
    write_atomic(path, &mut |w| to_writer(w, t))
}

/// Write a file atomically: `fill` writes its bytes into a temporary file in the same
/// directory, which is synced, then renamed over `path`. On error nothing is left behind
/// (the temporary file is removed) and an existing file at `path` is untouched.
pub(crate) fn write_atomic(
    path: &Path,
    fill: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
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
        fill(&mut buf).map_err(|e| FileError::io(path, "cannot write", e))?;
        buf.flush().map_err(|e| FileError::io(path, "cannot write", e))?;
    }
    tmp.as_file().sync_all().map_err(|e| FileError::io(path, "cannot write", e))?;
    tmp.persist(path).map_err(|e| FileError::io(path, "cannot rename the temporary file to", e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version-1 `.npy` file: the header padded to 64 bytes, then `data`.
    fn npy(descr: &str, fortran: bool, shape: &[u64], data: &[u8]) -> Vec<u8> {
        let order = if fortran { "True" } else { "False" };
        let dims: String = shape.iter().map(|d| format!("{d}, ")).collect();
        let mut text = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': ({dims}), }}");
        text.push_str(&" ".repeat(63 - (10 + text.len()) % 64));
        text.push('\n');
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend((text.len() as u16).to_le_bytes());
        b.extend(text.as_bytes());
        b.extend(data);
        b
    }

    fn read(bytes: &[u8]) -> Tensor {
        from_bytes(bytes, Path::new("x.npy"), None).unwrap()
    }

    /// `|S1` data is held as it is stored: one buffer of one byte per string, no
    /// allocation per element (it once took 56 bytes and a heap object each).
    #[test]
    fn byte_strings_are_held_in_one_buffer() {
        let data: Vec<u8> = (0..100_000u32).map(|i| b"abc"[i as usize % 3]).collect();
        let t = read(&npy("|S1", false, &[100_000], &data));
        let s = t.strings().unwrap();
        assert_eq!((s.width(), s.len()), (1, 100_000));
        assert_eq!(s.bytes(), data.as_slice(), "the file's bytes, as they are");
        assert_eq!((s.get(0), s.get(4), s.get(100_000)), (Some("a"), Some("b"), None));
        // Trailing NULs are padding, as in numpy; `S` must hold UTF-8.
        let t = read(&npy("|S3", false, &[2], b"ab\0\xc3\xa9\0"));
        assert_eq!(t.strings().unwrap().to_vec(), ["ab", "é"]);
        let e = from_bytes(&npy("|S1", false, &[1], b"\xff"), Path::new("x.npy"), None).unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
    }

    /// `<U`/`>U` (UTF-32) is re-encoded as UTF-8 as wide as the longest element needs.
    #[test]
    fn unicode_strings_take_the_width_they_need() {
        let utf32 = |strs: &[&str], n: usize, big: bool| -> Vec<u8> {
            let mut v = Vec::new();
            for s in strs {
                let mut k = 0;
                for c in s.chars() {
                    v.extend(if big { (c as u32).to_be_bytes() } else { (c as u32).to_le_bytes() });
                    k += 1;
                }
                v.extend(std::iter::repeat_n(0, 4 * (n - k)));
            }
            v
        };
        for big in [false, true] {
            let descr = if big { ">U8" } else { "<U8" };
            let t = read(&npy(descr, false, &[3], &utf32(&["ab", "", "日本"], 8, big)));
            let s = t.strings().unwrap();
            assert_eq!(s.width(), 6, "日本 is 6 bytes of UTF-8; 32 bytes of UTF-32 were stored");
            assert_eq!(s.to_vec(), ["ab", "", "日本"]);
        }
        let e = from_bytes(&npy("<U1", false, &[1], &0xd800u32.to_le_bytes()), Path::new("x.npy"), None);
        assert!(e.unwrap_err().to_string().contains("not a character"));
    }

    /// specs/SEMANTICS.md, "Bool elements in `.npy` files": bytes other than 0 and 1 are
    /// refused, whether the file says bool (`|b1`) or the request reads `u1`/`i1` as bool.
    #[test]
    fn bool_bytes_other_than_0_and_1_are_refused() {
        let name = Path::new("b.npy");
        let t = from_bytes(&npy("|b1", false, &[3], &[0, 1, 1]), name, None).unwrap();
        assert_eq!(t.bytes().unwrap(), &[0, 1, 1]);
        let t = from_bytes(&npy("|u1", false, &[2], &[1, 0]), name, Some(DType::Bool)).unwrap();
        assert_eq!((t.dtype(), t.bytes().unwrap()), (DType::Bool, &[1, 0][..]));
        for (descr, as_bool) in [("|b1", None), ("|u1", Some(DType::Bool)), ("|i1", Some(DType::Bool))] {
            let e = from_bytes(&npy(descr, false, &[3], &[0, 1, 2]), name, as_bool).unwrap_err().to_string();
            assert!(e.starts_with("b.npy: ") && e.contains("bool element 2 is the byte 2"), "{descr}: {e}");
        }
    }

    /// Fortran order is transposed by an odometer, element for element, for numbers and
    /// strings alike.
    #[test]
    fn fortran_order_is_transposed() {
        // [[[0..4], [4..8], [8..12]], [[12..16], ..]]: element [i, j, k] = 12i + 4j + k,
        // stored with i fastest.
        let stored: Vec<u8> =
            (0..4).flat_map(|k| (0..3).flat_map(move |j| (0..2).map(move |i| (12 * i + 4 * j + k) as u8))).collect();
        let t = read(&npy("|u1", true, &[2, 3, 4], &stored));
        assert_eq!(t.bytes().unwrap(), (0..24).collect::<Vec<u8>>().as_slice());
        let t = read(&npy("|S2", true, &[2, 2], b"a\0c\0bbd\0"));
        assert_eq!(t.strings().unwrap().to_vec(), ["a", "bb", "c", "d"]);
        // Empty axes and a single axis need no transposing.
        assert_eq!(read(&npy("<i4", true, &[0, 3], b"")).shape(), &[0, 3]);
        assert_eq!(read(&npy("|u1", true, &[3], b"\x01\x02\x03")).bytes().unwrap(), &[1, 2, 3]);
    }

    /// The header kerf writes is the one npyz and numpy read, 64-byte aligned.
    #[test]
    fn written_headers_read_back() {
        for shape in [&[][..], &[3][..], &[2, 0, 5][..]] {
            let t = Tensor::zeros(DType::F32, shape).unwrap();
            let bytes = to_bytes(&t);
            assert_eq!((bytes.len() - 4 * t.len() as usize) % 64, 0);
            assert_eq!(read(&bytes), t);
        }
    }
}
