//! `kerf bench --peer ndarray`: the same job done with ndarray, as a user of ndarray would
//! write it, timed beside kerf with the same protocol (the README table's ndarray column).
//!
//! A slice is `assign` from sliced views (`Slice` with the plan's step, negative for a
//! reversal) into a preallocated array: each axis splits into runs of output positions
//! that read the input at one step (a clamped border reads one position, which `assign`
//! broadcasts) or read nothing (a fill border), and each combination of one run per axis
//! is one `assign` or `fill`. A linspace is written row by row from the row's first sum,
//! with kerf's f64 sum in axis order and its one rounding. Elements move as unsigned
//! integers of their width (the same machine code as the float of that width). ndarray
//! has no random fill of its own (that is ndarray-rand, not a dependency of kerf), so
//! random fills have no ndarray job.

use kerfx::{DType, FillKind, FillPlan, Linspace, Plan, Step};
use ndarray::{Array, Dimension, Ix0, Ix1, Ix2, Ix3, Ix4, Ix5, Ix6, IxDyn, Slice};

/// A peer's job on its own preallocated arrays: run it, and read its output's bytes.
pub trait Job {
    fn run(&mut self);
    fn output_bytes(&self) -> Vec<u8>;
}

/// `f::<T, D>(args)` with D the fixed-rank dimension type of `rank` (as a user of ndarray
/// writes `Array2`), `IxDyn` above rank 6.
macro_rules! by_rank {
    ($rank:expr, $f:ident::<$t:ty>($($arg:expr),*)) => {
        match $rank {
            0 => $f::<$t, Ix0>($($arg),*),
            1 => $f::<$t, Ix1>($($arg),*),
            2 => $f::<$t, Ix2>($($arg),*),
            3 => $f::<$t, Ix3>($($arg),*),
            4 => $f::<$t, Ix4>($($arg),*),
            5 => $f::<$t, Ix5>($($arg),*),
            6 => $f::<$t, Ix6>($($arg),*),
            _ => $f::<$t, IxDyn>($($arg),*),
        }
    };
}

/// The ndarray job doing `plan`'s work on `input` (the kernel's input bytes, row-major).
pub fn ndarray_job(plan: &Plan, input: Option<&[u8]>) -> Result<Box<dyn Job>, String> {
    match plan {
        Plan::Step(p) if p.gathered.is_some() => {
            let input = input.ok_or("a gather reads an input")?;
            match p.dtype.byte_width() {
                Some(1) => gather_job::<u8>(p, input),
                Some(2) => gather_job::<u16>(p, input),
                Some(4) => gather_job::<u32>(p, input),
                Some(8) => gather_job::<u64>(p, input),
                Some(16) => gather_job::<u128>(p, input),
                _ => Err(format!("ndarray has no element type for {} (packed or not plain memory)", p.dtype)),
            }
        }
        Plan::Step(p) if !p.reads_in_place() => {
            let input = input.ok_or("a move reads an input")?;
            let rank = p.source().len();
            match p.dtype.byte_width() {
                Some(1) => by_rank!(rank, move_job::<u8>(p, input)),
                Some(2) => by_rank!(rank, move_job::<u16>(p, input)),
                Some(4) => by_rank!(rank, move_job::<u32>(p, input)),
                Some(8) => by_rank!(rank, move_job::<u64>(p, input)),
                Some(16) => by_rank!(rank, move_job::<u128>(p, input)),
                _ => Err(format!("ndarray has no element type for {} (packed or not plain memory)", p.dtype)),
            }
        }
        Plan::Step(p) => {
            let input = input.ok_or("a slice reads an input")?;
            match p.dtype.byte_width() {
                Some(1) => by_rank!(p.input_shape.len(), slice_job::<u8>(p, input)),
                Some(2) => by_rank!(p.input_shape.len(), slice_job::<u16>(p, input)),
                Some(4) => by_rank!(p.input_shape.len(), slice_job::<u32>(p, input)),
                Some(8) => by_rank!(p.input_shape.len(), slice_job::<u64>(p, input)),
                Some(16) => by_rank!(p.input_shape.len(), slice_job::<u128>(p, input)),
                _ => Err(format!("ndarray has no element type for {} (packed or not plain memory)", p.dtype)),
            }
        }
        Plan::Fill(p) => match (&p.kind, p.dtype) {
            (FillKind::Linspace(Linspace::Float { alpha, beta }), DType::F32) => {
                by_rank!(p.shape.len(), linspace_job::<f32>(p, *alpha, beta))
            }
            (FillKind::Linspace(Linspace::Int { alpha, beta }), DType::I32) => {
                by_rank!(p.shape.len(), linspace_job::<i32>(p, *alpha, beta))
            }
            (FillKind::Linspace(Linspace::Int { alpha, beta }), DType::I64) => {
                by_rank!(p.shape.len(), linspace_job::<i64>(p, *alpha, beta))
            }
            (kind, dtype) => Err(format!(
                "ndarray has no {} fill of {dtype} (random fills are ndarray-rand's, not a dependency of kerf)",
                kind.name()
            )),
        },
    }
}

