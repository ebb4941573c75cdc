//! numpy arrays as kernel buffers: read in place when C-contiguous in native byte order
//! (else copied once into such an array), outputs written in place into the caller's
//! `out` or a new array. int4 is the exception: kerf packs two elements per byte, numpy
//! (ml_dtypes or the raw convention) holds one per byte, so int4 buffers are packed and
//! unpacked through a copy.
//!
//! Python code can run between the time an argument is converted and the time its
//! buffer is taken (a later argument's `__len__` or `__array__`, a finalizer, another
//! thread while the GIL is released), and may set the array's shape, strides or dtype:
//! the layout is recorded when the argument is made and checked again when the buffer is
//! taken, and a changed one is refused.

use crate::dtypes::{self, Form};
use kerfx::{DType, Tensor};
use numpy::npyffi::{_PyArray_GET_ITEM_DATA, NPY_ARRAY_WRITEABLE};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyModule, PyTuple};

/// `kerfx.raw(array, dtype)`: an array holding a kerf dtype in the raw-bits convention.
#[pyclass(frozen, module = "kerfx", name = "Raw")]
pub struct Raw {
    pub array: Py<PyUntypedArray>,
    pub dtype: DType,
}

#[pymethods]
impl Raw {
    fn __repr__(&self, py: Python<'_>) -> String {
        let array = self.array.bind(py);
        format!("kerfx.raw(<{} array of shape {:?}>, \"{}\")", array.dtype(), array.shape(), self.dtype)
    }
    /// The array holding the bits.
    #[getter]
    fn array(&self, py: Python<'_>) -> Py<PyUntypedArray> {
        self.array.clone_ref(py)
    }
    /// The kerf dtype the bits are.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.dtype.name()
    }
}

/// The numpy module (imported once).
pub fn numpy(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static NUMPY: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    NUMPY.get_or_try_init(py, || py.import("numpy").map(Bound::unbind)).map(|m| m.bind(py))
}

/// An array argument: C-contiguous, native byte order, holding `dtype` in `form`.
pub struct ArrayArg<'py> {
    pub array: Bound<'py, PyUntypedArray>,
    pub dtype: DType,
    pub form: Form,
    /// The layout when the argument was made (what the request was built from).
    layout: Layout<'py>,
}

/// An array's shape and numpy dtype, as recorded when the argument was made.
struct Layout<'py> {
    shape: Vec<u64>,
    descr: Bound<'py, PyArrayDescr>,
}

