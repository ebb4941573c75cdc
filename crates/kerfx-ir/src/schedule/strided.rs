//! Strided views of a buffer (`Strided`): spans, bounds and overlap checks, reshapes, output strides.

use crate::error::Error;

/// Where a tensor's elements lie in a buffer, in elements: element (i_0, …) at
/// `offset + Σ i_k·strides[k]`, inside `[0, buffer_len)`. The layout of numpy and ndarray
/// views (theirs in bytes or elements from a pointer; here from the buffer's start).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Strided {
    /// The position of element (0, …) in the buffer, in elements.
    pub offset: i64,
    /// The step in elements between neighbours along each axis (may be 0 or negative).
    pub strides: Vec<i64>,
    /// The buffer's length in elements; every element lies below it.
    pub buffer_len: u64,
}

impl Strided {
    /// A dense row-major tensor of `shape` alone in its buffer.
    pub fn contiguous(shape: &[u64]) -> Result<Strided, Error> {
        let len = crate::tensor::volume(shape)
            .filter(|&n| n <= i64::MAX as u64)
            .ok_or_else(|| Error::TooLarge { what: format!("a tensor of shape {shape:?}") })?;
        let mut strides = vec![1i64; shape.len()];
        for k in (0..shape.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1].saturating_mul(shape[k + 1] as i64);
        }
        Ok(Strided { offset: 0, strides, buffer_len: len })
    }

    /// The lowest and highest offset of an element of `shape`, `None` when it has none.
    pub fn span(&self, shape: &[u64]) -> Option<(i128, i128)> {
        if shape.contains(&0) {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as i128, self.offset as i128);
        // Each reach fits i128 (|stride| ≤ 2^63, extent < 2^64); their sum may not for a
        // shape no tensor has: saturated, it lies outside every buffer.
        for (&d, &s) in shape.iter().zip(&self.strides) {
            let reach = s as i128 * (d as i128 - 1);
            if reach < 0 { lo = lo.saturating_add(reach) } else { hi = hi.saturating_add(reach) }
        }
        Some((lo, hi))
    }

    /// Check that the view has one stride per axis of `shape` and every element lies in
    /// its buffer; `what` names the view in the error.
    pub fn check_inside(&self, shape: &[u64], what: &str) -> Result<(), Error> {
        if self.strides.len() != shape.len() {
            return Err(Error::Mismatch {
                what: format!("{what} strides"),
                expected: format!("one per axis of {shape:?}"),
                found: format!("{:?}", self.strides),
            });
        }
        let Some((lo, hi)) = self.span(shape) else { return Ok(()) };
        if lo < 0 || hi >= self.buffer_len as i128 || self.buffer_len > i64::MAX as u64 {
            // Name the first axis that reaches outside on its own from the offset.
            let axis = shape.iter().zip(&self.strides).position(|(&d, &s)| {
                let end = self.offset as i128 + s as i128 * (d as i128 - 1);
                end < 0 || end >= self.buffer_len as i128
            });
            let axis = axis.map(|k| format!(" (axis {k}, stride {})", self.strides[k])).unwrap_or_default();
            return Err(Error::Invalid {
                what: format!(
                    "{what}: offset {} and strides {:?} reach elements {lo}..={hi}{axis}, outside its buffer of {} elements",
                    self.offset, self.strides, self.buffer_len
                ),
            });
        }
        Ok(())
    }
}

/// Check that the writes at `base + Σ y_k·stride_k` (`(extent, stride)` per axis, any
/// order) lie in `[0, buffer_len)` and are distinct: every axis of extent 2 or more has a
/// positive stride, and, sorted by stride, each stride exceeds the reach of the axes
/// before it (`Σ stride·(extent − 1)`), so that no two index tuples meet. The message
/// names the axis (its index in `axes`) and the rule.
pub(super) fn check_writes(axes: &[(u64, i64)], base: i128, buffer_len: u64) -> Result<(), String> {
    if axes.iter().any(|&(e, _)| e == 0) {
        return Ok(());
    }
    let mut order: Vec<usize> = (0..axes.len()).filter(|&k| axes[k].0 > 1).collect();
    if let Some(&k) = order.iter().find(|&&k| axes[k].1 <= 0) {
        return Err(format!("output axis {k} has stride {}; output strides must be positive", axes[k].1));
    }
    order.sort_by_key(|&k| (axes[k].1, k));
    let mut reach: i128 = 0;
    for &k in &order {
        let (e, s) = (axes[k].0 as i128, axes[k].1 as i128);
        if s <= reach {
            return Err(format!(
                "output axis {k} (stride {s}) overlaps the axes of smaller strides, which reach {reach} elements: output elements would share places"
            ));
        }
        reach = reach.saturating_add(s * (e - 1));
    }
    let hi = base.saturating_add(reach);
    // (Offsets are i64 in the backends: a buffer beyond that is refused.)
    if base < 0 || hi >= buffer_len as i128 || buffer_len > i64::MAX as u64 {
        return Err(format!("output writes elements {base}..={hi}, outside its buffer of {buffer_len} elements"));
    }
    Ok(())
}

