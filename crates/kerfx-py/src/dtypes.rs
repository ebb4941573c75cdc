//! numpy dtypes ↔ kerf dtypes: numpy's own types, ml_dtypes' for the types numpy lacks
//! (bf16, fp8, int4), and the raw-bits convention of kerf's `.npy` files without it.

use kerfx::DType;
use numpy::{PyArrayDescr, PyArrayDescrMethods};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// How an array holds a kerf dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// numpy's own dtype; for bf16, fp8 and int4 ml_dtypes' when it is importable, else
    /// the raw form.
    Natural,
    /// The raw-bits convention of kerf's `.npy` files (`kerfx.raw`): bf16 as uint16, fp8 as
    /// uint8, int4/uint4 as one int8/uint8 value per element.
    Raw,
}

/// ml_dtypes' names of the kerf dtypes numpy lacks.
fn ml_dtypes_name(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::BF16 => "bfloat16",
        DType::F8E4M3FN => "float8_e4m3fn",
        DType::F8E5M2 => "float8_e5m2",
        DType::I4 => "int4",
        DType::U4 => "uint4",
        _ => return None,
    })
}

/// numpy's name of a kerf dtype in raw form (numpy's own dtypes are their own raw form).
fn numpy_name(d: DType, form: Form) -> &'static str {
    match (d, form) {
        (DType::Bool, _) => "bool",
        (DType::I8, _) | (DType::I4, Form::Raw) => "int8",
        (DType::U8, _) | (DType::U4 | DType::F8E4M3FN | DType::F8E5M2, Form::Raw) => "uint8",
        (DType::I16, _) => "int16",
        (DType::U16, _) | (DType::BF16, Form::Raw) => "uint16",
        (DType::I32, _) => "int32",
        (DType::U32, _) => "uint32",
        (DType::I64, _) => "int64",
        (DType::U64, _) => "uint64",
        (DType::F16, _) => "float16",
        (DType::F32, _) => "float32",
        (DType::F64, _) => "float64",
        (DType::C64, _) => "complex64",
        (DType::C128, _) => "complex128",
        (DType::String, _) => "object",
        // Without ml_dtypes, the natural form of the types numpy lacks is the raw one.
        (DType::I4 | DType::U4 | DType::F8E4M3FN | DType::F8E5M2 | DType::BF16, Form::Natural) => {
            numpy_name(d, Form::Raw)
        }
    }
}

/// `NPY_USERDEF`: dtype numbers from here on belong to dtypes other packages register.
const NPY_USERDEF: i32 = 256;

/// The kerf dtype a numpy dtype holds in natural form, or why there is none.
pub fn of_descr(descr: &Bound<'_, PyArrayDescr>) -> Result<DType, String> {
    let unknown = || {
        format!(
            "numpy dtype {descr} has no kerf dtype (kerf's: numpy's bool, int8..uint64, float16/32/64, \
             complex64/128, str/object; ml_dtypes' bfloat16, float8_e4m3fn, float8_e5m2, int4, uint4)"
        )
    };
    if descr.num() >= NPY_USERDEF {
        let name: String = descr.getattr("name").and_then(|n| n.extract()).map_err(|_| unknown())?;
        return DType::ALL.into_iter().find(|d| ml_dtypes_name(*d) == Some(name.as_str())).ok_or_else(unknown);
    }
    Ok(match (descr.kind(), descr.itemsize()) {
        (b'b', 1) => DType::Bool,
        (b'i', 1) => DType::I8,
        (b'i', 2) => DType::I16,
        (b'i', 4) => DType::I32,
        (b'i', 8) => DType::I64,
        (b'u', 1) => DType::U8,
        (b'u', 2) => DType::U16,
        (b'u', 4) => DType::U32,
        (b'u', 8) => DType::U64,
        (b'f', 2) => DType::F16,
        (b'f', 4) => DType::F32,
        (b'f', 8) => DType::F64,
        (b'c', 8) => DType::C64,
        (b'c', 16) => DType::C128,
        (b'O' | b'U', _) => DType::String,
        _ => return Err(unknown()),
    })
}

/// Whether an array of numpy dtype `descr` may hold `dtype` in raw form: an integer
/// type of the element's width (int8/uint8 for int4, one value per element).
pub fn holds_raw(descr: &Bound<'_, PyArrayDescr>, dtype: DType) -> bool {
    check_raw(descr, dtype).is_ok()
}

/// As `holds_raw`, with what a raw array of `dtype` must be when it is not.
pub fn check_raw(descr: &Bound<'_, PyArrayDescr>, dtype: DType) -> Result<(), String> {
    let width = match dtype {
        DType::I4 | DType::U4 => 1,
        d => d.byte_width().unwrap_or(0),
    };
    let ok = dtype != DType::String && descr.num() < NPY_USERDEF && matches!(descr.kind(), b'i' | b'u');
    if ok && descr.itemsize() == width {
        return Ok(());
    }
    Err(format!("{dtype} in raw form is an integer array of {width}-byte elements, found {descr}"))
}

/// The numpy dtype of a kerf dtype in a form (cached: outputs are allocated per call).
pub fn descr_for<'py>(py: Python<'py>, dtype: DType, form: Form) -> PyResult<Bound<'py, PyArrayDescr>> {
    static TABLE: PyOnceLock<Vec<Py<PyArrayDescr>>> = PyOnceLock::new();
    let table = TABLE.get_or_try_init(py, || -> PyResult<_> {
        let ml_dtypes = py.import("ml_dtypes").ok();
        let mut table = Vec::with_capacity(DType::ALL.len() * 2);
        for form in [Form::Natural, Form::Raw] {
            for d in DType::ALL {
                let from_ml = match (form, &ml_dtypes, ml_dtypes_name(d)) {
                    (Form::Natural, Some(m), Some(name)) => Some(m.getattr(name)?),
                    _ => None,
                };
                let descr = match from_ml {
                    Some(ty) => PyArrayDescr::new(py, &ty)?,
                    None => PyArrayDescr::new(py, numpy_name(d, form))?,
                };
                table.push(descr.unbind());
            }
        }
        Ok(table)
    })?;
    let at = DType::ALL.iter().position(|d| *d == dtype).unwrap_or(0);
    let row = if form == Form::Raw { DType::ALL.len() } else { 0 };
    Ok(table[row + at].bind(py).clone())
}

/// A dtype argument (`kerfx.meta`, `kerfx.raw`): a kerf dtype name (`"bf16"`, `"i8"` —
/// kerf's names, so `"i8"` is int8), or anything `numpy.dtype()` takes that is not a
/// string (`np.float32`, `ml_dtypes.bfloat16`, a dtype object).
pub fn parse(py: Python<'_>, obj: &Bound<'_, PyAny>) -> Result<DType, String> {
    if let Ok(name) = obj.extract::<String>() {
        return name.parse::<DType>().map_err(|e| format!("{e}; numpy dtypes are given as types, e.g. np.int64"));
    }
    // numpy's converter takes None for "no dtype" and gives no descr and no error, which
    // the numpy crate's `PyArrayDescr::new` panics on.
    if obj.is_none() {
        return Err("None is not a dtype".into());
    }
    let descr = PyArrayDescr::new(py, obj).map_err(|e| format!("{obj} is not a dtype: {e}"))?;
    of_descr(&descr)
}