/// An element: plain little-endian bits of a fixed width.
pub trait Word: Copy + Default + 'static {
    fn from_le(bytes: &[u8]) -> Self;
    fn extend_le(self, out: &mut Vec<u8>);
    /// The low bits of `bits` (a fill value's element bits).
    fn from_low(bits: u128) -> Self;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            fn from_le(bytes: &[u8]) -> $t {
                <$t>::from_le_bytes(bytes.try_into().expect("one element's bytes"))
            }
            fn extend_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn from_low(bits: u128) -> $t {
                bits as $t
            }
        }
    )*};
}
word!(u8, u16, u32, u64, u128, i32, i64);

impl Word for f32 {
    fn from_le(bytes: &[u8]) -> f32 {
        f32::from_bits(<u32 as Word>::from_le(bytes))
    }
    fn extend_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn from_low(bits: u128) -> f32 {
        f32::from_bits(bits as u32)
    }
}

fn dim<D: Dimension>(shape: &[u64]) -> Result<D, String> {
    let mut d = D::zeros(shape.len());
    for (d, &n) in d.slice_mut().iter_mut().zip(shape) {
        *d = usize::try_from(n).map_err(|_| format!("extent {n} does not fit usize"))?;
    }
    Ok(d)
}

fn bytes_of<T: Word, D: Dimension>(a: &Array<T, D>) -> Vec<u8> {
    let mut v = Vec::with_capacity(a.len() * size_of::<T>());
    for &x in a {
        x.extend_le(&mut v);
    }
    v
}

/// Output positions `y0 .. y0 + len` of one axis read input positions `x0 + dx·i`
/// (`Some((x0, dx))`; `dx` = 0 reads one position for all) or none (`None`: the fill).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    y0: usize,
    len: usize,
    src: Option<(usize, isize)>,
}

impl Run {
    fn out(&self) -> Slice {
        Slice::from(self.y0..self.y0 + self.len)
    }
    /// The input positions as a slice (`None` for the fill).
    fn src(&self) -> Option<Slice> {
        let (x0, dx) = self.src?;
        let x0 = x0 as isize;
        let last = x0 + (self.len as isize - 1) * dx;
        Some(match dx {
            0 => Slice::new(x0, Some(x0 + 1), 1),
            d if d > 0 => Slice::new(x0, Some(last + 1), d),
            // A negative step takes the range from its back: x0 first.
            d => Slice::new(last, Some(x0 + 1), d),
        })
    }
}

/// One axis's runs, greedily as long as possible: O(extent).
fn runs(p: &Step, k: usize) -> Vec<Run> {
    let a = p.axes[k];
    let w = p.window(k);
    let mut out: Vec<Run> = Vec::new();
    for y in 0..a.extent as usize {
        let x = if w.len == 0 {
            None
        } else {
            // In range of i64: the plan was validated.
            p.mode.source_index(a.x(y as u64) as i64, w.len).map(|z| (z + w.lo) as usize)
        };
        if let Some(r) = out.last_mut() {
            let extends = match (r.src, x) {
                (None, None) => true,
                (Some((x0, _)), Some(x)) if r.len == 1 => {
                    r.src = Some((x0, x as isize - x0 as isize));
                    true
                }
                (Some((x0, dx)), Some(x)) => x0 as isize + r.len as isize * dx == x as isize,
                _ => false,
            };
            if extends {
                r.len += 1;
                continue;
            }
        }
        out.push(Run { y0: y, len: 1, src: x.map(|x| (x, 0)) });
    }
    out
}

