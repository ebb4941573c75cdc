//! numpy arrays as kernel buffers: read in place when C-contiguous in native byte order
//! (else copied once into such an array) -- or, for an op's data input, read in place
//! through its strides whatever its layout (a view kernel) -- and outputs written in
//! place into the caller's `out` or a new array. int4 is the exception: kerf packs two elements per byte, numpy
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
use numpy::npyffi::{_PyArray_GET_ITEM_DATA, NPY_ARRAY_WRITEABLE, NpyTypes, PY_ARRAY_API, get_type_object, npy_intp};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyDict, PyModule, PyTuple};

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

/// An array's shape, strides (bytes) and numpy dtype, as recorded when the argument was made.
struct Layout<'py> {
    shape: Vec<u64>,
    strides: Vec<isize>,
    descr: Bound<'py, PyArrayDescr>,
}

impl<'py> Layout<'py> {
    fn of(array: &Bound<'py, PyUntypedArray>) -> Layout<'py> {
        Layout {
            shape: array.shape().iter().map(|&d| d as u64).collect(),
            strides: array.strides().to_vec(),
            descr: array.dtype(),
        }
    }
}

/// Where a strided array's elements lie: the address of its element of lowest address,
/// the bytes from there to the end of its element of highest address, and the view a
/// kernel reads it through from that element ([`kerfx::Strided`], in elements).
pub struct View {
    pub lowest: usize,
    pub span: usize,
    pub strided: kerfx::Strided,
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
            match dlpack(obj)? {
                Some(Ok((array, dtype, form))) => (array, dtype, form),
                Some(Err(e)) => return Ok(Err(e)),
                None => return Ok(Ok(None)),
            }
        };
        Ok(Ok(Some(ArrayArg::new(contiguous(array)?, dtype, form))))
    }

    /// As [`ArrayArg::from_py`], for an input a view kernel may read in place: an array
    /// of any strides (transposed, Fortran order, sliced with steps, reversed, broadcast)
    /// is kept as it is. Copied still: byte-swapped arrays, strings and int4 (kernels
    /// read native element bytes; int4 is repacked), and strides that are not whole
    /// elements.
    pub fn from_py_view(obj: &Bound<'py, PyAny>) -> PyResult<Result<Option<ArrayArg<'py>>, Bad>> {
        if let Ok(array) = obj.cast::<PyUntypedArray>()
            && let Ok(dtype) = dtypes::of_descr(&array.dtype())
            && readable_in_place(array, dtype)
        {
            return Ok(Ok(Some(ArrayArg::new(array.clone(), dtype, Form::Natural))));
        }
        if let Ok(raw) = obj.cast::<Raw>() {
            let (array, dtype) = (raw.get().array.bind(obj.py()), raw.get().dtype);
            if dtypes::check_raw(&array.dtype(), dtype).is_ok() && readable_in_place(array, dtype) {
                return Ok(Ok(Some(ArrayArg::new(array.clone(), dtype, Form::Raw))));
            }
        }
        if obj.cast::<PyUntypedArray>().is_err()
            && obj.cast::<Raw>().is_err()
            && let Some(Ok((array, dtype, form))) = dlpack(obj)?
            && readable_in_place(&array, dtype)
        {
            return Ok(Ok(Some(ArrayArg::new(array, dtype, form))));
        }
        Self::from_py(obj)
    }

    /// Whether the array is C-contiguous (read as one slice; else through [`ArrayArg::view`]).
    pub fn is_dense(&self) -> bool {
        self.array.is_c_contiguous()
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
        if !self.unchanged() || !self.array.is_c_contiguous() {
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

    /// Whether the array still has the shape, strides and dtype recorded when the argument was made.
    fn unchanged(&self) -> bool {
        let same_shape = self.array.shape().iter().map(|&d| d as u64).eq(self.layout.shape.iter().copied());
        same_shape
            && self.array.strides() == self.layout.strides.as_slice()
            && self.array.dtype().is_equiv_to(&self.layout.descr)
    }

    /// Where the elements lie, for a view kernel reading them in place, the layout checked
    /// again now: it must still be the one recorded when the argument was made, of whole-element strides
    /// and a dtype of element bytes (not strings or int4). No Python code may run between this
    /// and the kernel's read.
    pub fn view(&self) -> Result<View, Bad> {
        if !self.unchanged() {
            return Err(format!(
                "changed while the call ran (Python code run meanwhile -- a later argument's conversion, a \
                 finalizer, another thread -- set its shape, strides or dtype): it was a {} array of shape {:?} \
                 and strides {:?}, it is now a {} array of shape {:?} and strides {:?}",
                self.layout.descr,
                self.layout.shape,
                self.layout.strides,
                self.array.dtype(),
                self.array.shape(),
                self.array.strides(),
            ));
        }
        let width = match self.dtype {
            DType::String | DType::I4 | DType::U4 => None,
            d => d.byte_width().filter(|&w| w == self.array.dtype().itemsize()),
        };
        let Some(width) = width else {
            return Err(format!("a {} array is not read through strides", self.dtype));
        };
        let mut strides = Vec::with_capacity(self.layout.strides.len());
        for &s in &self.layout.strides {
            if s % width as isize != 0 {
                return Err(format!("strides {:?} are not whole {width}-byte elements", self.layout.strides));
            }
            strides.push((s / width as isize) as i64);
        }
        let probe = kerfx::Strided { offset: 0, strides, buffer_len: 0 };
        // An empty array has no element to read: a view of none.
        let (lo, hi) = probe.span(&self.layout.shape).unwrap_or((0, -1));
        let too_large = || format!("a view of shape {:?} spans more than memory holds", self.layout.shape);
        let lo_bytes = isize::try_from(lo * width as i128).map_err(|_| too_large())?;
        let span = usize::try_from((hi - lo + 1) * width as i128).map_err(|_| too_large())?;
        // SAFETY: as in `writeable`: the array object is live.
        let data = unsafe { (*_PyArray_GET_ITEM_DATA(self.array.as_array_ptr())).data } as usize;
        let strided = kerfx::Strided { offset: -(lo as i64), buffer_len: (hi - lo + 1) as u64, ..probe };
        Ok(View { lowest: data.wrapping_add_signed(lo_bytes), span, strided })
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
        if !self.is_dense() {
            if !self.unchanged() {
                return Ok(Err(self.view().err().unwrap_or_default()));
            }
            // A strided array (kept for a view kernel) copied into a dense one first.
            return ArrayArg::new(contiguous(self.array.clone())?, self.dtype, self.form).tensor();
        }
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
    let array = new_array(py, shape, dtypes::descr_for(py, dtype, form)?)?;
    Ok(ArrayArg::new(array, dtype, form))
}

/// A new C-contiguous writeable array of `shape` and numpy dtype `descr`, its elements
/// not set (numpy's C API: what `numpy.empty` does, without a Python call).
pub fn new_array<'py>(
    py: Python<'py>,
    shape: &[u64],
    descr: Bound<'py, PyArrayDescr>,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    // On the stack for the ranks models use (no allocation per output), else on the heap.
    let (mut small, mut large) = ([0 as npy_intp; 16], Vec::new());
    let dims: &mut [npy_intp] = if shape.len() <= small.len() {
        &mut small[..shape.len()]
    } else {
        large.resize(shape.len(), 0);
        &mut large
    };
    for (to, &d) in dims.iter_mut().zip(shape) {
        *to = npy_intp::try_from(d)
            .map_err(|_| pyo3::exceptions::PyValueError::new_err(format!("array of shape {shape:?}: too large")))?;
    }
    let nd = std::os::raw::c_int::try_from(dims.len())
        .map_err(|_| pyo3::exceptions::PyValueError::new_err(format!("array of {} dims: too many", dims.len())))?;
    // SAFETY: numpy's C API (imported by `PY_ARRAY_API`) given the array type, a dtype
    // reference it takes over (`into_dtype_ptr` makes a new one), `nd` dims read from
    // `dims` (alive for the call), no strides, data or base: numpy allocates the
    // buffer, checks the dims (count, sign, total size) and returns NULL with an
    // exception set when it refuses them or memory runs out.
    let ptr = unsafe {
        PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            get_type_object(py, NpyTypes::PyArray_Type),
            descr.into_dtype_ptr(),
            nd,
            dims.as_mut_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
        )
    };
    // SAFETY: `ptr` is a new reference (owned) or NULL with an exception set.
    let array = unsafe { Bound::from_owned_ptr_or_err(py, ptr)? };
    Ok(array.cast_into::<PyUntypedArray>()?)
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

/// DLPack's type code of bfloat16 (`kDLBfloat`) and of unsigned integers (`kDLUInt`).
const DL_BFLOAT: u8 = 4;
const DL_UINT: u8 = 1;

/// The head of DLPack's (unversioned) `DLManagedTensor`: its `DLTensor` (data pointer,
/// device, ndim, dtype, ...), laid out as `dlpack.h` declares it. Only `dtype` is used.
#[repr(C)]
struct DlTensorHead {
    data: *mut std::ffi::c_void,
    device_type: i32,
    device_id: i32,
    ndim: i32,
    /// `DLDataType`: code, bits, lanes.
    code: u8,
    bits: u8,
    lanes: u16,
}

/// The offset of the `DLTensor` in a `DLManagedTensorVersioned`: after its version (two
/// u32), manager context and deleter (two pointers) and flags (u64).
const VERSIONED_TENSOR_AT: usize = 8 + 2 * std::mem::size_of::<usize>() + 8;

/// A DLPack capsule handed on to `numpy.from_dlpack` (which takes an object with
/// `__dlpack__`, not a capsule).
#[pyclass(frozen)]
struct Capsule {
    capsule: Py<PyAny>,
    device: Py<PyAny>,
}

#[pymethods]
impl Capsule {
    #[pyo3(signature = (*_args, **_kwargs))]
    fn __dlpack__(&self, py: Python<'_>, _args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Py<PyAny> {
        self.capsule.clone_ref(py)
    }
    fn __dlpack_device__(&self, py: Python<'_>) -> Py<PyAny> {
        self.device.clone_ref(py)
    }
}

/// A numpy array over a DLPack tensor's memory, the kerf dtype it holds, and its form.
pub type Held<'py> = (Bound<'py, PyUntypedArray>, DType, Form);

/// Any object with `__dlpack__` other than a numpy array (a torch tensor, a JAX or
/// CuPy-on-host array): a numpy array over its memory (`numpy.from_dlpack`: no copy), with
/// its kerf dtype and form; `None` for an object without `__dlpack__`. bf16, which numpy
/// has no dtype of, is read as its 16-bit patterns: as ml_dtypes' bfloat16 when it is
/// importable, else in raw form (uint16).
pub fn dlpack<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Result<Held<'py>, Bad>>> {
    let py = obj.py();
    if !obj.hasattr(pyo3::intern!(py, "__dlpack__"))? {
        return Ok(None);
    }
    let from_dlpack = numpy(py)?.getattr(pyo3::intern!(py, "from_dlpack"))?;
    let kind = obj.get_type().name()?;
    let array = match from_dlpack.call1((obj,)) {
        Ok(array) => array,
        Err(first) => match bf16_as_u16(obj, &from_dlpack)? {
            Some(bits) => {
                let natural = dtypes::descr_for(py, DType::BF16, Form::Natural)?;
                let form = if dtypes::holds_raw(&natural, DType::BF16) { Form::Raw } else { Form::Natural };
                let array = bits.call_method1(pyo3::intern!(py, "view"), (natural,))?;
                return Ok(Some(Ok((array.cast_into::<PyUntypedArray>()?, DType::BF16, form))));
            }
            None => return Ok(Some(Err(format!("a {kind} read through DLPack: {first}")))),
        },
    };
    let array = array.cast_into::<PyUntypedArray>()?;
    Ok(Some(dtypes::of_descr(&array.dtype()).map(|d| (array, d, Form::Natural))))
}

