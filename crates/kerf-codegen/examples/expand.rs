//! `cargo run -p kerf-codegen --example expand -- OP 'ATTR=JSONish' ...`: print an expansion
//! (a developer's aid; `kerf expand REQUEST.toml` is the user's).
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = args.join("\n");
    let table: toml::Table = text.parse().expect("toml lines");
    let mut req = kerf_ir::Request::new(table["op"].as_str().unwrap());
    if let Some(v) = table.get("version") {
        req = req.version(v.as_integer().unwrap() as u32);
    }
    for (k, v) in table.get("attributes").and_then(|a| a.as_table()).into_iter().flatten() {
        req.attributes.insert(k.clone(), kerf_ir::request::toml_like::to_attr(v).unwrap());
    }
    for (k, v) in table.get("inputs").and_then(|a| a.as_table()).into_iter().flatten() {
        let arg = if let Some(t) = v.as_table() {
            let dtype: kerf_ir::DType = t["dtype"].as_str().unwrap().parse().unwrap();
            let shape: Vec<u64> =
                t["shape"].as_array().unwrap().iter().map(|x| x.as_integer().unwrap() as u64).collect();
            kerf_ir::InputArg::Meta { dtype, shape }
        } else if let Some(a) = v.as_array() {
            kerf_ir::InputArg::Tensor(kerf_ir::Tensor::from_i64s(
                &a.iter().map(|x| x.as_integer().unwrap()).collect::<Vec<_>>(),
            ))
        } else {
            kerf_ir::InputArg::Tensor(kerf_ir::Tensor::scalar_bits(
                kerf_ir::DType::F64,
                v.as_float().unwrap().to_bits() as u128,
            ))
        };
        req.inputs.insert(k.clone(), arg);
    }
    match kerf_codegen::expand_request(&req, "K") {
        Ok(s) => print!("{s}"),
        Err(e) => eprintln!("error: {e}"),
    }
}