struct SliceJob<T, D> {
    input: Array<T, D>,
    out: Array<T, D>,
    runs: Vec<Vec<Run>>,
    fill: T,
    pick: Vec<usize>,
}

fn slice_job<T: Word, D: Dimension + 'static>(p: &Step, input: &[u8]) -> Result<Box<dyn Job>, String> {
    let w = size_of::<T>();
    let want = p.input_len() as usize * w;
    if input.len() != want {
        return Err(format!("the input has {} bytes, the plan reads {want}", input.len()));
    }
    let values: Vec<T> = input.chunks_exact(w).map(T::from_le).collect();
    let input = Array::from_shape_vec(dim::<D>(&p.input_shape)?, values).map_err(|e| e.to_string())?;
    let out = Array::from_elem(dim::<D>(&p.core_shape())?, T::default());
    let runs: Vec<Vec<Run>> = (0..p.axes.len()).map(|k| runs(p, k)).collect();
    let pick = vec![0; runs.len()];
    Ok(Box::new(SliceJob { input, out, runs, fill: T::from_low(p.fill_bits), pick }))
}

impl<T: Word, D: Dimension> Job for SliceJob<T, D> {
    fn run(&mut self) {
        let SliceJob { input, out, runs, fill, pick } = self;
        if runs.iter().any(Vec::is_empty) {
            return; // an empty output
        }
        pick.fill(0);
        loop {
            let run = |k: usize, pick: &[usize]| runs[k][pick[k]];
            let mut region = out.slice_each_axis_mut(|ax| run(ax.axis.index(), pick).out());
            if (0..runs.len()).any(|k| run(k, pick).src.is_none()) {
                region.fill(*fill);
            } else {
                let src = input.slice_each_axis(|ax| run(ax.axis.index(), pick).src().expect("not a fill run"));
                region.assign(&src);
            }
            // The next combination (the last axis fastest); done after the last.
            let mut k = runs.len();
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                pick[k] += 1;
                if pick[k] < runs[k].len() {
                    break;
                }
                pick[k] = 0;
            }
        }
    }

    fn output_bytes(&self) -> Vec<u8> {
        bytes_of(&self.out)
    }
}

/// A move that reads whole axes (Transpose, Reshape, DepthToSpace, Expand): as a user of
/// ndarray writes it, `assign` from the input reshaped, its axes permuted and broadcast.
/// A gather as ndarray users write one into a preallocated array: per index, the
/// gathered axis's sub-array at that coordinate assigned to the output's at its position
/// (ndarray's `select` allocates its result).
struct GatherJob<T> {
    input: Array<T, IxDyn>,
    axis: usize,
    coords: Vec<usize>,
    out: Array<T, IxDyn>,
}

fn gather_job<T: Word>(p: &Step, input: &[u8]) -> Result<Box<dyn Job>, String> {
    let g = p.gathered.as_ref().ok_or("not a gather")?;
    let source = p.source();
    let plain = p.mode == kerfx::BoundaryMode::StrictBounds
        && p.order.iter().enumerate().all(|(j, &k)| j == k)
        && p.windows.is_empty()
        && p.axes
            .iter()
            .enumerate()
            .all(|(k, a)| a.start == 0 && a.step == 1 && (k == g.axis || a.extent == source[k]));
    if !plain {
        return Err("the ndarray peer gathers whole sub-arrays by coordinates in range only".into());
    }
    let w = size_of::<T>();
    let want = p.input_len() as usize * w;
    if input.len() != want {
        return Err(format!("the input has {} bytes, the plan reads {want}", input.len()));
    }
    let values: Vec<T> = input.chunks_exact(w).map(T::from_le).collect();
    let input = Array::from_shape_vec(dim::<IxDyn>(source)?, values).map_err(|e| e.to_string())?;
    let coords = g.coords.iter().map(|&c| c as usize).collect();
    let out = Array::from_elem(dim::<IxDyn>(&p.core_shape())?, T::default());
    Ok(Box::new(GatherJob { input, axis: g.axis, coords, out }))
}

impl<T: Word> Job for GatherJob<T> {
    fn run(&mut self) {
        let axis = ndarray::Axis(self.axis);
        for (y, &c) in self.coords.iter().enumerate() {
            self.out.index_axis_mut(axis, y).assign(&self.input.index_axis(axis, c));
        }
    }

    fn output_bytes(&self) -> Vec<u8> {
        bytes_of(&self.out)
    }
}

