//! Seeds take all of u64 (issue 20): in request files, where TOML integers stop at
//! 2^63 − 1, as the decimal string; the request a file makes runs as the same seed given
//! through the API.

use kerfx::{AttrValue, Request, request_file, run_reference};
use std::path::Path;

fn fill_file(seed: &str) -> Result<kerfx::Tensor, String> {
    let text = format!(
        "op = \"tensorrt.fill\"\n[attributes]\ndimensions = [4, 3]\noperation = \"random_uniform\"\nseed = {seed}\n"
    );
    let file = request_file::parse(&text, Path::new("seed.toml")).map_err(|e| e.to_string())?;
    run_reference(&file.request).map_err(|e| e.to_string())
}

#[test]
fn a_request_file_gives_a_seed_past_i64_as_its_decimal_string() {
    let api = Request::new("tensorrt.fill")
        .attr("dimensions", [4, 3])
        .attr("operation", "random_uniform")
        .attr("seed", AttrValue::UInt(u64::MAX));
    let want = run_reference(&api).unwrap();
    // The JIT's static and dynamic kernels carry the seed's 64 bits.
    let jit = kerfx::Jit::default();
    for dynamic in [false, true] {
        assert_eq!(kerfx::run_jit(&jit, &api, dynamic).unwrap(), want, "dynamic {dynamic}");
    }
    assert_eq!(fill_file("\"18446744073709551615\"").unwrap(), want);
    assert_eq!(
        fill_file("\"9223372036854775808\"").unwrap(),
        run_reference(&api.attr("seed", AttrValue::UInt(1 << 63))).unwrap()
    );
    assert_eq!(fill_file("\"12\"").unwrap(), fill_file("12").unwrap());
    for bad in ["\"18446744073709551616\"", "\"-3\"", "\"1e3\"", "-3"] {
        let e = fill_file(bad).unwrap_err();
        assert!(e.contains("seed"), "{bad}: {e}");
    }
}