impl<'py> Layout<'py> {
    fn of(array: &Bound<'py, PyUntypedArray>) -> Layout<'py> {
        Layout { shape: array.shape().iter().map(|&d| d as u64).collect(), descr: array.dtype() }
    }
}

/// What went wrong with an array argument (the caller names the argument).
pub type Bad = String;

impl<'py> ArrayArg<'py> {
    /// An array argument from a numpy array or `kerfx.raw(...)`; `None` for any other
    /// object (numpy scalars included: they are values, like Python numbers). Arrays not C-contiguous in native byte order are copied.
    pub fn from_py(obj: &Bound<'py, PyAny>) -> PyResult<Result<Option<ArrayArg<'py>>, Bad>> {
        let py = obj.py();
        let (array, dtype, form) = if let Ok(raw) = obj.cast::<Raw>() {
            let raw = raw.get();
            let array = raw.array.bind(py).clone();
            // Python code may have set the wrapped array's dtype since `kerfx.raw` checked it.
            if let Err(e) = dtypes::check_raw(&array.dtype(), raw.dtype) {
                return Ok(Err(e));
            }
            (array, raw.dtype, Form::Raw)
        } else if let Ok(array) = obj.cast::<PyUntypedArray>() {
            match dtypes::of_descr(&array.dtype()) {
                Ok(d) => (array.clone(), d, Form::Natural),
                Err(e) => return Ok(Err(e)),
            }
        } else {
            return Ok(Ok(None));
        };
        Ok(Ok(Some(ArrayArg::new(contiguous(array)?, dtype, form))))
    }

    /// An array of `dtype` in `form` (its dtype already checked); its layout is recorded now.
    pub fn new(array: Bound<'py, PyUntypedArray>, dtype: DType, form: Form) -> ArrayArg<'py> {
        let layout = Layout::of(&array);
        ArrayArg { array, dtype, form, layout }
    }

    /// The shape recorded when the argument was made.
    pub fn shape(&self) -> Vec<u64> {
        self.layout.shape.clone()
    }

    /// Whether numpy lets this array be written.
    pub fn writeable(&self) -> bool {
        // SAFETY: `as_array_ptr` points at the live array object `self.array` holds a
        // reference to (a checked cast made it a `PyUntypedArray`).
        let flags = unsafe { (*_PyArray_GET_ITEM_DATA(self.array.as_array_ptr())).flags };
        flags & NPY_ARRAY_WRITEABLE != 0
    }

    /// The address and length in bytes of the elements, the layout checked again now:
    /// the array must still have the shape and dtype it had when the argument was made,
    /// be C-contiguous, and not be of strings (object arrays hold pointers) -- kernels
    /// and the slices made from this rely on it. No Python code may run between this
    /// and the use of the buffer.
    pub fn buffer(&self) -> Result<(usize, usize), Bad> {
        let (descr, shape) = (self.array.dtype(), self.array.shape());
        let same_shape = shape.iter().map(|&d| d as u64).eq(self.layout.shape.iter().copied());
        if !same_shape || !descr.is_equiv_to(&self.layout.descr) || !self.array.is_c_contiguous() {
            return Err(format!(
                "changed while the call ran (Python code run meanwhile -- a later argument's conversion, a \
                 finalizer, another thread -- set its shape, strides or dtype): it was a C-contiguous {} array \
                 of shape {:?}, it is now a {} {descr} array of shape {shape:?}",
                self.layout.descr,
                self.layout.shape,
                if self.array.is_c_contiguous() { "C-contiguous" } else { "non-contiguous" },
            ));
        }
        if self.dtype == DType::String {
            return Err("string arrays hold Python objects, not element bytes".into());
        }
        let len = self.array.len() * descr.itemsize();
        // SAFETY: as in `writeable`: the array object is live.
        let data = unsafe { (*_PyArray_GET_ITEM_DATA(self.array.as_array_ptr())).data };
        Ok((data as usize, len))
    }

    /// As `buffer`, for an output: the array must also still be writeable.
    pub fn buffer_mut(&self) -> Result<(usize, usize), Bad> {
        let buffer = self.buffer()?;
        if !self.writeable() {
            return Err("was made read-only while the call ran".into());
        }
        Ok(buffer)
    }

    /// The element bytes (the layout checked as by `buffer`).
    pub fn bytes(&self) -> Result<&[u8], Bad> {
        let (data, len) = self.buffer()?;
        if len == 0 {
            return Ok(&[]);
        }
        // Python code may write these bytes meanwhile, as with any numpy C routine.
        // SAFETY: a C-contiguous array (checked by `buffer`) owns `len` bytes from `data`, allocated while
        // `self.array` refers to it; bytes have no invalid values.
        Ok(unsafe { std::slice::from_raw_parts(data as *const u8, len) })
    }

    /// The elements as a flat Python list.
    pub fn elements(&self) -> PyResult<Bound<'py, PyAny>> {
        self.array.call_method0(pyo3::intern!(self.array.py(), "ravel"))?.call_method0("tolist")
    }

    /// The elements of a string array (str objects of an object or unicode array).
    pub fn strings(&self) -> PyResult<Result<Vec<String>, Bad>> {
        let list = self.elements()?;
        let mut out = Vec::with_capacity(self.array.len());
        for (i, item) in list.try_iter()?.enumerate() {
            let item = item?;
            match item.extract::<String>() {
                Ok(s) => out.push(s),
                Err(_) => return Ok(Err(format!("element {i} is {}, not a str", item.get_type().name()?))),
            }
        }
        Ok(Ok(out))
    }

    /// A copy as a kerf tensor (parameter inputs, strings, int4 data).
    pub fn tensor(&self) -> PyResult<Result<Tensor, Bad>> {
        let shape = self.shape();
        let made = match self.dtype {
            DType::String => match self.strings()? {
                Ok(s) => Tensor::from_strings(&shape, s),
                Err(e) => return Ok(Err(e)),
            },
            DType::I4 | DType::U4 => match self.bytes().and_then(|b| pack_nibbles(b, self.dtype, self.form)) {
                Ok(packed) => Tensor::from_bytes(self.dtype, &shape, &packed),
                Err(e) => return Ok(Err(e)),
            },
            d => match self.bytes() {
                Ok(bytes) => Tensor::from_bytes(d, &shape, bytes),
                Err(e) => return Ok(Err(e)),
            },
        };
        Ok(made.map_err(|e| e.to_string()))
    }
}

/// A new C-contiguous array of `shape` holding `dtype` in `form`.
pub fn empty<'py>(py: Python<'py>, shape: &[u64], dtype: DType, form: Form) -> PyResult<ArrayArg<'py>> {
    let descr = dtypes::descr_for(py, dtype, form)?;
    let shape = PyTuple::new(py, shape)?;
    let array = numpy(py)?.getattr(pyo3::intern!(py, "empty"))?.call1((shape, descr))?;
    Ok(ArrayArg::new(array.cast_into::<PyUntypedArray>()?, dtype, form))
}