struct MoveJob<T, D> {
    input: Array<T, D>,
    order: D,
    out: Array<T, D>,
}

fn move_job<T: Word, D: Dimension + 'static>(p: &Step, input: &[u8]) -> Result<Box<dyn Job>, String> {
    let source = p.source();
    let whole = p.windows.is_empty()
        && p.axes
            .iter()
            .zip(source)
            .all(|(a, &d)| a.start == 0 && (a.step == 1 && a.extent == d || a.step == 0 && d == 1));
    if !whole {
        return Err("the ndarray peer moves whole axes only (transposes, reshapes, broadcasts)".into());
    }
    let w = size_of::<T>();
    let want = p.input_len() as usize * w;
    if input.len() != want {
        return Err(format!("the input has {} bytes, the plan reads {want}", input.len()));
    }
    let values: Vec<T> = input.chunks_exact(w).map(T::from_le).collect();
    let input = Array::from_shape_vec(dim::<D>(source)?, values).map_err(|e| e.to_string())?;
    let order: Vec<u64> = (0..source.len()).map(|j| p.source_axis(j) as u64).collect();
    let order = dim::<D>(&order)?;
    let out = Array::from_elem(dim::<D>(&p.core_shape())?, T::default());
    if input.view().permuted_axes(order.clone()).broadcast(out.raw_dim()).is_none() {
        return Err("the input's axes do not broadcast to the output".into());
    }
    Ok(Box::new(MoveJob { input, order, out }))
}

impl<T: Word, D: Dimension> Job for MoveJob<T, D> {
    fn run(&mut self) {
        let moved = self.input.view().permuted_axes(self.order.clone());
        // Checked when the job was made.
        if let Some(b) = moved.broadcast(self.out.raw_dim()) {
            self.out.assign(&b);
        }
    }

    fn output_bytes(&self) -> Vec<u8> {
        bytes_of(&self.out)
    }
}

/// A linspace element type: its sum's type, one term of the sum, and the one rounding.
pub trait LinElem: Word {
    type Acc: Copy + 'static;
    fn add_term(acc: Self::Acc, beta: Self::Acc, a: usize) -> Self::Acc;
    fn round(acc: Self::Acc) -> Self;
    /// A row along the last axis: `row[j]` = round(base + beta·j).
    fn fill_row(row: &mut [Self], base: Self::Acc, beta: Self::Acc) {
        for (j, o) in row.iter_mut().enumerate() {
            *o = Self::round(Self::add_term(base, beta, j));
        }
    }
}

impl LinElem for f32 {
    type Acc = f64;
    #[inline(always)]
    fn add_term(acc: f64, beta: f64, a: usize) -> f64 {
        acc + beta * a as f64
    }
    fn fill_row(row: &mut [f32], base: f64, beta: f64) {
        // The same values with i32 indices, which convert to f64 in vector registers
        // (usize does not on AVX2), for rows that short.
        if row.len() > i32::MAX as usize {
            return row.iter_mut().enumerate().for_each(|(j, o)| *o = (base + beta * j as f64) as f32);
        }
        for (j, o) in (0..row.len() as i32).zip(row) {
            *o = (base + beta * j as f64) as f32;
        }
    }
    #[inline(always)]
    fn round(acc: f64) -> f32 {
        acc as f32
    }
}

impl LinElem for i32 {
    type Acc = i64;
    #[inline(always)]
    fn add_term(acc: i64, beta: i64, a: usize) -> i64 {
        acc.wrapping_add(beta.wrapping_mul(a as i64))
    }
    #[inline(always)]
    fn round(acc: i64) -> i32 {
        acc as i32
    }
}

impl LinElem for i64 {
    type Acc = i64;
    #[inline(always)]
    fn add_term(acc: i64, beta: i64, a: usize) -> i64 {
        acc.wrapping_add(beta.wrapping_mul(a as i64))
    }
    #[inline(always)]
    fn round(acc: i64) -> i64 {
        acc
    }
}

struct LinspaceJob<T: LinElem, D> {
    out: Array<T, D>,
    alpha: T::Acc,
    beta: Vec<T::Acc>,
}

