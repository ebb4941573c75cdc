//! Fused chains that lie about themselves, through every public entry that takes one.
//!
//! `Map`'s fields are public, so safe code can edit a composed chain into one
//! whose parts disagree (pieces that do not cover the period, a fill value of a step the
//! chain has not, a head axis past the head's rank, a coordinate outside the head). Every
//! entry — `Map::validate`, the schedule, the fused reference, the JIT's static,
//! dynamic and view kernels, the derive's code generator, `Display` — must refuse such a
//! chain with an error (never panic), the reference and the JIT must accept and refuse
//! the same chains, and the kernels of the chains they accept must never touch memory
//! outside their buffers (guard pages) and must give the reference's bytes.
//!
//! `KERF_MALFORMED_CHAINS=N` runs N random cases (default 400).

use kerfx_ir::map::{Digit, DigitMap, Head, Map, Outcome as Yield, Piece};
use kerfx_ir::schedule::{self, Strided};
use kerfx_ir::tensor::{TensorView, ViewData};
use kerfx_ir::{DType, Error, Kernel};
use kerfx_jit::{Jit, JitKernel, Options};
use kerfx_reliability::{Flush, GuardedBuf, Rng, claimed_bytes, random_input};
use std::sync::Arc;

fn jit() -> &'static Jit {
    static JIT: std::sync::OnceLock<Jit> = std::sync::OnceLock::new();
    JIT.get_or_init(Jit::default)
}

/// What one entry did with a chain: refused it, or accepted it (with the output bytes
/// of a run, when it runs).
#[derive(Debug)]
enum Outcome {
    Refused(Error),
    Accepted(Option<Vec<u8>>),
}

/// A kernel run on guarded buffers of the chain's claimed sizes, in both flush variants
/// (which must agree); any access outside the buffers faults.
fn guarded(f: &Map, k: &JitKernel, input: Option<&[u8]>) -> Outcome {
    let out_len = claimed_bytes(f.dtype, &f.output_shape);
    let input = if k.input_shape().is_some() { input } else { None };
    if out_len > 1 << 24 {
        // Not allocatable as a test buffer: the run must refuse a wrong length.
        return match k.run_bytes(input, &mut []) {
            Err(e) => Outcome::Refused(e),
            Ok(()) => Outcome::Accepted(Some(Vec::new())),
        };
    }
    let mut results = Vec::new();
    for flush in Flush::BOTH {
        let inp = input.map(|b| GuardedBuf::from_bytes(b, flush));
        let mut out = GuardedBuf::new(out_len, flush);
        out.as_mut_slice().fill(0x5a);
        if let Err(e) = k.run_bytes(inp.as_ref().map(GuardedBuf::as_slice), out.as_mut_slice()) {
            return Outcome::Refused(e);
        }
        assert!(out.canary_intact(), "a stray write beside the output buffer for {f:?}");
        if let Some(i) = &inp {
            assert!(i.canary_intact() && Some(i.as_slice()) == input, "the input buffer changed for {f:?}");
        }
        results.push(out.as_slice().to_vec());
    }
    assert_eq!(results[0], results[1], "the flush variants disagree for {f:?}");
    Outcome::Accepted(results.pop())
}

/// A compiled chain kernel (`None`: the chain runs step by step, strings only) run guarded.
fn compiled(f: &Map, k: Result<Arc<JitKernel>, Error>, input: Option<&[u8]>) -> Outcome {
    match k {
        Ok(k) => guarded(f, &k, input),
        // A valid chain of strings: no kernel moves strings (it runs on the reference).
        Err(e) if f.dtype == kerfx_ir::DType::String && e.to_string().contains("cannot move strings") => {
            Outcome::Accepted(None)
        }
        Err(e) => Outcome::Refused(e),
    }
}

fn accepted<T>(r: Result<T, Error>) -> Outcome {
    r.map_or_else(Outcome::Refused, |_| Outcome::Accepted(None))
}

