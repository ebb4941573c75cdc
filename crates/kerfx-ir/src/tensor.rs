//! Owned tensors with 16-byte aligned storage, and borrowed views.

use crate::dtype::{DType, Layout};
use crate::error::Error;

/// A dense, row-major tensor. Byte storage is 16-byte aligned so vector loads and
/// stores of any element width are legal on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    dtype: DType,
    shape: Vec<u64>,
    data: Storage,
}

#[derive(Clone, Debug, PartialEq)]
enum Storage {
    Bytes(AlignedBytes),
    Strings(Strings),
}

/// String elements as numpy stores them: each in `width` bytes — its UTF-8, padded with
/// NUL bytes — in one buffer, so memory is the data's, with no allocation per element.
/// A string cannot end in NUL (the padding would swallow it), as in numpy.
#[derive(Clone, Debug)]
pub struct Strings {
    width: usize,
    len: usize,
    bytes: Vec<u8>,
}

impl Strings {
    /// `len` empty strings of `width` bytes; `None` when the bytes cannot be allocated.
    pub fn empty(width: usize, len: usize) -> Option<Strings> {
        let n = width.checked_mul(len)?;
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(n).ok()?;
        bytes.resize(n, 0);
        Some(Strings { width, len, bytes })
    }

    /// Row-major elements, stored `width` = the longest one's bytes wide.
    pub fn from_strs<S: AsRef<str>>(values: &[S]) -> Result<Strings, Error> {
        let width = values.iter().map(|v| v.as_ref().len()).max().unwrap_or(0);
        let mut out = Strings::empty(width, values.len())
            .ok_or_else(|| Error::TooLarge { what: format!("{} strings of {width} bytes", values.len()) })?;
        for (i, v) in values.iter().enumerate() {
            let v = v.as_ref().as_bytes();
            if v.last() == Some(&0) {
                return Err(Error::Invalid {
                    what: format!("string {i} ends with a NUL character, which string storage (numpy's) cannot hold"),
                });
            }
            out.bytes[i * width..i * width + v.len()].copy_from_slice(v);
        }
        Ok(out)
    }

    /// Bytes already in this layout: `len` elements of `width` bytes, each UTF-8 once its
    /// trailing NULs are cut (checked here).
    pub fn from_padded(width: usize, len: usize, bytes: Vec<u8>) -> Result<Strings, Error> {
        if width.checked_mul(len) != Some(bytes.len()) {
            return Err(Error::BufferLength {
                what: format!("{len} strings of {width} bytes"),
                expected: width.saturating_mul(len),
                found: bytes.len(),
            });
        }
        let s = Strings { width, len, bytes };
        if let Some(i) = (0..len).find(|&i| std::str::from_utf8(s.raw(i)).is_err()) {
            return Err(Error::Invalid { what: format!("string {i} is not UTF-8") });
        }
        Ok(s)
    }

    /// Bytes per element.
    pub fn width(&self) -> usize {
        self.width
    }
    /// The number of strings.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no strings.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// All elements, `width` bytes each.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Element `i` without its padding.
    fn raw(&self, i: usize) -> &[u8] {
        let slot = &self.bytes[i * self.width..(i + 1) * self.width];
        let end = slot.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
        &slot[..end]
    }

    /// String `i` without its padding; `None` when `i` is out of range.
    pub fn get(&self, i: usize) -> Option<&str> {
        if i >= self.len {
            return None;
        }
        // UTF-8 by construction; checked again rather than trusted.
        std::str::from_utf8(self.raw(i)).ok()
    }

    /// The strings in order, without their padding.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len).map(|i| self.get(i).unwrap_or_default())
    }

    /// The strings in order, owned.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }

    /// Copy element `from` of `src` into element `to`; an error when either index is out
    /// of range or the string does not fit this storage's width.
    pub fn copy_from(&mut self, to: usize, src: &Strings, from: usize) -> Result<(), Error> {
        let bad = || Error::Invalid { what: format!("cannot copy string {from} into string {to}") };
        if to >= self.len || from >= src.len {
            return Err(bad());
        }
        let v = src.raw(from);
        let slot = &mut self.bytes[to * self.width..(to + 1) * self.width];
        slot.get_mut(..v.len()).ok_or_else(bad)?.copy_from_slice(v);
        slot[v.len()..].fill(0);
        Ok(())
    }
}