fn linspace_job<T: LinElem, D: Dimension + 'static>(
    p: &FillPlan,
    alpha: T::Acc,
    beta: &[T::Acc],
) -> Result<Box<dyn Job>, String> {
    if beta.len() != p.shape.len() {
        return Err(format!("{} betas for {} axes", beta.len(), p.shape.len()));
    }
    let out = Array::from_elem(dim::<D>(&p.shape)?, T::default());
    Ok(Box::new(LinspaceJob::<T, D> { out, alpha, beta: beta.to_vec() }))
}

impl<T: LinElem, D: Dimension> Job for LinspaceJob<T, D> {
    fn run(&mut self) {
        let LinspaceJob { out, alpha, beta } = self;
        let Some((&b_last, b_lead)) = beta.split_last() else {
            // Rank 0: the one value is alpha.
            out.fill(T::round(*alpha));
            return;
        };
        let lead: Vec<usize> = out.shape()[..b_lead.len()].to_vec();
        let mut idx = vec![0usize; lead.len()];
        for (r, row) in out.rows_mut().into_iter().enumerate() {
            // The row's leading index, summed in axis order.
            let mut rest = r;
            for (k, &n) in lead.iter().enumerate().rev() {
                idx[k] = rest % n;
                rest /= n;
            }
            let base = b_lead.iter().zip(&idx).fold(*alpha, |s, (&b, &a)| T::add_term(s, b, a));
            T::fill_row(row.into_slice().expect("rows of a new array are contiguous"), base, b_last);
        }
    }

    fn output_bytes(&self) -> Vec<u8> {
        bytes_of(&self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerfx::{AxisRead, BoundaryMode, Tensor, Window};

    /// The job's output equals the reference interpreter's (the oracle) on `input`.
    fn check(plan: &Plan, input: Option<&Tensor>) {
        let mut job = ndarray_job(plan, input.and_then(Tensor::bytes)).unwrap();
        job.run();
        let want = kerfx::reference::evaluate(plan, input.map(Tensor::view)).unwrap();
        assert_eq!(job.output_bytes(), want.bytes().unwrap(), "{plan:?}");
        job.run(); // a second run writes the same
        assert_eq!(job.output_bytes(), want.bytes().unwrap(), "{plan:?} (run again)");
    }

    fn slice(dtype: DType, shape: &[u64], axes: &[(u64, i64, i64)], mode: BoundaryMode) -> Step {
        Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            dtype,
            input_shape: shape.to_vec(),
            axes: axes.iter().map(|&(extent, start, step)| AxisRead { extent, start, step }).collect(),
            mode,
            fill_bits: if mode == BoundaryMode::Fill {
                // A pattern as wide as one element.
                0x4142_4344_4546_4748_494a_4b4c_4d4e_4f50 >> (128 - 8 * dtype.byte_width().unwrap_or(1))
            } else {
                0
            },
            output_shape: axes.iter().map(|a| a.0).collect(),
            windows: vec![],
            gathered: None,
        }
    }

    fn input_for(p: &Step) -> Tensor {
        let n = p.dtype.buffer_bytes(p.input_len()).unwrap();
        let bytes: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(37).wrapping_add(i as u8 >> 3)).collect();
        Tensor::from_bytes(p.dtype, &p.input_shape, &bytes).unwrap()
    }

    fn check_slice(p: Step) {
        p.validate().unwrap_or_else(|e| panic!("{p:?}: {e}"));
        let x = input_for(&p);
        check(&Plan::Step(p), Some(&x));
    }

    /// The W rows' jobs, at a smaller size: rows, columns, stride 2, reversed, and the
    /// four padded modes (borders of 16 on a 40 × 40 image).
    #[test]
    fn workload_rows_small() {
        use BoundaryMode::*;
        let f = DType::F32;
        check_slice(slice(f, &[64, 64], &[(32, 0, 1), (64, 0, 1)], StrictBounds));
        check_slice(slice(f, &[64, 64], &[(64, 0, 1), (32, 16, 1)], StrictBounds));
        check_slice(slice(f, &[64, 64], &[(64, 0, 1), (32, 0, 2)], StrictBounds));
        check_slice(slice(f, &[64, 64], &[(64, 0, 1), (64, 63, -1)], StrictBounds));
        for mode in [Fill, Clamp, Wrap, Reflect, Symmetric] {
            check_slice(slice(f, &[1, 3, 40, 40], &[(1, 0, 1), (3, 0, 1), (72, -16, 1), (72, -16, 1)], mode));
        }
    }