/// `array` if C-contiguous in native byte order, else such a copy.
fn contiguous<'py>(array: Bound<'py, PyUntypedArray>) -> PyResult<Bound<'py, PyUntypedArray>> {
    let descr = array.dtype();
    if array.is_c_contiguous() && descr.is_native_byteorder() != Some(false) {
        return Ok(array);
    }
    let py = array.py();
    let native = descr.call_method1(pyo3::intern!(py, "newbyteorder"), ("=",))?;
    let copy = numpy(py)?.getattr(pyo3::intern!(py, "ascontiguousarray"))?.call1((&array, native))?;
    Ok(copy.cast_into::<PyUntypedArray>()?)
}

/// One int4 element per byte (ml_dtypes keeps it in the low nibble; the raw form is a
/// plain int8/uint8 value, checked to be in range) → kerf's two per byte, low nibble first.
pub fn pack_nibbles(bytes: &[u8], dtype: DType, form: Form) -> Result<Vec<u8>, Bad> {
    if form == Form::Raw {
        for (i, &b) in bytes.iter().enumerate() {
            let (value, ok) = match dtype {
                DType::I4 => (i64::from(b as i8), (-8..=7).contains(&(b as i8))),
                _ => (i64::from(b), b <= 15),
            };
            if !ok {
                return Err(format!("element {i} = {value} is outside the range of {dtype}"));
            }
        }
    }
    Ok(bytes.chunks(2).map(|pair| pair.iter().rev().fold(0, |byte, &b| (byte << 4) | (b & 0xf))).collect())
}

/// kerf's packed nibbles → one element per byte in `form` (i4 sign-extended in raw form).
/// Elements of `out` past the packed ones are left alone.
pub fn unpack_nibbles(packed: &[u8], out: &mut [u8], dtype: DType, form: Form) {
    let nibbles = packed.iter().flat_map(|&byte| [byte & 0xf, byte >> 4]);
    for (o, nibble) in out.iter_mut().zip(nibbles) {
        *o = if form == Form::Raw && dtype == DType::I4 { (((nibble << 4) as i8) >> 4) as u8 } else { nibble };
    }
}
