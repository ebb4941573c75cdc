//! The fuzz targets of `crates/kerfx-fuzz` on a bounded, seeded run in every `cargo test`,
//! so that they keep compiling against today's API and keep passing (they had rotted
//! once; issue 20). Their bodies (`crates/kerfx-fuzz/bodies/*.rs`, which the cargo-fuzz
//! targets call too) are included here as modules and run on the seed corpus or the
//! fixtures, then on inputs made from them (bytes replaced, dictionary tokens inserted,
//! cuts) and on random bytes. `KERF_FUZZ_SMOKE_CASES=N` sets how many made inputs each
//! target gets (default 2000). A failing input is written to the temporary directory, to
//! replay with the fuzz binary (`cargo build --bins` in crates/kerfx-fuzz, then
//! `target/debug/<target> <file>`).

use kerfx_testkit::random::Rng;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// Where the frontends body finds the `.npy` files requests name.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../kerfx-fuzz/fixtures");
const FUZZ_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../kerfx-fuzz");
const SEED: u64 = 0xf022_5eed;

#[path = "../../kerfx-fuzz/bodies/differential.rs"]
mod differential;
#[path = "../../kerfx-fuzz/bodies/frontends.rs"]
mod frontends;
#[path = "../../kerfx-fuzz/bodies/graphs.rs"]
mod graphs;
#[path = "../../kerfx-fuzz/bodies/npy.rs"]
mod npy;

fn cases() -> usize {
    std::env::var("KERF_FUZZ_SMOKE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
}

/// The files of a directory of the fuzz crate, sorted (a deterministic corpus).
fn files(dir: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<_> = std::fs::read_dir(Path::new(FUZZ_DIR).join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// The tokens of a libFuzzer dictionary (`"token"` per line; `\"` and `\\` escaped).
fn dictionary(name: &str) -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(Path::new(FUZZ_DIR).join(name)).unwrap();
    text.lines()
        .filter_map(|l| {
            let (start, end) = (l.find('"')?, l.rfind('"')?);
            (end > start).then(|| l[start + 1..end].replace("\\\"", "\"").replace("\\\\", "\\").into_bytes())
        })
        .collect()
}

/// `n` inputs made from the corpus: an entry with a few edits (a byte replaced, a token
/// or random bytes inserted, a cut), or, one time in eight, random bytes.
fn made(rng: &mut Rng, corpus: &[Vec<u8>], dict: &[Vec<u8>], n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            if corpus.is_empty() || rng.below(8) == 0 {
                let mut b = vec![0u8; rng.below(512) as usize];
                rng.fill_bytes(&mut b);
                return b;
            }
            let mut b = rng.pick(corpus).clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(b.len() as u64 + 1) as usize;
                match rng.below(4) {
                    0 if at < b.len() => b[at] = rng.next_u64() as u8,
                    1 if !dict.is_empty() => {
                        b.splice(at..at, rng.pick(dict).iter().copied());
                    }
                    2 => {
                        let mut r = vec![0u8; 1 + rng.below(8) as usize];
                        rng.fill_bytes(&mut r);
                        b.splice(at..at, r);
                    }
                    _ => b.truncate(at.max(b.len() * 3 / 4)),
                }
            }
            b
        })
        .collect()
}

/// Run a target's body on the corpus and on `cases()` inputs made from it.
fn smoke(name: &str, corpus: Vec<Vec<u8>>, dict: &[Vec<u8>], body: fn(&[u8])) {
    let mut rng = Rng::new(SEED);
    let inputs = made(&mut rng, &corpus, dict, cases());
    for (i, data) in corpus.iter().chain(&inputs).enumerate() {
        if catch_unwind(AssertUnwindSafe(|| body(data))).is_err() {
            let path = std::env::temp_dir().join(format!("kerfx-fuzz-smoke-{name}-{i}"));
            let saved =
                std::fs::write(&path, data).map_or_else(|e| format!("not saved: {e}"), |_| path.display().to_string());
            panic!("fuzz target {name}: input {i} panicked (seed {SEED:#x}); the input: {saved}");
        }
    }
}

#[test]
fn frontends_target_on_the_seed_corpus_and_made_inputs() {
    smoke("frontends", files("seeds/frontends"), &dictionary("frontends.dict"), frontends::run);
}

#[test]
fn npy_target_on_the_fixtures_and_made_inputs() {
    smoke("npy", files("fixtures"), &[b"\x93NUMPY".to_vec(), b"'descr':".to_vec(), b"'shape':".to_vec()], npy::run);
}

#[test]
fn graphs_target_on_the_seed_corpus_and_made_inputs() {
    smoke("graphs", files("seeds/graphs"), &dictionary("graphs.dict"), graphs::run);
}

#[test]
fn differential_target_on_made_inputs() {
    smoke("differential", Vec::new(), &[], differential::run);
}