/// Every public entry that takes a fused chain, in order: validate first, the fused
/// reference second.
fn every_entry(f: &Map, input: Option<&[u8]>) -> Vec<(&'static str, Outcome)> {
    let view = match (&f.head, input) {
        (Head::Input { shape }, Some(bytes)) => {
            Some(TensorView { dtype: f.dtype, shape: shape.as_slice(), data: ViewData::Bytes(bytes) })
        }
        _ => None,
    };
    let dense = Strided::contiguous(f.head_shape()).ok();
    let reference = kerfx_ir::map::evaluate(f, view)
        .map(|t| Outcome::Accepted(t.bytes().map(<[u8]>::to_vec)))
        .unwrap_or_else(Outcome::Refused);
    let mut out = vec![
        ("validate", accepted(f.validate())),
        ("map::evaluate", reference),
        ("schedule::map_nest", accepted(schedule::map_nest(f))),
        ("expand_map", accepted(kerfx_codegen::expand_map(f, "Chain"))),
        ("compile static", compiled(f, jit().compile(f, &Options::STATIC), input)),
        ("compile dynamic", compiled(f, jit().compile(f, &Options::DYNAMIC), input)),
    ];
    if let (Head::Input { .. }, Some(dense)) = (&f.head, &dense) {
        out.push(("schedule::map_strided", accepted(schedule::map_strided(f, dense))));
        out.push(("compile static, input view", compiled(f, jit().compile(f, &Options::STATIC.input(dense)), input)));
        let dynamic = jit().compile(f, &Options::DYNAMIC.input(dense));
        out.push(("compile dynamic, input view", compiled(f, dynamic, input)));
    }
    out
}

/// The chain is refused by every entry, or accepted by every one with the reference's
/// bytes; `Display` never panics. Returns whether it was valid.
fn check(f: &Map, input: Option<&[u8]>) -> bool {
    let _ = f.to_string();
    let outcomes = every_entry(f, input);
    let valid = matches!(outcomes[0].1, Outcome::Accepted(_));
    let want = match &outcomes[1].1 {
        Outcome::Accepted(bytes) => bytes.clone(),
        Outcome::Refused(e) => {
            assert!(!valid, "the reference refused a valid chain {f:?}: {e}");
            None
        }
    };
    for (entry, outcome) in &outcomes {
        match (valid, outcome) {
            (false, Outcome::Refused(e)) => {
                let text = e.to_string();
                assert!(
                    text.contains("map:") || text.contains("step:") || text.contains("fill plan:"),
                    "{entry}'s error names no rule: {text}"
                )
            }
            (false, Outcome::Accepted(_)) => panic!("{entry} accepted the malformed chain {f:?}: {:?}", f.validate()),
            // The derive's code generator expands only chains that fill with one value on
            // regular axes (documented); a limit, not a disagreement on validity.
            (true, Outcome::Refused(e)) if *entry == "expand_map" && !e.to_string().contains("map:") => {}
            (true, Outcome::Refused(e)) => panic!("{entry} refused the valid chain {f:?}: {e}"),
            (true, Outcome::Accepted(Some(got))) if entry.starts_with("compile") => {
                assert_eq!(Some(got), want.as_ref(), "{entry} disagrees with the reference on {f:?}")
            }
            (true, Outcome::Accepted(_)) => {}
        }
    }
    valid
}

/// The axes and fixed axes of a chain, mutably.
fn all_axes(f: &mut Map) -> Vec<&mut Digit> {
    f.axes.iter_mut().chain(f.fixed.iter_mut()).collect()
}

/// A random axis of the chain (`None` when it has none).
fn some_axis<'a>(rng: &mut Rng, f: &'a mut Map) -> Option<&'a mut Digit> {
    let mut axes = all_axes(f);
    if axes.is_empty() {
        return None;
    }
    let k = rng.below(axes.len() as u64) as usize;
    Some(axes.swap_remove(k))
}

/// The positions of one period of an axis as a table (what its map yields).
fn as_table(a: &Digit) -> Vec<Yield> {
    (0..a.period).map(|y| a.outcome(y).expect("a composed axis covers its period")).collect()
}

