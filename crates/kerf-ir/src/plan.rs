//! The canonical, vendor-free Plan every frontend lowers to and every backend runs.

use crate::dtype::DType;
use std::fmt;

/// What happens when an output element reads outside the input.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoundaryMode {
    /// Out-of-range reads are refused at plan time.
    StrictBounds,
    /// z = x mod d (floor modulo).
    Wrap,
    /// z = min(max(x, 0), d-1).
    Clamp,
    /// The fill value where any axis reads outside [0, d).
    Fill,
    /// numpy `reflect` (edge not repeated), with repeated bounces.
    Reflect,
}

impl BoundaryMode {
    pub const ALL: [BoundaryMode; 5] = [
        BoundaryMode::StrictBounds,
        BoundaryMode::Wrap,
        BoundaryMode::Clamp,
        BoundaryMode::Fill,
        BoundaryMode::Reflect,
    ];
    pub fn name(self) -> &'static str {
        match self {
            BoundaryMode::StrictBounds => "strict_bounds",
            BoundaryMode::Wrap => "wrap",
            BoundaryMode::Clamp => "clamp",
            BoundaryMode::Fill => "fill",
            BoundaryMode::Reflect => "reflect",
        }
    }
    pub fn from_name(s: &str) -> Option<BoundaryMode> {
        BoundaryMode::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The period of the mode's formula in x on an axis of extent d (`source_index(x + p)
    /// = source_index(x)` for every x), `None` for modes that do not repeat: wrap d,
    /// reflect 2d − 2 (d = 1: 1, every x reads 0). `d` must be > 0. The schedule repeats
    /// an axis's segments with it instead of listing every output position.
    pub fn period(self, d: u64) -> Option<u128> {
        let d = d as u128;
        match self {
            BoundaryMode::Wrap => Some(d),
            BoundaryMode::Reflect => Some((2 * d).saturating_sub(2).max(1)),
            BoundaryMode::StrictBounds | BoundaryMode::Clamp | BoundaryMode::Fill => None,
        }
    }

    /// The input coordinate read for x on an axis of extent d, or `None` for "outside"
    /// (fill, and strict_bounds, which the frontend has already ruled out).
    /// `d` must be > 0. This is the formula of SEMANTICS.md, written once.
    pub fn source_index(self, x: i64, d: u64) -> Option<u64> {
        let d = d as i128;
        let x = x as i128;
        let z = match self {
            BoundaryMode::StrictBounds | BoundaryMode::Fill => {
                if x < 0 || x >= d {
                    return None;
                }
                x
            }
            BoundaryMode::Wrap => x.rem_euclid(d),
            BoundaryMode::Clamp => x.clamp(0, d - 1),
            BoundaryMode::Reflect => {
                if d == 1 {
                    0
                } else {
                    let p = 2 * d - 2;
                    let c = x.abs() % p;
                    if c >= d { p - c } else { c }
                }
            }
        };
        Some(z as u64)
    }
}

impl fmt::Display for BoundaryMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How one input axis is read: output coordinate y in [0, extent) reads x = start + y·step.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AxisRead {
    pub extent: u64,
    pub start: i64,
    pub step: i64,
}

impl AxisRead {
    /// The coordinate read at output position y, exactly (i128: never wraps).
    pub fn x(&self, y: u64) -> i128 {
        self.start as i128 + y as i128 * self.step as i128
    }
}

/// A slice: every op of the slice family lowers to this. Axes are never permuted by
/// these ops, so the core output has one axis per input axis; shrunk and inserted
/// axes are a reshape of the core output into `output_shape`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SlicePlan {
    pub dtype: DType,
    pub input_shape: Vec<u64>,
    /// One per input axis.
    pub axes: Vec<AxisRead>,
    pub mode: BoundaryMode,
    /// Element bits of the fill value (low bytes; low nibble for i4/u4). 0 unless mode is fill.
    pub fill_bits: u128,
    /// The final output shape: the axes' extents, reshaped for shrink/new axes.
    pub output_shape: Vec<u64>,
}

impl SlicePlan {
    pub fn core_shape(&self) -> Vec<u64> {
        self.axes.iter().map(|a| a.extent).collect()
    }
    pub fn output_len(&self) -> u64 {
        crate::tensor::volume(&self.output_shape).unwrap_or(0)
    }
    pub fn input_len(&self) -> u64 {
        crate::tensor::volume(&self.input_shape).unwrap_or(0)
    }
}

/// Linspace coefficients: out[a] = alpha + Σk beta[k]·a_k.
#[derive(Clone, Debug, PartialEq)]
pub enum Linspace {
    /// Integer outputs: exact; the frontend has checked every value fits.
    Int { alpha: i64, beta: Vec<i64> },
    /// f32 output: the sum in f64, k = 0..n-1 in order, rounded once to f32.
    Float { alpha: f64, beta: Vec<f64> },
}

/// What a fill op computes.
#[derive(Clone, Debug, PartialEq)]
pub enum FillKind {
    Linspace(Linspace),
    /// Values in [alpha, beta), computed in f32 (see `random`).
    RandomUniform {
        alpha: f32,
        beta: f32,
        seed: u64,
    },
    /// Mean alpha, standard deviation beta, computed in f32 (see `random`).
    RandomNormal {
        alpha: f32,
        beta: f32,
        seed: u64,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct FillPlan {
    pub dtype: DType,
    pub shape: Vec<u64>,
    pub kind: FillKind,
}

impl FillPlan {
    pub fn output_len(&self) -> u64 {
        crate::tensor::volume(&self.shape).unwrap_or(0)
    }
}

/// A lowered request.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    Slice(SlicePlan),
    Fill(FillPlan),
}

impl Plan {
    pub fn dtype(&self) -> DType {
        match self {
            Plan::Slice(s) => s.dtype,
            Plan::Fill(f) => f.dtype,
        }
    }
    pub fn output_shape(&self) -> &[u64] {
        match self {
            Plan::Slice(s) => &s.output_shape,
            Plan::Fill(f) => &f.shape,
        }
    }
    /// The data input's shape, for slices.
    pub fn input_shape(&self) -> Option<&[u64]> {
        match self {
            Plan::Slice(s) => Some(&s.input_shape),
            Plan::Fill(_) => None,
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Plan::Slice(s) => {
                write!(f, "slice {} {:?} -> {:?} mode {}", s.dtype, s.input_shape, s.output_shape, s.mode)?;
                for (i, a) in s.axes.iter().enumerate() {
                    write!(f, "\n  axis {i}: x = {} + y*{} for y < {}", a.start, a.step, a.extent)?;
                }
                if s.mode == BoundaryMode::Fill {
                    write!(f, "\n  fill = {}", crate::scalar::format_bits(s.dtype, s.fill_bits))?;
                }
                Ok(())
            }
            Plan::Fill(p) => write!(f, "fill {} {:?} {:?}", p.dtype, p.shape, p.kind),
        }
    }
}