/// Equal when the elements are: the width is storage, not value.
impl PartialEq for Strings {
    fn eq(&self, other: &Strings) -> bool {
        self.len == other.len && (0..self.len).all(|i| self.raw(i) == other.raw(i))
    }
}

/// A byte buffer backed by `u128`s, so its start is 16-byte aligned.
#[derive(Clone, Debug, PartialEq)]
pub struct AlignedBytes {
    words: Vec<u128>,
    len: usize,
}

impl AlignedBytes {
    /// Zeroed bytes; `None` when the allocation would be absurd (refused before allocating).
    pub fn zeroed(len: usize) -> Option<Self> {
        let words_len = len.div_ceil(16);
        let mut words = Vec::new();
        words.try_reserve_exact(words_len).ok()?;
        words.resize(words_len, 0);
        Some(AlignedBytes { words, len })
    }
    /// The bytes (`len` of them, starting 16-byte aligned).
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `words` owns at least `len` initialized bytes; u8 has no alignment needs.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }
    /// The bytes, to write.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

/// Number of elements of a shape, `None` on overflow.
pub fn volume(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
}

/// The row-major strides of `shape`, in elements (the innermost 1). Saturating: only a
/// shape with an empty axis can overflow them (e.g. [0, 2^40, 2^40]), and no element is
/// then read through the strides outside that axis.
pub fn row_major_strides(shape: &[u64]) -> Vec<u64> {
    let mut strides = vec![1u64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1].saturating_mul(shape[k + 1]);
    }
    strides
}

impl Tensor {
    /// A zero-filled tensor (empty strings for `string`). Refuses sizes whose byte count
    /// overflows or cannot be allocated, before allocating.
    pub fn zeros(dtype: DType, shape: &[u64]) -> Result<Tensor, Error> {
        let count =
            volume(shape).ok_or_else(|| Error::TooLarge { what: format!("a {dtype} tensor of shape {shape:?}") })?;
        let data = match dtype.layout() {
            Layout::Strings => {
                // Empty strings take no bytes.
                let n = usize::try_from(count)
                    .map_err(|_| Error::TooLarge { what: format!("a string tensor of shape {shape:?}") })?;
                Storage::Strings(Strings::empty(0, n).expect("no bytes to allocate"))
            }
            _ => {
                let too_large = || Error::TooLarge { what: format!("a {dtype} tensor of shape {shape:?}") };
                let bytes = dtype.buffer_bytes(count).ok_or_else(too_large)?;
                Storage::Bytes(AlignedBytes::zeroed(bytes).ok_or_else(too_large)?)
            }
        };
        Ok(Tensor { dtype, shape: shape.to_vec(), data })
    }

    /// A tensor from raw little-endian element bytes (packed nibbles for i4/u4).
    pub fn from_bytes(dtype: DType, shape: &[u64], bytes: &[u8]) -> Result<Tensor, Error> {
        let mut t = Tensor::zeros(dtype, shape)?;
        let dst =
            t.bytes_mut().ok_or_else(|| Error::Invalid { what: "string tensors are not made from bytes".into() })?;
        if dst.len() != bytes.len() {
            return Err(Error::BufferLength {
                what: format!("{dtype} tensor of shape {shape:?}"),
                expected: dst.len(),
                found: bytes.len(),
            });
        }
        dst.copy_from_slice(bytes);
        Ok(t)
    }

    /// A string tensor from row-major elements (see [`Strings`] for how they are stored).
    pub fn from_strings<S: AsRef<str>>(shape: &[u64], values: impl AsRef<[S]>) -> Result<Tensor, Error> {
        Tensor::from_string_storage(shape, Strings::from_strs(values.as_ref())?)
    }