impl Strided {
    /// The strides of this view of `shape` read as `to`, a row-major reshape of it (the
    /// same elements in the same order), where the view allows that without a copy:
    /// each group of axes that reshapes into another must be contiguous among itself
    /// (numpy's rule for `reshape` returning a view). `None` where it does not.
    pub fn reshaped(&self, shape: &[u64], to: &[u64]) -> Option<Vec<i64>> {
        if shape == to {
            return Some(self.strides.clone());
        }
        if crate::tensor::volume(shape)? != crate::tensor::volume(to)? || self.strides.len() != shape.len() {
            return None;
        }
        if shape.contains(&0) {
            return Some(vec![0; to.len()]); // no element is read
        }
        // Unit axes carry no stride: drop them on both sides.
        let old: Vec<(u64, i64)> =
            shape.iter().zip(&self.strides).filter(|(d, _)| **d != 1).map(|(&d, &s)| (d, s)).collect();
        let mut out = vec![0i64; to.len()];
        let new: Vec<usize> = (0..to.len()).filter(|&k| to[k] != 1).collect();
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < new.len() {
            // The smallest groups old[i..i2], new[j..j2] of equal volume.
            let (mut i2, mut j2) = (i + 1, j + 1);
            let (mut po, mut pn) = (old[i].0 as u128, to[new[j]] as u128);
            while po != pn {
                if po < pn {
                    po *= old.get(i2)?.0 as u128;
                    i2 += 1;
                } else {
                    pn *= to[*new.get(j2)?] as u128;
                    j2 += 1;
                }
            }
            // The old group must be one contiguous run of its innermost stride.
            for k in i..i2 - 1 {
                if old[k].1 as i128 != old[k + 1].1 as i128 * old[k + 1].0 as i128 {
                    return None;
                }
            }
            let mut stride = old[i2 - 1].1 as i128;
            for &k in new[j..j2].iter().rev() {
                out[k] = i64::try_from(stride).ok()?;
                stride *= to[k] as i128;
            }
            (i, j) = (i2, j2);
        }
        Some(out)
    }

    /// Check an output view of `shape`: inside its buffer (see [`Strided::check_inside`]),
    /// positive strides on every axis of extent 2 or more, and no two elements in one place.
    pub fn check_output(&self, shape: &[u64]) -> Result<(), Error> {
        self.check_inside(shape, "output view")?;
        let axes: Vec<(u64, i64)> = shape.iter().copied().zip(self.strides.iter().copied()).collect();
        check_writes(&axes, self.offset as i128, self.buffer_len)
            .map_err(|e| Error::Invalid { what: format!("output view: {e}") })
    }
}

/// The output view's stride of each core axis (0 on extent-1 axes, which take one
/// position): the output shape differs from the core shape only by extent-1 axes (a
/// shrink or a new axis); any other reshape of a view is refused.
pub(super) fn core_out_strides(core: &[u64], output_shape: &[u64], out: &Strided) -> Result<Vec<i64>, Error> {
    out.check_output(output_shape)?;
    let nonunit = |s: &[u64]| s.iter().copied().filter(|&d| d != 1).collect::<Vec<_>>();
    if core.contains(&0) {
        return Ok(vec![0; core.len()]); // no element is written
    }
    if nonunit(core) != nonunit(output_shape) {
        return Err(Error::Mismatch {
            what: "output view".into(),
            expected: format!("an output shape that is the axes' extents {core:?} up to extent-1 axes"),
            found: format!("{output_shape:?}"),
        });
    }
    let mut strides = output_shape.iter().zip(&out.strides).filter(|(d, _)| **d != 1).map(|(_, &s)| s);
    Ok(core.iter().map(|&d| if d == 1 { 0 } else { strides.next().unwrap_or(0) }).collect())
}
