//! Slices: a [`LoopNest`] → an inherent impl with `run` and the loops, and a
//! `kerfx::Kernel` impl.
//!
//! Every dim becomes a `for` loop per segment (or a table walk); the innermost dim's
//! segments become runs: `copy_from_slice` (stride 1), a reversed or `step_by` iterator
//! (other strides), `fill` (stride 0 and fill segments). Outer fill segments fill a whole
//! contiguous block of the output. A repeating dim (wrap, reflect) writes one period and
//! copies it forward (`__kerf_repeat`: no per-element modulo); a dim the nest marks looped
//! ([`LoopNest::looped_dims`]) walks a static list of its segments with the inner dims'
//! code written once, so that the code stays bounded. Offsets are folded at generation
//! time where they are constants. The loops take fixed-size array references, so the
//! lengths the entry point checked are part of the types.

use crate::elem::Elem;
use crate::{ident, length_check, lit, ulit};
use kerfx_ir::schedule::{Indexing, LoopNest, Segment, Table};
use kerfx_ir::{DType, Error};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// An offset expression: a sum of loop variables and a constant.
#[derive(Clone, Debug, Default)]
struct Off {
    vars: Vec<Ident>,
    konst: u64,
}

impl Off {
    fn konst(k: u64) -> Off {
        Off { vars: Vec::new(), konst: k }
    }
    fn var(v: Ident) -> Off {
        Off { vars: vec![v], konst: 0 }
    }
    fn plus(&self, k: u64) -> Off {
        Off { vars: self.vars.clone(), konst: self.konst + k }
    }
    fn tokens(&self) -> TokenStream {
        let k = lit(self.konst);
        match (self.vars.as_slice(), self.konst) {
            ([], _) => {
                let k = ulit(self.konst);
                quote!(#k)
            }
            (vars, 0) => quote!(#(#vars)+*),
            (vars, _) => quote!(#(#vars)+* + #k),
        }
    }
}

/// `off + j·stride` (stride of any sign; the result is never negative).
fn scaled(off: &Off, j: &Ident, stride: i64) -> TokenStream {
    let m = lit(stride.unsigned_abs());
    let term = if stride.unsigned_abs() == 1 { quote!(#j) } else { quote!(#j * #m) };
    let zero = off.vars.is_empty() && off.konst == 0;
    let o = off.tokens();
    match stride {
        0 => o,
        _ if zero => term,
        s if s > 0 => quote!(#o + #term),
        _ => quote!(#o - #term),
    }
}

/// `start..start + len` over an Off.
fn range(start: &Off, len: u64) -> TokenStream {
    let (a, b) = (start.tokens(), start.plus(len).tokens());
    quote!(#a..#b)
}

struct Gen<'a> {
    nest: &'a LoopNest,
    elem: Elem,
    /// Tables (`u64::MAX` for "the fill value"), emitted as statics before the loops.
    statics: Vec<TokenStream>,
    /// The dims whose table or segment list is already in `statics`: a dim is reached once
    /// per segment of each outer dim, but its table is the same every time, so it is
    /// emitted once.
    tables: std::collections::BTreeSet<usize>,
    /// Whether the loops read with `get_unchecked`.
    unchecked: bool,
    /// Per dim: whether it walks its segments from a static list (see the module doc).
    looped: Vec<bool>,
    /// Whether a repeating dim calls the repeat helper.
    repeats: bool,
    /// Whether a table dim calls the table helper.
    computed_tables: bool,
}

/// The invariant the unchecked table gathers rely on, as doc lines of the loops.
const SAFETY_DOC: [&str; 7] = [
    " SAFETY (the `get_unchecked` reads): kerfx-codegen emitted this code from a loop nest",
    " that passed `LoopNest::verify`, so every offset it reads (base + the sum of the",
    " segment offsets and table entries on the path) lies in [0, INPUT_LEN); `input` is a",
    " `&[_; INPUT_LEN]`, so each such offset indexes it. The tables are computed by",
    " `__kerf_table` from their rules (`kerfx_ir::table::TableRule`), which kerfx-codegen",
    " checked give the verified nest's entries exactly (`TableRule::computes`) before it",
    " emitted them.",
];

/// A table dim's entries at run time: a static computed once, on the first run, by
/// `__kerf_table` from the table's rule (a few numbers per stage, where a literal table
/// would take an entry per position of the period), bound to `table{k}`.
fn computed_table(k: usize, table: &Table) -> TokenStream {
    let (stat, local) = (format_ident!("TABLE{}", k), format_ident!("table{}", k));
    let stages = table.rule.stages.iter().map(|s| {
        let mode = s.mode.name();
        let (start, step) = (Literal::i64_unsuffixed(s.start), Literal::i64_unsuffixed(s.step));
        let (lo, len) = (lit(s.lo), lit(s.len));
        // A gathered axis's coordinates: the user's indices, normalized (as many as they).
        let coords = s.coords.iter().flat_map(|c| c.iter()).map(|&c| Literal::i64_unsuffixed(c));
        quote!((#mode, #start, #step, #lo, #len, &[#(#coords),*]))
    });
    let scale = Literal::i64_unsuffixed(table.rule.scale);
    let period = ulit(table.len() as u64);
    let usize_ = quote!(::core::primitive::usize);
    quote! {
        static #stat: ::std::sync::OnceLock<::std::vec::Vec<#usize_>> = ::std::sync::OnceLock::new();
        let #local: &[#usize_] = #stat.get_or_init(|| Self::__kerf_table(&[#(#stages),*], #scale, #period));
    }
}

/// The helper that computes a table from its rule, in the arithmetic of
/// `kerfx_ir::table::TableRule::walk` and `BoundaryMode::source_index` (exact in i128).
fn table_helper() -> TokenStream {
    quote! {
        /// One period of an index table, computed once: position y goes through each
        /// stage `(mode, start, step, lo, len, coords)` in turn — it reads x = start + step·v
        /// (v = y at first; with coords, the coordinate at that entry of the list) and goes
        /// on as v = lo + z, z being x's index in an axis of `len` elements under the mode —
        /// and its entry is v·scale.
        #[cold]
        #[allow(clippy::type_complexity)]
        fn __kerf_table(
            stages: &[(&::core::primitive::str, ::core::primitive::i128, ::core::primitive::i128, ::core::primitive::i128, ::core::primitive::i128, &[::core::primitive::i128])],
            scale: ::core::primitive::i128,
            period: ::core::primitive::usize,
        ) -> ::std::vec::Vec<::core::primitive::usize> {
            let mut table = ::std::vec::Vec::with_capacity(period);
            for y in 0..period {
                let mut v = y as ::core::primitive::i128;
                for &(mode, start, step, lo, d, coords) in stages {
                    let x = start + step * v;
                    let x = if coords.is_empty() { x } else { coords[x as ::core::primitive::usize] };
                    let z = match mode {
                        "wrap" => x.rem_euclid(d),
                        "reflect" if d == 1 => 0,
                        "reflect" => {
                            let p = 2 * d - 2;
                            let c = x.abs() % p;
                            if c >= d { p - c } else { c }
                        }
                        "symmetric" => {
                            let z = x.rem_euclid(2 * d);
                            if z >= d { 2 * d - 1 - z } else { z }
                        }
                        "clamp" => x.clamp(0, d - 1),
                        // strict_bounds, fill: a table reads inside the axis only.
                        _ => x,
                    };
                    v = lo + z;
                }
                table.push((v * scale) as ::core::primitive::usize);
            }
            table
        }
    }
}

impl Gen<'_> {
    fn clone_elem(&self, e: TokenStream) -> TokenStream {
        if self.elem.is_string() { quote!((#e).clone()) } else { e }
    }

    fn fill_value(&self) -> TokenStream {
        self.clone_elem(quote!(fill))
    }

    /// Fill positions [0, len) of dim k from `out`, with every position of the dims inside
    /// it: one block where they are contiguous in the output (always, without an output
    /// view), else a loop per position of dim k.
    fn fill_region(&self, k: usize, out: &Off, len: u64) -> TokenStream {
        let os = self.nest.dims[k].out_stride;
        if self.nest.dense_from(k) || len == 0 {
            return self.fill_block(out, len * os);
        }
        let j = format_ident!("f{}", k);
        let o_k = format_ident!("fo{}", k);
        let inner = match self.nest.dims.get(k + 1) {
            Some(next) => self.fill_region(k + 1, &Off::var(o_k.clone()), next.extent),
            None => self.fill_block(&Off::var(o_k.clone()), 1),
        };
        let (n, o_expr) = (ulit(len), scaled(out, &j, os as i64));
        quote! {
            for #j in 0..#n {
                let #o_k = #o_expr;
                #inner
            }
        }
    }

    /// Fill `len` contiguous output elements from `out`.
    fn fill_block(&self, out: &Off, len: u64) -> TokenStream {
        if self.elem.is_nibbles() {
            let (o, n) = (out.tokens(), lit(len));
            return quote!(Self::__kerf_nib_fill(output, #o, #n, fill););
        }
        let f = self.fill_value();
        if len == 1 {
            let o = out.tokens();
            return quote!(output[#o] = #f;);
        }
        let r = range(out, len);
        quote!(output[#r].fill(#f);)
    }

    /// Dim k from input offset `inp` and output offset `out`: one period, then (if the dim
    /// repeats) copies of it up to the extent.
    fn dim(&mut self, k: usize, inp: Off, out: Off) -> TokenStream {
        let dim = &self.nest.dims[k];
        let period = match (&dim.indexing, self.looped[k]) {
            (Indexing::Segments(segs), true) => self.looped_period(k, segs, inp, out.clone()),
            _ => self.period(k, inp, out.clone()),
        };
        if !dim.repeats() {
            return period;
        }
        self.repeats = true;
        let (o, p, e) = (out.tokens(), ulit(dim.period * dim.out_stride), ulit(dim.extent * dim.out_stride));
        let repeat = if self.elem.is_nibbles() { quote!(__kerf_nib_repeat) } else { quote!(__kerf_repeat) };
        quote! {
            #period
            Self::#repeat(output, #o, #p, #e);
        }
    }

    /// One period of a looped dim: a loop over a static list of its segments
    /// (length, offset, stride, whether it is a fill) with the inner dims' code once.
    fn looped_period(&mut self, k: usize, segs: &[Segment], inp: Off, out: Off) -> TokenStream {
        let os = self.nest.dims[k].out_stride;
        let (j, i_k, o_k, y_k) =
            (format_ident!("j{}", k), format_ident!("i{}", k), format_ident!("o{}", k), format_ident!("y{}", k));
        let t = format_ident!("SEGMENTS{}", k);
        let n = lit(segs.len() as u64);
        let rows = segs.iter().map(|s| match *s {
            Segment::Affine { len, offset, stride } => {
                let (len, offset, stride) =
                    (lit(len), lit(offset as u64), proc_macro2::Literal::i64_unsuffixed(stride));
                quote!((#len, #offset, #stride, false))
            }
            Segment::Fill { len } => {
                let len = lit(len);
                quote!((#len, 0, 0, true))
            }
            Segment::FillAt { .. } => unreachable!("nests with fill levels are refused in `kernel`"),
        });
        if self.tables.insert(k) {
            self.statics.push(quote!(static #t: [(::core::primitive::usize, ::core::primitive::usize, ::core::primitive::isize, ::core::primitive::bool); #n] = [#(#rows),*];));
        }
        let inner = self.dim(k + 1, Off::var(i_k.clone()), Off::var(o_k.clone()));
        let i0 = inp.tokens();
        let o_expr = scaled(&out, &j, os as i64);
        let fill = if segs.iter().any(|s| matches!(s, Segment::Fill { .. })) {
            let block = self.fill_region(k + 1, &Off::var(o_k.clone()), self.nest.dims[k + 1].extent);
            quote!(if fill_segment { #block continue; })
        } else {
            TokenStream::new()
        };
        quote! {
            let mut #y_k = 0usize;
            for &(len, offset, stride, fill_segment) in #t.iter() {
                for #j in #y_k..#y_k + len {
                    let #o_k = #o_expr;
                    #fill
                    let #i_k = ((#i0 + offset) as ::core::primitive::isize + stride * (#j - #y_k) as ::core::primitive::isize) as ::core::primitive::usize;
                    #inner
                }
                #y_k += len;
            }
        }
    }

    /// The positions [0, period) of dim k, every segment unrolled (or its table walked).
    fn period(&mut self, k: usize, inp: Off, out: Off) -> TokenStream {
        let dim = &self.nest.dims[k];
        let last = k + 1 == self.nest.dims.len();
        let os = dim.out_stride;
        let (j, i_k, o_k) = (format_ident!("j{}", k), format_ident!("i{}", k), format_ident!("o{}", k));
        let mut code = TokenStream::new();
        match &dim.indexing {
            Indexing::Segments(segs) => {
                let mut p = 0u64;
                for seg in segs {
                    let out_p = out.plus(p * os);
                    code.extend(match *seg {
                        Segment::Fill { len } => self.fill_region(k, &out_p, len),
                        Segment::FillAt { .. } => unreachable!("nests with fill levels are refused in `kernel`"),
                        Segment::Affine { len, offset, stride } => {
                            let in_s = inp.plus(offset as u64);
                            if last {
                                self.run(&in_s, &out_p, len, stride, os)
                            } else if len == 1 {
                                self.dim(k + 1, in_s, out_p)
                            } else {
                                let inner = self.dim(k + 1, Off::var(i_k.clone()), Off::var(o_k.clone()));
                                let n = ulit(len);
                                let i_expr = scaled(&in_s, &j, stride);
                                let o_expr = scaled(&out_p, &j, os as i64);
                                quote! {
                                    for #j in 0..#n {
                                        let #i_k = #i_expr;
                                        let #o_k = #o_expr;
                                        #inner
                                    }
                                }
                            }
                        }
                    });
                    p += seg.len();
                }
            }
            Indexing::Table(table) => {
                let t = format_ident!("table{}", k);
                if self.tables.insert(k) {
                    self.statics.push(computed_table(k, table));
                }
                self.computed_tables = true;
                let i0 = inp.tokens();
                let i_t = if inp.vars.is_empty() && inp.konst == 0 { quote!(t) } else { quote!(#i0 + t) };
                if last && !self.elem.is_nibbles() && os == 1 {
                    let r = range(&out, dim.period);
                    // The invariant is stated in the loops' doc (`SAFETY_DOC`).
                    self.unchecked = true;
                    let read = self.clone_elem(quote!(*input.get_unchecked(#i_t)));
                    code.extend(quote! {
                        for (d, &t) in output[#r].iter_mut().zip(#t.iter()) {
                            // SAFETY: t is an entry of a table of a verified nest: see `SAFETY_DOC`.
                            *d = unsafe { #read };
                        }
                    });
                } else {
                    let inner = if last {
                        let o = Off::var(o_k.clone());
                        self.run(&Off::var(i_k.clone()), &o, 1, 0, 1)
                    } else {
                        self.dim(k + 1, Off::var(i_k.clone()), Off::var(o_k.clone()))
                    };
                    let o_expr = scaled(&out, &j, os as i64);
                    code.extend(quote! {
                        for (#j, &t) in #t.iter().enumerate() {
                            let #o_k = #o_expr;
                            let #i_k = #i_t;
                            #inner
                        }
                    });
                }
            }
        }
        code
    }

    /// One innermost segment: `len` elements from input offset `inp` with `stride`, to
    /// output offset `out` with `out_stride` (1 unless the nest writes an output view
    /// whose innermost axis is not contiguous: then element by element).
    fn run(&self, inp: &Off, out: &Off, len: u64, stride: i64, out_stride: u64) -> TokenStream {
        if out_stride != 1 && len > 1 {
            let j = format_ident!("r");
            let (i, o, n) = (scaled(inp, &j, stride), scaled(out, &j, out_stride as i64), ulit(len));
            let body = if self.elem.is_nibbles() {
                quote!(Self::__kerf_nib_set(output, #o, Self::__kerf_nib_get(input, #i));)
            } else {
                let v = self.clone_elem(quote!(input[#i]));
                quote!(output[#o] = #v;)
            };
            return quote! {
                for #j in 0..#n {
                    #body
                }
            };
        }
        if self.elem.is_nibbles() {
            let (i, o, n) = (inp.tokens(), out.tokens(), lit(len));
            return match stride {
                1 => quote!(Self::__kerf_nib_copy(input, #i, output, #o, #n);),
                0 => quote!(Self::__kerf_nib_fill(output, #o, #n, Self::__kerf_nib_get(input, #i));),
                s => {
                    let s = proc_macro2::Literal::i64_unsuffixed(s);
                    quote!(Self::__kerf_nib_gather(input, #i, #s, output, #o, #n);)
                }
            };
        }
        let out_r = range(out, len);
        let string = self.elem.is_string();
        match stride {
            1 => {
                let in_r = range(inp, len);
                if string {
                    quote!(output[#out_r].clone_from_slice(&input[#in_r]);)
                } else {
                    quote!(output[#out_r].copy_from_slice(&input[#in_r]);)
                }
            }
            0 => {
                let i = inp.tokens();
                if len == 1 {
                    let o = out.tokens();
                    let v = self.clone_elem(quote!(input[#i]));
                    quote!(output[#o] = #v;)
                } else {
                    let v = self.clone_elem(quote!(input[#i]));
                    quote!(output[#out_r].fill(#v);)
                }
            }
            s => {
                let step = s.unsigned_abs();
                let span = (len - 1) * step + 1;
                let read = self.clone_elem(quote!(*s));
                let src = if s > 0 {
                    let in_r = range(inp, span);
                    let step = lit(step);
                    quote!(input[#in_r].iter().step_by(#step))
                } else {
                    // Reading backwards from inp: the elements inp-(span-1) ..= inp.
                    let lo = if inp.konst >= span - 1 {
                        Off { vars: inp.vars.clone(), konst: inp.konst - (span - 1) }.tokens()
                    } else {
                        let i = inp.tokens();
                        let d = lit(span - 1);
                        quote!(#i - #d)
                    };
                    let hi = inp.plus(1).tokens();
                    let step = lit(step);
                    if s == -1 {
                        quote!(input[#lo..#hi].iter().rev())
                    } else {
                        quote!(input[#lo..#hi].iter().rev().step_by(#step))
                    }
                };
                quote! {
                    for (d, s) in output[#out_r].iter_mut().zip(#src) {
                        *d = #read;
                    }
                }
            }
        }
    }
}

/// Helpers for packed 4-bit elements (two per byte, first in the low nibble).
fn nibble_helpers() -> TokenStream {
    quote! {
        #[inline(always)]
        fn __kerf_nib_get(src: &[::core::primitive::u8], n: ::core::primitive::usize) -> ::core::primitive::u8 {
            (src[n >> 1] >> ((n & 1) << 2)) & 0xf
        }
        #[inline(always)]
        fn __kerf_nib_set(dst: &mut [::core::primitive::u8], n: ::core::primitive::usize, v: ::core::primitive::u8) {
            let shift = (n & 1) << 2;
            let b = &mut dst[n >> 1];
            *b = (*b & !(0xf << shift)) | ((v & 0xf) << shift);
        }
        /// `len` nibbles from `src` at nibble `a` to `dst` at nibble `b`: whole bytes with
        /// `copy_from_slice` when both are aligned alike, else a byte-wise funnel shift.
        #[inline(always)]
        fn __kerf_nib_copy(src: &[::core::primitive::u8], mut a: ::core::primitive::usize, dst: &mut [::core::primitive::u8], mut b: ::core::primitive::usize, mut len: ::core::primitive::usize) {
            if len > 0 && b & 1 == 1 {
                Self::__kerf_nib_set(dst, b, Self::__kerf_nib_get(src, a));
                a += 1;
                b += 1;
                len -= 1;
            }
            let bytes = len / 2;
            let d = &mut dst[b / 2..b / 2 + bytes];
            if a & 1 == 0 {
                d.copy_from_slice(&src[a / 2..a / 2 + bytes]);
            } else {
                for (o, w) in d.iter_mut().zip(src[a / 2..a / 2 + bytes + 1].windows(2)) {
                    *o = (w[0] >> 4) | (w[1] << 4);
                }
            }
            if len & 1 == 1 {
                Self::__kerf_nib_set(dst, b + 2 * bytes, Self::__kerf_nib_get(src, a + 2 * bytes));
            }
        }
        /// `len` nibbles of value `v` to `dst` from nibble `b`.
        #[inline(always)]
        fn __kerf_nib_fill(dst: &mut [::core::primitive::u8], mut b: ::core::primitive::usize, mut len: ::core::primitive::usize, v: ::core::primitive::u8) {
            if len > 0 && b & 1 == 1 {
                Self::__kerf_nib_set(dst, b, v);
                b += 1;
                len -= 1;
            }
            let bytes = len / 2;
            dst[b / 2..b / 2 + bytes].fill((v & 0xf) | (v << 4));
            if len & 1 == 1 {
                Self::__kerf_nib_set(dst, b + 2 * bytes, v);
            }
        }
        /// `len` nibbles read from nibble `a` with `stride` (any sign) to `dst` from nibble `b`.
        /// SAFETY (the unchecked accesses): the nibbles read lie between `a` and `last`
        /// (affine in j) and those written between `b` and `b + len - 1`; the asserts at
        /// the top check that these ends index `src` and `dst`.
        #[inline(always)]
        fn __kerf_nib_gather(src: &[::core::primitive::u8], a: ::core::primitive::usize, stride: ::core::primitive::isize, dst: &mut [::core::primitive::u8], b: ::core::primitive::usize, len: ::core::primitive::usize) {
            if len == 0 {
                return;
            }
            let last = a as ::core::primitive::isize + stride * (len as ::core::primitive::isize - 1);
            ::core::assert!(last >= 0 && ((last as ::core::primitive::usize) >> 1) < src.len() && (a >> 1) < src.len());
            ::core::assert!((b + len - 1) >> 1 < dst.len());
            for j in 0..len {
                let n = (a as ::core::primitive::isize + stride * j as ::core::primitive::isize) as ::core::primitive::usize;
                let m = b + j;
                // SAFETY: n lies between `a` and `last`, m below b + len; both ends asserted above.
                unsafe {
                    let v = (*src.get_unchecked(n >> 1) >> ((n & 1) << 2)) & 0xf;
                    let shift = (m & 1) << 2;
                    let o = dst.get_unchecked_mut(m >> 1);
                    *o = (*o & !(0xf << shift)) | (v << shift);
                }
            }
        }
    }
}

/// Helpers of repeating dims: the rest of a block copied from its first period, the
/// copied prefix doubling (no per-element index arithmetic).
fn repeat_helpers(nibbles: bool) -> TokenStream {
    let nib = if nibbles {
        quote! {
            /// The nibbles [start + filled, start + total) of `dst` copied from the `filled`
            /// nibbles before them: nibble by nibble until an even distance d (the period,
            /// or twice it) is written and the next nibble starts a byte, then whole bytes
            /// repeating every d / 2, then an odd last nibble.
            #[inline(always)]
            fn __kerf_nib_repeat(dst: &mut [::core::primitive::u8], start: ::core::primitive::usize, filled: ::core::primitive::usize, total: ::core::primitive::usize) {
                if filled == 0 || filled >= total {
                    return;
                }
                let end = start + total;
                let d = if filled.is_multiple_of(2) { filled } else { 2 * filled };
                let mut n = start + filled;
                while n < end && (n - start < d || n % 2 == 1) {
                    Self::__kerf_nib_set(dst, n, Self::__kerf_nib_get(dst, n - filled));
                    n += 1;
                }
                if n < end {
                    let first = (n - d) / 2;
                    Self::__kerf_repeat(dst, first, d / 2, end / 2 - first);
                    if end % 2 == 1 {
                        Self::__kerf_nib_set(dst, end - 1, Self::__kerf_nib_get(dst, end - 1 - filled));
                    }
                }
            }
        }
    } else {
        TokenStream::new()
    };
    quote! {
        /// The elements [start + filled, start + total) of `dst` copied from the `filled`
        /// elements before them (a repeating dim writes one period, then this): the copied
        /// prefix doubles up to 16384 elements, then is copied in pieces of that size.
        #[inline(always)]
        fn __kerf_repeat<T: ::core::clone::Clone>(dst: &mut [T], start: ::core::primitive::usize, filled: ::core::primitive::usize, total: ::core::primitive::usize) {
            if filled == 0 {
                return;
            }
            let block = &mut dst[start..start + total];
            let (mut done, mut chunk) = (filled, filled);
            while done < total {
                let n = chunk.min(total - done);
                let (src, rest) = block.split_at_mut(done);
                rest[..n].clone_from_slice(&src[..n]);
                done += n;
                if chunk < 16384 {
                    chunk = done;
                }
            }
        }
        #nib
    }
}

/// What a generated kernel reads and writes: its element type and its buffers' shapes.
pub struct Buffers<'a> {
    pub dtype: DType,
    pub input_shape: &'a [u64],
    pub output_shape: &'a [u64],
}

/// One nest's loops as a function `fn_name(input: &[E; IN], output: &mut [E; OUT], fill)`
/// (over byte arrays or typed elements alike), and what helpers its code calls.
pub(crate) struct Loops {
    /// The function, and its name.
    pub func: TokenStream,
    pub name: Ident,
    /// Slice lengths (elements, or bytes for packed 4-bit types) of its input and of its
    /// output buffer (the view's whole buffer when the nest writes an output view).
    pub input_len: u64,
    pub output_len: u64,
    /// Whether it takes a trailing `fill` (the nest fills).
    pub fill: bool,
    /// Helpers it calls: the repeat helper, the table helper.
    pub repeats: bool,
    pub computed_tables: bool,
}

/// The loops of a verified nest without a fill head or fill levels (an error naming why
/// otherwise). A nest writing an output view (a move's box of a program output) is
/// written through the view's strides: blocks and runs only where the view's axes are
/// contiguous, element by element elsewhere; a repeating axis must be contiguous (its
/// periods are copied forward as blocks).
pub(crate) fn loops(nest: &LoopNest, fn_name: &Ident) -> Result<Loops, Error> {
    nest.verify()?;
    // The generated code computes each table from its rule: the rule must give the
    // entries the nest was verified with.
    for (k, dim) in nest.dims.iter().enumerate() {
        if let Indexing::Table(t) = &dim.indexing
            && !t.rule.computes(&t.entries)
        {
            return Err(Error::Invalid { what: format!("dim {k}'s index table does not follow its rule") });
        }
        if dim.repeats() && !nest.dense_from(k) {
            return Err(Error::Invalid {
                what: format!(
                    "dim {k} repeats inside an output view where its block is not contiguous: the derive copies \
                     periods as blocks; `kerf run` runs it on the JIT"
                ),
            });
        }
    }
    if nest.head.is_some() || !nest.levels.is_empty() {
        // The generated code moves elements with one fill value; computing a fill's
        // elements and passing fill levels between loops are the JIT's.
        let why = if nest.head.is_some() {
            "starts with a fill"
        } else {
            "fills with two or more values, or on an axis that repeats"
        };
        return Err(Error::Invalid {
            what: format!(
                "this chain {why}: the derive expands chains that read an input and fill with one value on \
                 regular axes; `kerf run` fuses it on the JIT"
            ),
        });
    }
    let elem = Elem::new(nest.dtype);
    let input_len = elem.slice_len(nest.input_len);
    let output_len = elem.slice_len(nest.output_buffer_len());
    let (in_len, out_len) = (lit(input_len), lit(output_len));
    let mut g = Gen {
        nest,
        elem,
        statics: Vec::new(),
        tables: Default::default(),
        unchecked: false,
        looped: nest.looped_dims(),
        repeats: false,
        computed_tables: false,
    };
    let out_base = nest.out_view.map_or(0, |v| v.base);
    let body = if nest.dims.is_empty() {
        TokenStream::new()
    } else {
        g.dim(0, Off::konst(nest.base as u64), Off::konst(out_base))
    };
    let statics = &g.statics;
    // An odd count of nibbles leaves the last high nibble zero (a view's buffer: its
    // owner pads it).
    let pad = if elem.is_nibbles() && nest.out_view.is_none() && nest.output_len % 2 == 1 {
        let last = lit(nest.output_len / 2);
        quote!(output[#last] &= 0x0f;)
    } else {
        TokenStream::new()
    };
    // The loops, generic over the element storage: `T` for `run`, `[u8; W]` for `run_bytes`.
    let fill_mode = nest.fills;
    let (elem_param, fill_param) = if elem.is_nibbles() {
        (quote!(), if fill_mode { quote!(, fill: ::core::primitive::u8) } else { quote!() })
    } else if elem.is_string() {
        // A string pad fills with clones of `fill` (the empty string kerf's plans carry).
        (quote!(<E: ::core::clone::Clone>), if fill_mode { quote!(, fill: E) } else { quote!() })
    } else {
        (quote!(<E: ::core::marker::Copy>), if fill_mode { quote!(, fill: E) } else { quote!() })
    };
    let e_ty = if elem.is_nibbles() { quote!(::core::primitive::u8) } else { quote!(E) };
    let safety = if g.unchecked { SAFETY_DOC.to_vec() } else { Vec::new() };
    let func = quote! {
        #(#[doc = #safety])*
        #[inline(always)]
        #[allow(unused_variables, clippy::identity_op, clippy::erasing_op, clippy::reversed_empty_ranges)]
        fn #fn_name #elem_param (input: &[#e_ty; #in_len], output: &mut [#e_ty; #out_len] #fill_param) {
            #(#statics)*
            #body
            #pad
        }
    };
    Ok(Loops {
        func,
        name: fn_name.clone(),
        input_len,
        output_len,
        fill: fill_mode,
        repeats: g.repeats,
        computed_tables: g.computed_tables,
    })
}

/// The helpers the loops of `elem` call: nibble accessors, the repeat helper, the table
/// helper (each emitted once per impl).
pub(crate) fn helpers(elem: Elem, repeats: bool, computed_tables: bool) -> TokenStream {
    let mut out = if elem.is_nibbles() { nibble_helpers() } else { TokenStream::new() };
    if repeats {
        out.extend(repeat_helpers(elem.is_nibbles()));
    }
    if computed_tables {
        out.extend(table_helper());
    }
    out
}

pub fn kernel(plan: &Buffers<'_>, nest: &LoopNest, name: &Ident, doc: &[String]) -> Result<TokenStream, Error> {
    let loops = loops(nest, &ident("__kerf_loops"))?;
    let elem = Elem::new(plan.dtype);
    let t = elem.rust_type();
    let dtype = elem.dtype_path();
    let fill_mode = nest.fills;
    let in_shape: Vec<_> = plan.input_shape.iter().map(|&d| lit(d)).collect();
    let out_shape: Vec<_> = plan.output_shape.iter().map(|&d| lit(d)).collect();
    let (in_rank, out_rank) = (lit(in_shape.len() as u64), lit(out_shape.len() as u64));
    let in_len = lit(loops.input_len);
    let out_len = lit(loops.output_len);
    let name_s = name.to_string();
    let needs_input = format!("{name_s}: a slice kernel needs its input");
    let what_in = format!("{name_s} input ({} {:?})", plan.dtype, plan.input_shape);
    let what_out = format!("{name_s} output ({} {:?})", plan.dtype, plan.output_shape);
    let (input_id, output_id) = (ident("input"), ident("output"));
    let check_in = length_check(&input_id, &what_in, &quote!(Self::INPUT_LEN));
    let check_out = length_check(&output_id, &what_out, &quote!(Self::OUTPUT_LEN));

    let len_doc = if elem.is_nibbles() {
        "(bytes: two 4-bit elements a byte, the first in the low nibble)"
    } else {
        "(elements)"
    };
    let in_len_doc = format!(" Length of the `input` slice `run` takes {len_doc}.");
    let out_len_doc = format!(" Length of the `output` slice `run` writes {len_doc}.");
    let fill_arg = fill_mode;
    let loops_fn = &loops.func;

    let fill_const = if fill_mode {
        let v = elem.constant(nest.fill_bits);
        quote! {
            /// The fill value baked in (the `fill` attribute, or the spec's default 0):
            /// what `Kernel::run_bytes` fills with; `run` takes its own.
            pub const FILL: #t = #v;
        }
    } else {
        TokenStream::new()
    };
    let (run_fill_param, run_fill_arg, run_doc) = if fill_arg {
        (quote!(, fill: #t), quote!(, fill), " Out-of-bounds reads give `fill`.")
    } else {
        (quote!(), quote!(), "")
    };
    let allocates = if loops.computed_tables {
        "allocates nothing after the first run, which computes the index tables (once per process)"
    } else {
        "allocates nothing"
    };
    let run_doc = format!(
        " Run on caller-owned buffers: checks both lengths once, then moves the elements; {allocates}.{run_doc}"
    );
    let doc_attrs = doc.iter().map(|l| quote!(#[doc = #l]));
    let run = quote! {
        #[doc = #run_doc]
        #[inline]
        pub fn run(&self, input: &[#t], output: &mut [#t] #run_fill_param) -> ::core::result::Result<(), ::kerfx::Error> {
            #check_in
            #check_out
            let (::core::result::Result::Ok(input), ::core::result::Result::Ok(output)) =
                (<&[#t; #in_len]>::try_from(input), <&mut [#t; #out_len]>::try_from(output))
            else {
                ::core::unreachable!("lengths checked above")
            };
            Self::__kerf_loops(input, output #run_fill_arg);
            ::core::result::Result::Ok(())
        }
    };

    // run_bytes: the same loops on byte arrays.
    let run_bytes_body = if elem.is_string() {
        quote! {
            let _ = (input, output);
            ::core::result::Result::Err(::kerfx::Error::Invalid {
                what: ::std::string::String::from("a string kernel moves `String`s: call `run`, not `run_bytes`"),
            })
        }
    } else {
        let (w, bytes_ty, fill_bytes) = if elem.is_nibbles() {
            (1usize, quote!(::core::primitive::u8), quote!(Self::FILL))
        } else {
            let w = elem.width().unwrap_or(1);
            let wl = lit(w as u64);
            (w, quote!([::core::primitive::u8; #wl]), elem.constant_bytes(nest.fill_bits))
        };
        let in_bytes = lit(elem.slice_len(nest.input_len) * if elem.is_nibbles() { 1 } else { w as u64 });
        let out_bytes = lit(elem.slice_len(nest.output_len) * if elem.is_nibbles() { 1 } else { w as u64 });
        let chunk = |buf: &Ident, m: bool| {
            if elem.is_nibbles() {
                quote!(#buf)
            } else {
                let wl = lit(w as u64);
                if m { quote!(#buf.as_chunks_mut::<#wl>().0) } else { quote!(#buf.as_chunks::<#wl>().0) }
            }
        };
        let (cin, cout) = (chunk(&input_id, false), chunk(&output_id, true));
        let check_in_b = length_check(&input_id, &what_in, &quote!(#in_bytes));
        let check_out_b = length_check(&output_id, &what_out, &quote!(#out_bytes));
        let fill_arg = if fill_arg { quote!(, #fill_bytes) } else { quote!() };
        quote! {
            let ::core::option::Option::Some(input) = input else {
                return ::core::result::Result::Err(::kerfx::Error::Invalid {
                    what: ::std::string::String::from(#needs_input),
                });
            };
            #check_in_b
            #check_out_b
            let (::core::result::Result::Ok(input), ::core::result::Result::Ok(output)) =
                (<&[#bytes_ty; #in_len]>::try_from(#cin), <&mut [#bytes_ty; #out_len]>::try_from(#cout))
            else {
                ::core::unreachable!("lengths checked above")
            };
            Self::__kerf_loops(input, output #fill_arg);
            ::core::result::Result::Ok(())
        }
    };
    let nib = helpers(elem, loops.repeats, loops.computed_tables);
    Ok(quote! {
        #(#doc_attrs)*
        impl #name {
            /// Shape of the data input.
            pub const INPUT_SHAPE: [::core::primitive::u64; #in_rank] = [#(#in_shape),*];
            /// Shape of the output.
            pub const OUTPUT_SHAPE: [::core::primitive::u64; #out_rank] = [#(#out_shape),*];
            #[doc = #in_len_doc]
            pub const INPUT_LEN: ::core::primitive::usize = #in_len;
            #[doc = #out_len_doc]
            pub const OUTPUT_LEN: ::core::primitive::usize = #out_len;
            /// Element type of the input and the output.
            pub const DTYPE: ::kerfx::DType = #dtype;
            #fill_const
            #run
            #loops_fn
            #nib
        }

        impl ::kerfx::Kernel for #name {
            fn dtype(&self) -> ::kerfx::DType {
                Self::DTYPE
            }
            fn input_shape(&self) -> ::core::option::Option<&[::core::primitive::u64]> {
                ::core::option::Option::Some(&Self::INPUT_SHAPE)
            }
            fn output_shape(&self) -> &[::core::primitive::u64] {
                &Self::OUTPUT_SHAPE
            }
            fn run_bytes(&self, input: ::core::option::Option<&[::core::primitive::u8]>, output: &mut [::core::primitive::u8]) -> ::core::result::Result<(), ::kerfx::Error> {
                #run_bytes_body
            }
        }
    })
}