    /// A string tensor over storage already built; an error when it does not hold one
    /// string per element of `shape`.
    pub fn from_string_storage(shape: &[u64], values: Strings) -> Result<Tensor, Error> {
        let count = volume(shape).unwrap_or(u64::MAX);
        if count != values.len() as u64 {
            return Err(Error::BufferLength {
                what: format!("string tensor of shape {shape:?}"),
                expected: count as usize,
                found: values.len(),
            });
        }
        Ok(Tensor { dtype: DType::String, shape: shape.to_vec(), data: Storage::Strings(values) })
    }

    /// A 1-D i64 tensor.
    pub fn from_i64s(values: &[i64]) -> Tensor {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Tensor::from_bytes(DType::I64, &[values.len() as u64], &bytes).expect("length matches by construction")
    }

    /// A scalar of any byte-sized dtype from its element bits.
    pub fn scalar_bits(dtype: DType, bits: u128) -> Tensor {
        let mut t = Tensor::zeros(dtype, &[]).expect("a scalar always fits");
        if let Some(b) = t.bytes_mut() {
            let n = b.len();
            b.copy_from_slice(&bits.to_le_bytes()[..n]);
        }
        t
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// The extent of each axis, outermost first; `[]` for a scalar.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }
    /// The number of elements (the product of the shape; 1 for a scalar).
    pub fn len(&self) -> u64 {
        volume(&self.shape).unwrap_or(0)
    }
    /// Whether the tensor has no elements (an axis of extent 0).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Raw bytes; `None` for string tensors.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.data {
            Storage::Bytes(b) => Some(b.as_slice()),
            Storage::Strings(_) => None,
        }
    }
    /// Raw bytes, to write; `None` for string tensors.
    pub fn bytes_mut(&mut self) -> Option<&mut [u8]> {
        match &mut self.data {
            Storage::Bytes(b) => Some(b.as_mut_slice()),
            Storage::Strings(_) => None,
        }
    }
    /// The string storage; `None` unless the dtype is `string`.
    pub fn strings(&self) -> Option<&Strings> {
        match &self.data {
            Storage::Strings(s) => Some(s),
            Storage::Bytes(_) => None,
        }
    }
    /// The string storage, to write; `None` unless the dtype is `string`.
    pub fn strings_mut(&mut self) -> Option<&mut Strings> {
        match &mut self.data {
            Storage::Strings(s) => Some(s),
            Storage::Bytes(_) => None,
        }
    }
    /// The same data under another shape of equal volume.
    pub fn reshaped(mut self, shape: &[u64]) -> Result<Tensor, Error> {
        if volume(shape) != volume(&self.shape) {
            return Err(Error::Invalid { what: format!("cannot reshape {:?} to {:?}", self.shape, shape) });
        }
        self.shape = shape.to_vec();
        Ok(self)
    }
    /// Reinterpret the bits as another dtype of the same layout (u16 data as bf16, ...).
    pub fn reinterpret(mut self, dtype: DType) -> Result<Tensor, Error> {
        if dtype.layout() != self.dtype.layout() {
            return Err(Error::Invalid {
                what: format!("cannot reinterpret {} as {dtype}: widths differ", self.dtype),
            });
        }
        self.dtype = dtype;
        Ok(self)
    }

    /// The tensor, borrowed.
    pub fn view(&self) -> TensorView<'_> {
        TensorView {
            dtype: self.dtype,
            shape: &self.shape,
            data: match &self.data {
                Storage::Bytes(b) => ViewData::Bytes(b.as_slice()),
                Storage::Strings(s) => ViewData::Strings(s),
            },
        }
    }

    /// The bits of element `i` (little-endian, nibble for i4/u4); `None` for strings.
    pub fn element_bits(&self, i: u64) -> Option<u128> {
        self.view().element_bits(i)
    }

    /// Element `i` as an integer, for index-like inputs (any integer dtype or bool).
    pub fn element_i128(&self, i: u64) -> Option<i128> {
        let bits = self.element_bits(i)?;
        Some(match self.dtype {
            DType::Bool | DType::U8 | DType::U16 | DType::U32 | DType::U64 | DType::U4 => bits as i128,
            DType::I4 => ((bits as u8) << 4) as i8 as i128 >> 4,
            DType::I8 => bits as u8 as i8 as i128,
            DType::I16 => bits as u16 as i16 as i128,
            DType::I32 => bits as u32 as i32 as i128,
            DType::I64 => bits as u64 as i64 as i128,
            _ => return None,
        })
    }

    /// Element `i` as f64, for numeric scalars (fill values, alpha, beta).
    pub fn element_f64(&self, i: u64) -> Option<f64> {
        let bits = self.element_bits(i)?;
        crate::scalar::bits_to_f64(self.dtype, bits)
    }
}