    /// Every mode, with steps of both signs, borders wider than the axis (repeated
    /// periods), one-element and empty axes, windows, every element width, and ranks 0
    /// to 7 (IxDyn above 6).
    #[test]
    fn every_mode_step_width_and_rank() {
        use BoundaryMode::*;
        for mode in BoundaryMode::ALL {
            for dtype in [DType::U8, DType::I16, DType::F32, DType::F64, DType::C128] {
                for &(d, axis) in &[(7u64, (7u64, 0i64, 1i64)), (7, (7, 6, -1)), (9, (4, 1, 2)), (9, (4, 8, -2))] {
                    check_slice(slice(dtype, &[3, d], &[(3, 0, 1), axis], mode));
                }
                if mode == StrictBounds {
                    continue;
                }
                for axis in [(40, -17, 1), (40, 25, -1), (13, -9, 3), (13, 12, -3), (5, -2, 0)] {
                    check_slice(slice(dtype, &[2, 1, 5], &[(2, 0, 1), (3, -1, 1), axis], mode));
                }
                check_slice(slice(dtype, &[4, 0], &[(4, 0, 1), (0, 0, 1)], mode));
            }
            if mode == Fill {
                check_slice(slice(DType::I32, &[4, 0], &[(4, 0, 1), (3, -1, 1)], mode));
            }
        }
        // A window: a pad that crops first (ONNX Pad's negative pads).
        for mode in [Wrap, Clamp, Reflect, Symmetric, Fill] {
            let mut p = slice(DType::F32, &[3, 10], &[(3, 0, 1), (12, -3, 1)], mode);
            p.windows = vec![Window { lo: 0, len: 3 }, Window { lo: 2, len: 5 }];
            check_slice(p);
        }
        check_slice(slice(DType::F32, &[], &[], StrictBounds));
        let seven = [2u64, 1, 2, 1, 2, 3, 2];
        let axes: Vec<_> = seven.iter().map(|&n| (n + 1, -1, 1)).collect();
        check_slice(slice(DType::U8, &seven, &axes, Reflect));
    }

    #[test]
    fn linspaces() {
        let lin = |dtype, shape: &[u64], kind| Plan::Fill(FillPlan { dtype, shape: shape.to_vec(), kind });
        for shape in [&[][..], &[5], &[4096, 3], &[2, 3, 7], &[2, 1, 3, 1, 2, 2, 3]] {
            let betas = |s: f64| (0..shape.len()).map(|k| s * (k as f64 + 0.3)).collect::<Vec<_>>();
            let float = Linspace::Float { alpha: 0.1, beta: betas(1.0 / 3.0) };
            check(&lin(DType::F32, shape, FillKind::Linspace(float)), None);
            let ints: Vec<i64> = (0..shape.len() as i64).map(|k| 3 - 2 * k).collect();
            for dtype in [DType::I32, DType::I64] {
                let int = Linspace::Int { alpha: -7, beta: ints.clone() };
                check(&lin(dtype, shape, FillKind::Linspace(int)), None);
            }
        }
        // F1's job: alpha 0, deltas [4096, 1] (a smaller square).
        let f1 = Linspace::Float { alpha: 0.0, beta: vec![64.0, 1.0] };
        check(&lin(DType::F32, &[64, 64], FillKind::Linspace(f1)), None);
    }

    #[test]
    fn no_job_is_a_clear_error() {
        let random = FillKind::RandomUniform { alpha: 0.0, beta: 1.0, seed: 1 };
        let p = Plan::Fill(FillPlan { dtype: DType::F32, shape: vec![4], kind: random });
        let e = ndarray_job(&p, None).err().unwrap();
        assert!(e.contains("random_uniform") && e.contains("ndarray-rand"), "{e}");
        let nibbles = Plan::Step(slice(DType::I4, &[4], &[(2, 0, 1)], BoundaryMode::StrictBounds));
        let e = ndarray_job(&nibbles, Some(&[0, 0])).err().unwrap();
        assert!(e.contains("int4") || e.contains("i4"), "{e}");
        let e =
            ndarray_job(&Plan::Step(slice(DType::F32, &[4], &[(2, 0, 1)], BoundaryMode::StrictBounds)), Some(&[0; 3]))
                .err()
                .unwrap();
        assert!(e.contains("3 bytes") && e.contains("16"), "{e}");
    }
}
