//! The schedule against the modes' formula (`BoundaryMode::source_index`), element by
//! element through the naive walk of a nest (`kerfx_testkit::plans`), its size bounds, and
//! the fixed matrix of nests, pinned (review changes with `cargo insta review`).

use kerfx_ir::plan::Window;
use kerfx_ir::schedule::{Indexing, MAX_SEGMENTS_PER_AXIS, Run, fill};
use kerfx_ir::{BoundaryMode, DType, FillKind, FillPlan, Linspace, Step};
use kerfx_testkit::plans::{nest_offsets, slice_plan as plan};

/// A step's loop nest: its map's.
fn slice(p: &kerfx_ir::Step) -> Result<kerfx_ir::schedule::LoopNest, kerfx_ir::Error> {
    kerfx_ir::schedule::map_nest(&p.map()?)
}

/// Evaluate a nest element by element (the naive walk) and compare with the formula.
fn check_against_formula(p: &Step) {
    let nest = slice(p).unwrap();
    let got = nest_offsets(&nest);
    let core = p.core_shape();
    let n = kerfx_ir::tensor::volume(&core).unwrap();
    assert_eq!(got.len() as u64, n);
    let rank = core.len();
    let mut strides = vec![1i128; rank];
    for k in (0..rank.saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * p.input_shape[k + 1] as i128;
    }
    for (i, g) in got.iter().enumerate() {
        let mut rem = i as u64;
        let mut want = Some(0i128);
        for k in (0..rank).rev() {
            let y = rem % core[k];
            rem /= core[k];
            let window = p.window(k);
            let z = p.mode.source_index(p.axes[k].x(y) as i64, window.len);
            want = want.zip(z).map(|(w, z)| w + (window.lo + z) as i128 * strides[k]);
        }
        assert_eq!(*g, want, "element {i} of {p:?}\n{nest}");
    }
}

/// Every mode that reads outside the input.
fn border_modes() -> impl Iterator<Item = BoundaryMode> {
    BoundaryMode::ALL.into_iter().filter(|m| *m != BoundaryMode::StrictBounds)
}