/// A borrowed tensor.
#[derive(Copy, Clone, Debug)]
pub struct TensorView<'a> {
    /// The element type.
    pub dtype: DType,
    /// The extent of each axis, outermost first.
    pub shape: &'a [u64],
    /// The elements, dense and row-major; [`TensorView::check`] says whether they fit
    /// `dtype` and `shape`.
    pub data: ViewData<'a>,
}

/// A view's elements: bytes, or strings for dtype `string`.
#[derive(Copy, Clone, Debug)]
pub enum ViewData<'a> {
    /// Little-endian element bytes (packed nibbles for i4/u4).
    Bytes(&'a [u8]),
    /// String elements.
    Strings(&'a Strings),
}

impl<'a> TensorView<'a> {
    /// A tensor holding a copy of the view's elements (checked as [`TensorView::check`]).
    pub fn to_tensor(&self) -> Result<Tensor, Error> {
        self.check("a view")?;
        match self.data {
            ViewData::Bytes(b) => Tensor::from_bytes(self.dtype, self.shape, b),
            ViewData::Strings(s) => Tensor::from_string_storage(self.shape, s.clone()),
        }
    }

    /// Check that the data holds exactly the tensor the view claims: bytes for a dtype of
    /// bytes, as many as its shape's elements take (no more, no fewer), or strings for
    /// dtype string, one per element. A view's fields are public, so every public entry
    /// that reads one (the reference) calls this first; `what` names the view.
    pub fn check(&self, what: &str) -> Result<(), Error> {
        let n = volume(self.shape);
        let held = match self.data {
            ViewData::Bytes(b) => (self.dtype != DType::String).then_some(b.len()),
            ViewData::Strings(s) => (self.dtype == DType::String).then_some(s.len()),
        };
        let wanted = match self.data {
            ViewData::Bytes(_) => n.and_then(|n| self.dtype.buffer_bytes(n)),
            ViewData::Strings(_) => n.and_then(|n| usize::try_from(n).ok()),
        };
        if held.is_none() || held != wanted {
            let (unit, found) = match self.data {
                ViewData::Bytes(b) => ("bytes", b.len()),
                ViewData::Strings(s) => ("strings", s.len()),
            };
            let expected = match (held, wanted) {
                (None, _) => format!("{}, not {unit}", if self.dtype == DType::String { "strings" } else { "bytes" }),
                (_, Some(w)) => format!("{w} {unit}"),
                (_, None) => "more than memory holds".into(),
            };
            return Err(Error::Invalid {
                what: format!(
                    "{what}: its data ({found} {unit}) does not hold the {} {:?} it claims ({expected})",
                    self.dtype, self.shape
                ),
            });
        }
        Ok(())
    }

    /// The bits of element `i` (little-endian, nibble for i4/u4); `None` for strings or
    /// an element past the data.
    pub fn element_bits(&self, i: u64) -> Option<u128> {
        let ViewData::Bytes(bytes) = self.data else {
            return None;
        };
        match self.dtype.layout() {
            Layout::Bytes(w) => {
                let start = usize::try_from(i).ok()?.checked_mul(w)?;
                let src = bytes.get(start..start.checked_add(w)?)?;
                let mut buf = [0u8; 16];
                buf[..w].copy_from_slice(src);
                Some(u128::from_le_bytes(buf))
            }
            Layout::Nibbles => {
                let byte = *bytes.get(usize::try_from(i / 2).ok()?)?;
                Some(((byte >> ((i % 2) * 4)) & 0xf) as u128)
            }
            Layout::Strings => None,
        }
    }
}