/// Break one invariant of a composed chain (or leave it valid, about 1 time in 8),
/// returning what was done.
fn break_chain(rng: &mut Rng, f: &mut Map) -> &'static str {
    let steps = f.fill_bits.len();
    let head = f.head_shape().to_vec();
    let rank = head.len();
    match rng.below(16) {
        0 => {
            // A fill value of step 0 or of a step the chain has not (the audit's panic).
            let Some(a) = some_axis(rng, f) else { return "unchanged" };
            let step = if rng.chance(50) { 0 } else { steps + 1 + rng.below(3) as usize };
            match &mut a.map {
                DigitMap::Pieces(p) if !p.is_empty() => {
                    let k = rng.below(p.len() as u64) as usize;
                    p[k] = Piece::Const { len: p[k].len(), step };
                }
                DigitMap::Table(t) if !t.is_empty() => t[0] = Yield::Const(step),
                _ => return "unchanged",
            }
            "fill of a step the chain has not"
        }
        1 => {
            // Pieces that do not cover the period (`unreachable!("pieces cover the period")`).
            let Some(a) = some_axis(rng, f) else { return "unchanged" };
            match &mut a.map {
                DigitMap::Pieces(p) if rng.chance(50) && !p.is_empty() => {
                    p.pop();
                }
                DigitMap::Pieces(p) => p.push(Piece::Const { len: 1 + rng.below(3), step: steps.max(1) }),
                DigitMap::Table(t) => {
                    t.pop();
                }
            }
            "coverage"
        }
        2 => {
            // A period past the extent, or 0 for a non-empty axis.
            let Some(a) = some_axis(rng, f) else { return "unchanged" };
            a.period = if rng.chance(50) { a.extent + 1 + rng.below(4) } else { 0 };
            "period vs extent"
        }
        3 => {
            // A head axis past the head's rank (index out of bounds in the nest builder).
            let Some(a) = some_axis(rng, f) else { return "unchanged" };
            a.head_axis = Some(rank + rng.below(3) as usize);
            "head axis past the rank"
        }
        4 if f.axes.len() >= 2 => {
            // Two axes on one head axis.
            let h = f.axes[0].head_axis;
            f.axes[1].head_axis = h.or(Some(0));
            "two axes on one head axis"
        }
        5 => {
            // A read outside the head's axis, or one whose coordinates overflow.
            let Some(a) = some_axis(rng, f) else { return "unchanged" };
            let d = a.head_axis.and_then(|h| head.get(h).copied()).unwrap_or(1);
            let DigitMap::Pieces(p) = &mut a.map else { return "unchanged" };
            let Some(k) = p.iter().position(|p| matches!(p, Piece::Read { .. })) else { return "unchanged" };
            let len = p[k].len();
            p[k] = match rng.below(3) {
                0 => Piece::Read { len, z0: -1 - rng.range(0, 3), dz: if len == 1 { 0 } else { 1 } },
                1 => Piece::Read { len, z0: d as i64 + rng.range(0, 3), dz: if len == 1 { 0 } else { 1 } },
                _ => Piece::Read { len, z0: i64::MAX - 1, dz: if len == 1 { 0 } else { i64::MAX } },
            };
            "read outside the head"
        }
        6 => {
            // An output shape that is no reshape of the axes.
            f.output_shape.push(2 + rng.below(3));
            "output shape"
        }
        7 => {
            // A fill value wider than an element, or a step's fill value missing.
            if rng.chance(50) && steps > 0 {
                f.fill_bits.pop();
            } else {
                let k = rng.below(steps.max(1) as u64) as usize;
                f.fill_bits.resize(steps.max(1), 0);
                f.fill_bits[k] = u128::MAX << rng.below(64);
            }
            "fill bits"
        }
        8 => {
            // A fixed axis (a unit axis a step removed) of several positions.
            let extent = 2 + rng.below(3);
            f.fixed.push(Digit {
                extent,
                period: extent,
                head_axis: None,
                map: DigitMap::Pieces(vec![Piece::Read { len: extent, z0: 0, dz: 0 }]),
                stages: Vec::new(),
            });
            "fixed axis extent"
        }
        9 => {
            // A head shape that no longer holds the reads: an axis shrunk, or an empty
            // axis added that no axis reads.
            match &mut f.head {
                Head::Input { shape } if rng.chance(50) && !shape.is_empty() => {
                    let k = rng.below(shape.len() as u64) as usize;
                    shape[k] = shape[k].saturating_sub(1 + rng.below(2));
                }
                Head::Input { shape } => shape.push(0),
                Head::Fill(p) => p.dtype = if p.dtype == DType::F16 { DType::F32 } else { DType::F16 },
            }
            "head shape or dtype"
        }
        10 => {
            // A head of more than 2^63 elements.
            match &mut f.head {
                Head::Input { shape } => shape.extend([1 << 62, 4]),
                Head::Fill(p) => p.shape.extend([1 << 62, 4]),
            }
            "head volume"
        }
        11 => {
            // An empty piece, or a length-1 read with a step.
            let Some(a) = some_axis(rng, f) else { return "unchanged" };
            let DigitMap::Pieces(p) = &mut a.map else { return "unchanged" };
            if rng.chance(50) {
                p.insert(0, Piece::Const { len: 0, step: 1 });
            } else {
                let Some(k) = p.iter().position(|p| matches!(p, Piece::Read { len: 1, .. })) else {
                    return "unchanged";
                };
                if let Piece::Read { z0, .. } = p[k] {
                    p[k] = Piece::Read { len: 1, z0, dz: 1 };
                }
            }
            "empty piece or length-1 step"
        }
        12 => {
            // An axis's extent changed (its output shape left as it was).
            let Some(a) = f.axes.first_mut() else { return "unchanged" };
            a.extent += 1 + rng.below(3);
            "extent vs output shape"
        }
        13 | 14 => {
            // Valid: an axis's pieces as the table of the same outcomes (the JIT's table
            // paths against the reference).
            let Some(a) = some_axis(rng, f) else { return "unchanged" };
            a.map = DigitMap::Table(as_table(a));
            "valid: pieces as a table"
        }
        15 if rng.chance(50) => {
            // A kind that understates the digits: no fills, no repeats (a dynamic kernel
            // of that kind has no fill value, or walks no periods or tables).
            f.kind = kerfx_ir::map::Kind::default();
            "kind understated"
        }
        _ => "unchanged",
    }
}