#[test]
fn every_mode_matches_the_formula_on_small_axes() {
    // (repeating segments, repeating tables, non-repeating tables) seen.
    let mut seen = (0, 0, 0);
    for mode in border_modes() {
        for d in 1..10u64 {
            for start in -13..13i64 {
                for step in -7..8i64 {
                    for n in [1u64, 2, 5, 17, 40] {
                        let p = plan(DType::F32, &[2, d], &[(2, 0, 1), (n, start, step)], mode);
                        check_against_formula(&p);
                        for dim in slice(&p).unwrap().dims {
                            match (&dim.indexing, dim.repeats()) {
                                (Indexing::Segments(_), true) => seen.0 += 1,
                                (Indexing::Table(_), true) => seen.1 += 1,
                                (Indexing::Table(_), false) => seen.2 += 1,
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(seen.0 > 100 && seen.1 > 100, "{seen:?}");
    // Too many segments and no repetition within the extent: a table of the positions.
    for (mode, n, step) in [(BoundaryMode::Wrap, 90, 33), (BoundaryMode::Reflect, 150, 31)] {
        let p = plan(DType::F32, &[2, 100], &[(2, 0, 1), (n, -3, step)], mode);
        let nest = slice(&p).unwrap();
        assert!(matches!(&nest.dims[1].indexing, Indexing::Table(t) if t.len() == n as usize), "{nest}");
        assert!(!nest.dims[1].repeats());
        check_against_formula(&p);
    }
}

/// Wrap and reflect of tiny inputs to huge extents: one period of segments or a table
/// of at most one period — nothing that grows with the output.
#[test]
fn repeating_axes_are_sized_by_the_input_not_the_output() {
    for mode in [BoundaryMode::Wrap, BoundaryMode::Reflect] {
        for d in 1..40u64 {
            for step in [-1000i64, -61, -7, -2, -1, 0, 1, 2, 3, 5, 13, 333, 1 << 40] {
                for start in [-5i64, 0, 7, 1 << 50] {
                    let n = 1u64 << 40;
                    if i64::try_from(start as i128 + step as i128 * (n as i128 - 1)).is_err() {
                        continue; // a coordinate beyond i64 is an error, not a wrap-around
                    }
                    let p = plan(DType::I8, &[d], &[(n, start, step)], mode);
                    let nest = slice(&p).unwrap();
                    let dim = &nest.dims[0];
                    assert_eq!(dim.extent, n);
                    match &dim.indexing {
                        Indexing::Segments(s) => assert!(s.len() <= MAX_SEGMENTS_PER_AXIS, "{nest}"),
                        Indexing::Table(t) => assert!(t.len() as u64 <= 2 * d, "{nest}"),
                    }
                }
            }
        }
    }
    // The example of the audit: 3 elements to 1e8.
    for (mode, period) in [(BoundaryMode::Wrap, 3), (BoundaryMode::Reflect, 4)] {
        let nest = slice(&plan(DType::I8, &[3], &[(100_000_000, 0, 1)], mode)).unwrap();
        assert_eq!(nest.dims.len(), 1);
        assert_eq!(nest.dims[0].period, period, "{nest}");
        assert!(nest.dims[0].segments().is_some_and(|s| s.len() <= 2), "{nest}");
    }
    // A period with too many segments: a table of one period.
    let p = plan(DType::U8, &[1000], &[(1_000_000, 5, 333)], BoundaryMode::Wrap);
    let nest = slice(&p).unwrap();
    assert!(matches!(&nest.dims[0].indexing, Indexing::Table(t) if t.len() == 1000), "{nest}");
    let p = plan(DType::U8, &[500], &[(1_000_000, 5, 7)], BoundaryMode::Reflect);
    let nest = slice(&p).unwrap();
    assert!(matches!(&nest.dims[0].indexing, Indexing::Table(t) if t.len() == 998), "{nest}");
    for n in [997, 998, 999, 2000, 2017] {
        check_against_formula(&plan(DType::U8, &[500], &[(n, 5, 7)], BoundaryMode::Reflect));
        check_against_formula(&plan(DType::U8, &[2, 100], &[(3, 1, -1), (n, -5, 33)], BoundaryMode::Wrap));
    }
}

/// Repeating axes merge with the whole axes inside them: rows of a wrap are one copy.
#[test]
fn repeating_axes_merge_with_whole_inner_axes() {
    let p = plan(DType::F32, &[3, 4], &[(100, 0, 1), (4, 0, 1)], BoundaryMode::Wrap);
    let nest = slice(&p).unwrap();
    assert_eq!(nest.dims.len(), 1, "{nest}");
    assert_eq!((nest.dims[0].extent, nest.dims[0].period), (400, 12));
    check_against_formula(&p);
}

/// A window of the axis (a pad that crops first): the mode sees only the window.
#[test]
fn windows_match_the_formula() {
    for mode in border_modes() {
        for (lo, len) in [(0, 1), (1, 3), (2, 2), (4, 1), (0, 5), (3, 2)] {
            for start in -9..9i64 {
                for step in [-3, -1, 0, 1, 2] {
                    for n in [1u64, 4, 13] {
                        let mut p = plan(DType::I16, &[3, 5], &[(2, 1, -1), (n, start, step)], mode);
                        p.windows = vec![Window { lo: 1, len: 2 }, Window { lo, len }];
                        check_against_formula(&p);
                    }
                }
            }
        }
    }
}

#[test]
fn windows_outside_the_input_are_refused() {
    let mut p = plan(DType::F32, &[4], &[(2, 0, 1)], BoundaryMode::Wrap);
    p.windows = vec![Window { lo: 3, len: 2 }];
    assert!(slice(&p).is_err());
    p.windows = vec![Window { lo: 0, len: 4 }, Window { lo: 0, len: 1 }];
    assert!(slice(&p).is_err());
    p.windows = vec![Window { lo: u64::MAX, len: 2 }];
    assert!(slice(&p).is_err());
}

#[test]
fn symmetric_repeats_the_edge_on_every_bounce() {
    // numpy.pad([0, 1, 2], (7, 4), "symmetric")
    let p = plan(DType::U8, &[3], &[(14, -7, 1)], BoundaryMode::Symmetric);
    let z: Vec<u64> = (0..14).map(|y| p.mode.source_index(p.axes[0].x(y) as i64, 3).unwrap()).collect();
    assert_eq!(z, [0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0]);
    check_against_formula(&p);
    assert_eq!(BoundaryMode::Symmetric.period(3), Some(6));
    assert_eq!(BoundaryMode::Reflect.period(1), Some(1));
    assert_eq!(BoundaryMode::Reflect.period(4), Some(6));
    assert_eq!(BoundaryMode::Wrap.period(4), Some(4));
    assert_eq!(BoundaryMode::Clamp.period(4), None);
}

#[test]
fn interior_is_one_segment_and_borders_are_few() {
    for mode in border_modes() {
        let p = plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], mode);
        let nest = slice(&p).unwrap();
        assert_eq!(nest.dims.len(), 3, "{nest}");
        let segs = nest.dims[2].segments().unwrap();
        assert_eq!(segs.len(), 3, "{nest}");
        assert_eq!(segs[1].len(), if mode == BoundaryMode::Reflect { 1023 } else { 1024 }, "{nest}");
    }
}

#[test]
fn contiguous_axes_merge() {
    let nest =
        slice(&plan(DType::F32, &[4096, 4096], &[(2048, 0, 1), (4096, 0, 1)], BoundaryMode::StrictBounds)).unwrap();
    assert_eq!(nest.dims.len(), 1);
    assert_eq!(nest.dims[0].segments().unwrap()[0].run(), Run::Copy);
    let nest =
        slice(&plan(DType::F32, &[4096, 4096], &[(4096, 0, 1), (2048, 0, 2)], BoundaryMode::StrictBounds)).unwrap();
    assert_eq!(nest.dims.len(), 1);
    assert_eq!(nest.dims[0].segments().unwrap()[0].run(), Run::Strided(2));
}

#[test]
fn many_segments_repeat_one_period() {
    let p = plan(DType::U8, &[3, 2], &[(40, 0, 1), (40, 0, 1)], BoundaryMode::Wrap);
    let nest = slice(&p).unwrap();
    assert_eq!(nest.dims.iter().map(|d| d.period).collect::<Vec<_>>(), [3, 2], "{nest}");
    check_against_formula(&p);
}

/// Over the unrolling budget, the outer dims with the most segments are looped.
#[test]
fn looped_dims_bound_the_unrolled_product() {
    let p = plan(DType::U8, &[4, 4, 4, 4], &[(9, -2, 1), (9, -2, 1), (9, -2, 1), (9, -2, 1)], BoundaryMode::Clamp);
    let nest = slice(&p).unwrap();
    assert_eq!(nest.looped_dims(), [true, false, false, false], "{nest}");
    let p = plan(DType::U8, &[4, 4], &[(9, -2, 1), (9, -2, 1)], BoundaryMode::Clamp);
    assert_eq!(slice(&p).unwrap().looped_dims(), [false, false]);
}

#[test]
fn out_of_bounds_strict_plans_are_refused() {
    let p = plan(DType::F32, &[3], &[(4, 0, 1)], BoundaryMode::StrictBounds);
    assert!(slice(&p).is_err());
}

/// The fixed matrix of loop nests, pinned (review changes with `cargo insta review`).
#[test]
fn loop_nest_snapshots() {
    use BoundaryMode::*;
    let mut fill1 = plan(DType::F32, &[2, 2], &[(3, 0, 1), (3, 0, 1)], Fill);
    fill1.fill_bits = 1.0f32.to_bits() as u128;
    let cases: Vec<(&str, Step)> = vec![
        ("trt_seed_3x3_to_2x2", plan(DType::F32, &[3, 3], &[(2, 0, 1), (2, 0, 1)], StrictBounds)),
        ("trt_seed_fill_2x2_to_3x3", fill1),
        ("w1_rows", plan(DType::F32, &[4096, 4096], &[(2048, 0, 1), (4096, 0, 1)], StrictBounds)),
        ("w2_columns", plan(DType::F32, &[4096, 4096], &[(4096, 0, 1), (2048, 1024, 1)], StrictBounds)),
        ("w3_stride2", plan(DType::F32, &[4096, 4096], &[(4096, 0, 1), (2048, 0, 2)], StrictBounds)),
        ("w4_reverse", plan(DType::F32, &[4096, 4096], &[(4096, 0, 1), (4096, 4095, -1)], StrictBounds)),
        (
            "w5_fill",
            plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], Fill),
        ),
        (
            "w5_clamp",
            plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], Clamp),
        ),
        (
            "w5_wrap",
            plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], Wrap),
        ),
        (
            "w5_reflect",
            plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], Reflect),
        ),
        (
            "w7_shrink",
            plan(
                DType::F32,
                &[1, 2, 384, 640, 8],
                &[(1, 0, 1), (1, 1, 1), (384, 0, 1), (640, 0, 1), (8, 0, 1)],
                StrictBounds,
            ),
        ),
        ("w8_int4_columns", plan(DType::I4, &[4096, 4096], &[(4096, 0, 1), (4095, 1, 1)], StrictBounds)),
        ("reflect_bounces", plan(DType::U8, &[3], &[(12, -5, 1)], Reflect)),
        ("symmetric_bounces", plan(DType::U8, &[3], &[(12, -5, 1)], Symmetric)),
        (
            "p2_symmetric",
            plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], Symmetric),
        ),
        ("symmetric_negative_step", plan(DType::I16, &[5, 4], &[(7, 9, -2), (6, -3, 3)], Symmetric)),
        ("onnx_crop_then_reflect", {
            // onnx.pad reflect (-1, +2) on [1, 2, 3]: the mode sees the window [1, 3).
            let mut p = plan(DType::I32, &[3], &[(4, 0, 1)], Reflect);
            p.windows = vec![Window { lo: 1, len: 2 }];
            p
        }),
        ("wrap_negative_step", plan(DType::I16, &[5, 4], &[(7, 9, -2), (6, -3, 3)], Wrap)),
        ("clamp_zero_step", plan(DType::C128, &[4, 4], &[(3, 7, 0), (5, -2, 1)], Clamp)),
        ("fill_far_outside", plan(DType::F64, &[4, 4], &[(3, 100, 1), (5, 0, 1)], Fill)),
        ("fill_empty_input_axis", plan(DType::F16, &[0, 4], &[(2, 0, 1), (3, 0, 1)], Fill)),
        ("empty_output", plan(DType::F32, &[4, 4], &[(0, 0, 1), (4, 0, 1)], StrictBounds)),
        ("scalar", plan(DType::I64, &[], &[], StrictBounds)),
        ("wrap_table", plan(DType::U8, &[3, 2], &[(40, 0, 1), (40, 0, 1)], Wrap)),
        ("reflect_outer_table", plan(DType::U8, &[2, 3, 8], &[(20, 0, 1), (20, 0, 1), (8, 0, 1)], Reflect)),
        ("wrap_tiny_to_1e8", plan(DType::I8, &[3], &[(100_000_000, 0, 1)], Wrap)),
        ("reflect_tiny_to_1e8", plan(DType::I8, &[3], &[(100_000_000, -1, 1)], Reflect)),
        ("wrap_periodic_table", plan(DType::U8, &[7, 1000], &[(3, 0, 1), (5000, 5, 333)], Wrap)),
        ("wrap_rows_merged", plan(DType::F32, &[3, 4], &[(100, 0, 1), (4, 0, 1)], Wrap)),
        ("clamp_looped", plan(DType::U8, &[4, 4, 4, 4], &[(9, -2, 1), (9, -2, 1), (9, -2, 1), (9, -2, 1)], Clamp)),
    ];
    for (name, p) in cases {
        let nest = slice(&p).unwrap();
        insta::assert_snapshot!(format!("loop_nest_{name}"), nest.to_string());
    }
    let fills = vec![
        (
            "linspace_f32_exact",
            FillPlan {
                dtype: DType::F32,
                shape: vec![4096, 4096],
                kind: FillKind::Linspace(Linspace::Float { alpha: 0.0, beta: vec![4096.0, 1.0] }),
            },
        ),
        (
            "linspace_f64",
            FillPlan {
                dtype: DType::F32,
                shape: vec![2, 3],
                kind: FillKind::Linspace(Linspace::Float { alpha: 0.1, beta: vec![0.3, 0.7] }),
            },
        ),
        (
            "linspace_i32",
            FillPlan {
                dtype: DType::I32,
                shape: vec![2, 1, 3],
                kind: FillKind::Linspace(Linspace::Int { alpha: 5, beta: vec![3, 9, 1] }),
            },
        ),
        (
            "random_normal",
            FillPlan {
                dtype: DType::F16,
                shape: vec![7, 9],
                kind: FillKind::RandomNormal { alpha: 1.0, beta: 2.0, seed: 42 },
            },
        ),
    ];
    for (name, p) in fills {
        insta::assert_snapshot!(format!("fill_nest_{name}"), fill(&p).unwrap().to_string());
    }
}

