//! Property tests: the frontends + reference against independent transcriptions of the
//! vendor rules, element by element.

mod common;
use common::*;
use proptest::prelude::*;

/// tensorrt.slice's modes, as its spec lists them.
fn trt_modes() -> Vec<&'static str> {
    kerfx_testkit::boundary_modes("tensorrt.slice", "mode").into_iter().map(|m| m.name()).collect()
}

/// Reflect by bouncing, one reflection at a time (independent of the closed formula).
fn bounce(mut x: i64, d: i64) -> i64 {
    if d == 1 {
        return 0;
    }
    while x < 0 || x >= d {
        if x < 0 {
            x = -x;
        }
        if x >= d {
            x = 2 * (d - 1) - x;
        }
    }
    x
}

/// Row-major linear index of a multi-index.
fn linear(idx: &[i64], shape: &[i64]) -> i64 {
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

fn shape_strategy() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(0i64..5, 0..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn trt_modes_match_index_by_index_formula(
        shape in shape_strategy(),
        params in prop::collection::vec((-9i64..9, 0i64..5, -3i64..4), 4),
        mode in prop::sample::select(trt_modes()),
        fill_value in -5i64..5,
    ) {
        let r = shape.len();
        let ushape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let start: Vec<i64> = params[..r].iter().map(|p| p.0).collect();
        let size: Vec<i64> = params[..r].iter().map(|p| p.1).collect();
        let stride: Vec<i64> = params[..r].iter().map(|p| p.2).collect();
        let mut req = trt(arange_i32(&ushape), &start, &size, &stride, mode);
        if mode == "fill" {
            req = req.input("fill", scalar_i64(fill_value));
        }
        let got = run(&req);
        // Expected, element by element.
        let n: i64 = size.iter().product();
        let mut expected = Vec::new();
        let mut refused = false;
        for lin in 0..n {
            let mut y = vec![0i64; r];
            let mut rem = lin;
            for k in (0..r).rev() { y[k] = rem % size[k]; rem /= size[k]; }
            let mut src = Some(vec![0i64; r]);
            for k in 0..r {
                let x = start[k] + y[k] * stride[k];
                let d = shape[k];
                let z = match mode {
                    _ if d == 0 => None,
                    "wrap" => Some(((x % d) + d) % d),
                    "clamp" => Some(x.max(0).min(d - 1)),
                    "reflect" => Some(bounce(x, d)),
                    _ => (0..d).contains(&x).then_some(x),
                };
                match (z, src.as_mut()) {
                    (Some(z), Some(s)) => s[k] = z,
                    _ => src = None,
                }
            }
            match src {
                Some(s) => expected.push(linear(&s, &shape)),
                None if mode == "fill" => expected.push(fill_value),
                None => { refused = true; }
            }
        }
        if refused {
            prop_assert!(got.is_err(), "expected an error, got {:?}", got.map(|t| ints(&t)));
        } else {
            let out = got.map_err(|e| TestCaseError::fail(e.to_string()))?;
            let want_shape = ushape_of(&size);
            prop_assert_eq!(out.shape(), want_shape.as_slice());
            prop_assert_eq!(ints(&out), expected);
        }
    }

    #[test]
    fn onnx_slice_matches_the_spec_text(
        shape in prop::collection::vec(0i64..6, 1..4),
        params in prop::collection::vec((-8i64..8, -8i64..8, prop::sample::select(vec![-3i64, -2, -1, 1, 2, 3])), 3),
        extreme in prop::sample::select(vec![0i64, i64::MIN, i64::MAX, i32::MIN as i64, i32::MAX as i64]),
    ) {
        let r = shape.len();
        let ushape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let mut starts: Vec<i64> = params[..r].iter().map(|p| p.0).collect();
        let ends: Vec<i64> = params[..r].iter().map(|p| if extreme != 0 && p.1 == 0 { extreme } else { p.1 }).collect();
        let steps: Vec<i64> = params[..r].iter().map(|p| p.2).collect();
        if extreme != 0 { starts[0] = extreme; }
        let out = run(&onnx(13, arange_i32(&ushape), &starts, &ends, None, Some(&steps)))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        // The spec text: adjust negatives by +dims, clamp by step sign, then enumerate.
        let mut picks: Vec<Vec<i64>> = Vec::new();
        for k in 0..r {
            let d = shape[k] as i128;
            let (mut s, mut e, st) = (starts[k] as i128, ends[k] as i128, steps[k] as i128);
            if s < 0 { s += d; }
            if e < 0 { e += d; }
            let mut list = Vec::new();
            if d > 0 {
                if st > 0 { s = s.max(0).min(d); e = e.max(0).min(d); } else { s = s.max(0).min(d - 1); e = e.max(-1).min(d - 1); }
                let mut i = s;
                while (st > 0 && i < e) || (st < 0 && i > e) { list.push(i as i64); i += st; }
            }
            picks.push(list);
        }
        let out_shape: Vec<u64> = picks.iter().map(|p| p.len() as u64).collect();
        prop_assert_eq!(out.shape(), out_shape.as_slice());
        let mut expected = Vec::new();
        let n: u64 = out_shape.iter().product();
        for lin in 0..n {
            let mut rem = lin;
            let mut idx = vec![0i64; r];
            for k in (0..r).rev() { idx[k] = picks[k][(rem % out_shape[k]) as usize]; rem /= out_shape[k]; }
            expected.push(linear(&idx, &shape));
        }
        prop_assert_eq!(ints(&out), expected);
    }

    #[test]
    fn openvino_output_rank_is_rank_plus_new_minus_shrunk(
        shape in prop::collection::vec(1i64..5, 1..5),
        entries in prop::collection::vec((0u8..4, -6i64..6, -6i64..6, prop::sample::select(vec![-2i64, -1, 1, 2])), 0..5),
    ) {
        let ushape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let m = entries.len();
        // kind 0 normal, 1 new axis, 2 shrink, 3 ellipsis (at most one).
        let mut kinds: Vec<u8> = entries.iter().map(|e| e.0).collect();
        let mut seen_ellipsis = false;
        for k in kinds.iter_mut() {
            if *k == 3 { if seen_ellipsis { *k = 0 } seen_ellipsis = true; }
        }
        let bit = |want: u8| -> Vec<i64> { kinds.iter().map(|&k| (k == want) as i64).collect() };
        let begin: Vec<i64> = entries.iter().map(|e| e.1).collect();
        let end: Vec<i64> = entries.iter().map(|e| e.2).collect();
        let stride: Vec<i64> = entries.iter().map(|e| e.3).collect();
        let zeros = vec![0i64; m];
        let req = ov(arange_i32(&ushape), &begin, &end, &stride, [&zeros, &zeros, &bit(1), &bit(2), &bit(3)]);
        let consumed = kinds.iter().filter(|&&k| k == 0 || k == 2).count();
        match run(&req) {
            Ok(out) => {
                let new = kinds.iter().filter(|&&k| k == 1).count();
                let shrunk = kinds.iter().filter(|&&k| k == 2).count();
                prop_assert_eq!(out.shape().len(), shape.len() + new - shrunk);
            }
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(consumed > shape.len() || msg.contains("shrink_in_range"), "{}", msg);
            }
        }
    }
}

fn ushape_of(size: &[i64]) -> Vec<u64> {
    size.iter().map(|&s| s as u64).collect()
}