/// The audit's reproductions: a fill value of step 0, pieces short of the period and a
/// head axis past the head's rank made the schedule, the JIT, the derive's code generator
/// and the fused reference panic.
#[test]
fn the_audits_malformed_chains_are_refused_everywhere() {
    let chain = kerfx::chain::ChainRequest {
        steps: vec![
            kerfx::Request::new("onnx.pad")
                .version(19)
                .attr("mode", "constant")
                .input_meta("data", DType::F32, &[3, 4])
                .input("pads", kerfx::Tensor::from_i64s(&[1, 1, 1, 1])),
            kerfx::Request::new("tensorrt.slice").attr("start", [0, 0]).attr("size", [4, 5]).attr("stride", [1, 1]),
        ],
    };
    let good = kerfx::chain::lower_chain(&chain).unwrap().fused().unwrap().clone();
    let input: Vec<u8> = (0..12).flat_map(|v| (v as f32).to_le_bytes()).collect();
    assert!(check(&good, Some(&input)));
    let DigitMap::Pieces(p) = &good.axes[0].map else { panic!("a pad's axis is pieces") };
    assert!(p.iter().any(|p| matches!(p, Piece::Const { .. })), "{good}");
    let edit = |e: &dyn Fn(&mut Map)| {
        let mut f = good.clone();
        e(&mut f);
        f
    };
    let step_zero = edit(&|f| {
        let DigitMap::Pieces(p) = &mut f.axes[0].map else { unreachable!() };
        p[0] = Piece::Const { len: p[0].len(), step: 0 };
    });
    let short = edit(&|f| {
        let DigitMap::Pieces(p) = &mut f.axes[1].map else { unreachable!() };
        p.pop();
    });
    let past_rank = edit(&|f| f.axes[1].head_axis = Some(7));
    for (f, says) in [
        (step_zero, "axis 0: piece 0 (1×fill(step 0)) yields the fill value of step 0"),
        (short, "axis 1: its map covers"),
        (past_rank, "axis 1: head axis 7 of a head of rank 2"),
    ] {
        let r = std::panic::catch_unwind(|| check(&f, Some(&input)));
        assert!(!r.unwrap_or_else(|_| panic!("an entry panicked on {f:?}")));
        let e = f.validate().unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
}

/// The property: random edits of composed chains (2–3 steps over every op and mode)
/// through every entry under guard pages — never a panic, never an access outside a
/// buffer; refused by every entry with an error that names the rule, or accepted by every
/// entry with the reference's bytes.
#[test]
fn malformed_chains_are_refused_by_every_entry_and_reference_and_jit_agree() {
    let cases: u64 = std::env::var("KERF_MALFORMED_CHAINS").ok().and_then(|v| v.parse().ok()).unwrap_or(400);
    let mut rng = Rng::new(0x6368_6d66);
    let (mut refused, mut valid) = (0u64, 0u64);
    let mut kinds = std::collections::BTreeMap::<&str, (u64, u64)>::new();
    let mut case = 0;
    while case < cases {
        let steps = 2 + rng.below(2) as usize;
        let chain = kerfx_testkit::random::random_chain(&mut rng, steps);
        let Ok(lowered) = kerfx::chain::lower_chain(&chain) else { continue };
        // (A chain cut into segments is several maps; each is drawn as one chain elsewhere.)
        let Ok(f) = lowered.fused() else { continue };
        let mut f = f.clone();
        // (An empty output reads nothing: most edits of its reads stay valid.)
        let out_bytes = claimed_bytes(f.dtype, &f.output_shape);
        if f.dtype == DType::String || out_bytes > 1 << 20 || f.core_shape().contains(&0) {
            continue;
        }
        case += 1;
        let what = break_chain(&mut rng, &mut f);
        let input = match &f.head {
            Head::Input { shape } if claimed_bytes(f.dtype, shape) <= 1 << 20 => {
                Some(random_input(&mut rng, f.dtype, shape))
            }
            Head::Input { .. } => Some(Vec::new()),
            Head::Fill(_) => None,
        };
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&f, input.as_deref())));
        let ok = r.unwrap_or_else(|e| {
            let why = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
            panic!("case {case} ({what}): {why:?}\n{f:?}")
        });
        let entry = kinds.entry(what).or_default();
        if ok {
            valid += 1;
            entry.1 += 1;
        } else {
            refused += 1;
            entry.0 += 1;
        }
    }
    eprintln!(
        "{cases} chains: {refused} malformed refused by every entry, {valid} valid agreed; (refused, valid) by edit: {kinds:?}"
    );
    assert!(refused > cases / 2 && valid > cases / 20, "the generator should produce both kinds: {refused} / {valid}");
}