/// Views and nests whose reaches add up past i128 (shapes no tensor has, built by hand)
/// are outside every buffer: refused, never an arithmetic overflow.
#[test]
fn reaches_past_i128_are_outside_without_overflow() {
    use kerfx_ir::schedule::{Dim, Indexing, LoopNest, Segment, Strided};
    for stride in [i64::MAX, i64::MIN] {
        let v = Strided { offset: 0, strides: vec![stride; 3], buffer_len: 10 };
        assert!(v.check_inside(&[u64::MAX; 3], "input view").is_err());
        assert!(v.check_output(&[u64::MAX; 3]).is_err());
        assert!(v.span(&[u64::MAX; 3]).is_some());
    }
    let dim = Dim {
        extent: u64::MAX,
        out_stride: 1,
        period: u64::MAX,
        indexing: Indexing::Segments(vec![Segment::Affine { len: u64::MAX, offset: 0, stride: i64::MAX }]),
    };
    let nest = LoopNest {
        dtype: kerfx_ir::DType::U8,
        fills: false,
        repeats: true,
        fill_bits: 0,
        input_len: 10,
        output_len: 0,
        base: 0,
        dims: vec![dim.clone(), dim],
        head: None,
        levels: Vec::new(),
        out_view: None,
    };
    assert_eq!(nest.input_offset_range(), Some((0, i128::MAX)));
    assert!(nest.verify().is_err());
}