/// A bf16 DLPack tensor (which `numpy.from_dlpack` refuses) as a uint16 array of its bit
/// patterns over the same memory: its capsule's dtype relabelled 16-bit unsigned (same
/// width, same lanes) before numpy takes it. `None` when `obj`'s tensor is not bf16.
fn bf16_as_u16<'py>(obj: &Bound<'py, PyAny>, from_dlpack: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = obj.py();
    let device = obj.call_method0(pyo3::intern!(py, "__dlpack_device__"))?;
    // A versioned capsule (DLPack 1.0, which can say the memory is writeable) when the producer makes them,
    // else the unversioned one.
    let kwargs = PyDict::new(py);
    kwargs.set_item("max_version", (1, 0))?;
    let capsule = match obj.call_method(pyo3::intern!(py, "__dlpack__"), (), Some(&kwargs)) {
        Ok(c) => c,
        Err(_) => obj.call_method0(pyo3::intern!(py, "__dlpack__"))?,
    };
    let Ok(cap) = capsule.cast::<PyCapsule>() else {
        return Ok(None);
    };
    let head = if let Ok(p) = cap.pointer_checked(Some(c"dltensor_versioned")) {
        p.as_ptr().cast::<u8>().wrapping_add(VERSIONED_TENSOR_AT).cast::<DlTensorHead>()
    } else if let Ok(p) = cap.pointer_checked(Some(c"dltensor")) {
        p.as_ptr().cast::<DlTensorHead>()
    } else {
        return Ok(None);
    };
    // A capsule named "dltensor" holds a `DLManagedTensor`, one named "dltensor_versioned" a
    // `DLManagedTensorVersioned` (DLPack's contract, checked by the names above), whose `DLTensor` is at offset 0 and
    // `VERSIONED_TENSOR_AT` respectively, its leading fields declared in order by `DlTensorHead`; the capsule is
    // unconsumed (its name unchanged), so the tensor is alive and no consumer holds it but this function.
    // SAFETY: so `head` points at a readable `DlTensorHead`.
    let (code, bits, lanes) = unsafe { ((*head).code, (*head).bits, (*head).lanes) };
    if (code, bits, lanes) != (DL_BFLOAT, 16, 1) {
        return Ok(None);
    }
    // SAFETY: as above; the dtype field is plain data that only this unconsumed capsule's consumer reads, and
    // relabelling bf16 as u16 keeps the element width, so every offset numpy computes stays the producer's.
    unsafe { (*head).code = DL_UINT };
    let wrapper = Py::new(py, Capsule { capsule: capsule.clone().unbind(), device: device.unbind() })?;
    from_dlpack.call1((wrapper,)).map(Some)
}

/// Whether a view kernel may read `array` (holding `dtype`) where it lies: native byte
/// order, element bytes of the dtype's width (not strings, not int4), strides of whole elements.
fn readable_in_place(array: &Bound<'_, PyUntypedArray>, dtype: DType) -> bool {
    let descr = array.dtype();
    let width = descr.itemsize();
    let bytes = !matches!(dtype, DType::String | DType::I4 | DType::U4) && dtype.byte_width() == Some(width);
    bytes
        && width > 0
        && descr.is_native_byteorder() != Some(false)
        && array.strides().iter().all(|s| s % width as isize == 0)
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