/// A chain over an empty input (its reads reach no element: every one falls outside a
/// step's input) whose axes inside the empty one have strides past i64, or whose fill
/// values are levels: the reference filled it, the schedule refused it (offsets past
/// i64, or reads of an input of no elements).
#[test]
fn chains_over_an_empty_input_fill_on_every_entry() {
    let pad = |value: f32, data: Option<&[u64]>| {
        let r = kerfx::Request::new("onnx.pad")
            .version(19)
            .attr("mode", "constant")
            .input("pads", kerfx::Tensor::from_i64s(&[1, 1, 1, 1]))
            .input("constant_value", kerfx::Tensor::from_bytes(DType::F32, &[], &value.to_le_bytes()).unwrap());
        match data {
            Some(shape) => r.input_meta("data", DType::F32, shape),
            None => r,
        }
    };
    let levels = kerfx::chain::ChainRequest { steps: vec![pad(1.0, Some(&[0, 4])), pad(2.0, None)] };
    let f = kerfx::chain::lower_chain(&levels).unwrap().fused().unwrap().clone();
    assert!(check(&f, Some(&[])), "{f}");
    let one = kerfx::chain::ChainRequest { steps: vec![pad(1.0, Some(&[0, 4])), pad(1.0, None)] };
    let mut f = kerfx::chain::lower_chain(&one).unwrap().fused().unwrap().clone();
    assert!(check(&f, Some(&[])), "{f}");
    // The same chain with a huge head axis inside the empty one (what a hand-built head
    // may say; its volume is still 0).
    let Head::Input { shape } = &mut f.head else { unreachable!() };
    shape.extend([1 << 62, 4]);
    assert!(check(&f, Some(&[])), "{f}");
}
