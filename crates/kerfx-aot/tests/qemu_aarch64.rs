//! aarch64 objects run: a library of runtime-free kernels of every kind (a slice, a pad,
//! a fill without input, 4-bit elements, a fused chain, a Concat and a Split program)
//! compiled for `aarch64-unknown-linux-gnu`, cross-linked with a C driver by
//! `aarch64-linux-gnu-gcc` and run under `qemu-aarch64`; every output, whole and computed
//! in ranges, matches the reference interpreter byte for byte. Skipped, saying why, when
//! the cross compiler or qemu is missing (CI installs them in .ci/run).

use kerfx::request_file::{AnyFile, load_any};
use kerfx::{InputArg, Tensor};
use kerfx_testkit::native::have;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

const TRIPLE: &str = "aarch64-unknown-linux-gnu";
const SYSROOT: &str = "/usr/aarch64-linux-gnu";

const FILES: [(&str, &str); 7] = [
    (
        "crop",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [1, 1]\nsize = [3, 3]\nstride = [1, 2]\n\
         [inputs]\ninput = { dtype = \"f32\", shape = [5, 7] }\n",
    ),
    (
        "pad",
        "op = \"onnx.pad\"\nversion = 19\n[attributes]\nmode = \"reflect\"\n\
         [inputs]\ndata = { dtype = \"i16\", shape = [3, 4] }\npads = [1, 2, 1, 2]\n",
    ),
    (
        "ramp",
        "op = \"tensorrt.fill\"\n[attributes]\ndimensions = [4, 5]\noperation = \"linspace\"\n\
         alpha = 1.0\nbeta = [10.0, 1.0]\nto_type = \"f32\"\n",
    ),
    (
        "nib",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 1]\nsize = [3, 3]\nstride = [1, 1]\n\
         [inputs]\ninput = { dtype = \"i4\", shape = [3, 5] }\n",
    ),
    (
        "chain",
        "[[steps]]\nop = \"onnx.pad\"\nversion = 19\n[steps.attributes]\nmode = \"edge\"\n\
         [steps.inputs]\ndata = { dtype = \"u8\", shape = [4, 4] }\npads = [2, 2, 2, 2]\n\
         [[steps]]\nop = \"onnx.slice\"\n[steps.inputs]\nstarts = [1, 1]\nends = [-1, -1]\n",
    ),
    (
        "cat",
        "op = \"onnx.concat\"\nversion = 13\n[attributes]\naxis = 1\n[inputs]\ninputs = [\
         { dtype = \"f32\", shape = [2, 3] }, { dtype = \"f32\", shape = [2, 1] }, { dtype = \"f32\", shape = [2, 2] }]\n",
    ),
    (
        "split",
        "op = \"onnx.split\"\nversion = 18\n[attributes]\naxis = 0\n\
         [inputs]\ninput = { dtype = \"i16\", shape = [5, 4] }\nsplit = [2, 3]\n",
    ),
];

fn pattern(n: usize, seed: usize) -> Vec<u8> {
    (0..n).map(|i| (i.wrapping_mul(37).wrapping_add(seed * 11 + 5)) as u8).collect()
}

fn with_values(input: &InputArg, bytes: &[u8]) -> InputArg {
    let InputArg::Meta { dtype, shape } = input else { panic!("the files give inputs by dtype and shape") };
    InputArg::Tensor(Tensor::from_bytes(*dtype, shape, bytes).unwrap())
}

/// The reference's outputs of the file at `path` on `inputs` (in order).
fn reference(path: &Path, inputs: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let bytes = |t: &Tensor| t.bytes().unwrap().to_vec();
    let give = |request: &mut kerfx::Request| {
        let Some(name) = kerfx::data_input_name(kerfx::op_spec(&request.op).unwrap()) else { return };
        let arg = request.inputs.get_mut(name).unwrap();
        let valued = match &*arg {
            InputArg::List(items) => InputArg::List(items.iter().zip(inputs).map(|(i, b)| with_values(i, b)).collect()),
            meta => with_values(meta, &inputs[0]),
        };
        *arg = valued;
    };
    match load_any(path).unwrap() {
        AnyFile::Request(f) => {
            let mut request = f.request.clone();
            give(&mut request);
            kerfx::run_reference_outputs(&request).unwrap().iter().map(bytes).collect()
        }
        AnyFile::Chain(f) => {
            let mut chain = f.chain();
            give(&mut chain.steps[0]);
            vec![bytes(&kerfx::chain::run_chain_reference(&chain, false).unwrap())]
        }
    }
}

fn c_array(name: &str, bytes: &[u8]) -> String {
    let items: Vec<String> = bytes.iter().map(u8::to_string).collect();
    format!("static unsigned char {name}[{}] = {{{}}};\n", bytes.len().max(1), items.join(", "))
}

#[test]
fn aarch64_objects_run_under_qemu_and_match_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut lib = "name = \"arm\"\n".to_string();
    for (name, text) in FILES {
        std::fs::write(d.join(format!("{name}.toml")), text).unwrap();
        let _ = write!(lib, "[[kernels]]\nname = \"{name}\"\nrequest = \"{name}.toml\"\n");
    }
    std::fs::write(d.join("lib.toml"), lib).unwrap();
    let library = kerfx_aot::Library::load(&d.join("lib.toml")).unwrap();
    let target = kerfx_aot::Target::aot(TRIPLE).unwrap();
    let kernels = kerfx_aot::compile_kernels(&library, &target).unwrap();
    let out = kerfx_aot::write_library("arm", &kernels, &target).unwrap();
    assert!(!out.needs_runtime, "the qemu subset is runtime-free");
    assert!(out.header.contains("#define ARM_TARGET \"aarch64-unknown-linux-gnu\""));
    if !have("aarch64-linux-gnu-gcc") || !have("qemu-aarch64") {
        return;
    }
    if !Path::new(SYSROOT).join("lib").is_dir() {
        eprintln!("skipped: no aarch64 sysroot at {SYSROOT} (Debian's libc6-dev-arm64-cross; CI installs it)");
        return;
    }
    std::fs::write(d.join("arm.o"), &out.object).unwrap();
    std::fs::write(d.join("arm.h"), &out.header).unwrap();

    // The driver: per kernel, its inputs as arrays, a call whole and one in ranges of the
    // alignment (single kernels), each output printed as a line of hex bytes.
    let mut c = "#include \"arm.h\"\n#include <stdio.h>\n#include <string.h>\n\
                 static void hex(const unsigned char *p, size_t n) {\n    size_t i;\n    \
                 for (i = 0; i < n; i++) printf(\"%02x\", p[i]);\n    printf(\"\\n\");\n}\n"
        .to_string();
    let mut main = "int main(void) {\n    int failures = 0;\n".to_string();
    let mut want: Vec<String> = Vec::new();
    let hexed = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    for (k, (name, _)) in FILES.iter().enumerate() {
        let kernel = &kernels[k];
        let up = name.to_ascii_uppercase();
        match &kernel.body {
            kerfx_aot::Body::Single(f) => {
                let input = f.input_bytes.map(|n| pattern(n as usize, k));
                let want_out = reference(&d.join(format!("{name}.toml")), input.as_slice());
                let (args, decl) = match &input {
                    Some(bytes) => (format!("{name}_in, sizeof {name}_in, "), c_array(&format!("{name}_in"), bytes)),
                    None => (String::new(), String::new()),
                };
                c += &decl;
                let _ = write!(
                    main,
                    "    {{\n        static unsigned char out[ARM_{up}_OUTPUT_BYTES], ranged[ARM_{up}_OUTPUT_BYTES];\n        \
                     size_t lo;\n        if (arm_{name}({args}out, sizeof out) != KERF_OK) failures++;\n        hex(out, sizeof out);\n        \
                     for (lo = 0; lo < ARM_{up}_RANGE_EXTENT; lo += ARM_{up}_RANGE_ALIGN) {{\n            \
                     size_t hi = lo + ARM_{up}_RANGE_ALIGN < ARM_{up}_RANGE_EXTENT ? lo + ARM_{up}_RANGE_ALIGN : ARM_{up}_RANGE_EXTENT;\n            \
                     if (arm_{name}_range({args}ranged, sizeof ranged, lo, hi) != KERF_OK) failures++;\n        }}\n        \
                     hex(ranged, sizeof ranged);\n        \
                     if (arm_{name}({args}out, sizeof out - 1) != KERF_ERR_OUTPUT_BYTES) failures++;\n    }}\n"
                );
                want.push(hexed(&want_out[0]));
                want.push(hexed(&want_out[0]));
            }
            kerfx_aot::Body::Program(p) => {
                let ins: Vec<Vec<u8>> =
                    p.caller_inputs().enumerate().map(|(i, o)| pattern(o.bytes as usize, 10 * k + i)).collect();
                let want_out = reference(&d.join(format!("{name}.toml")), &ins);
                let mut args = Vec::new();
                for (i, bytes) in ins.iter().enumerate() {
                    c += &c_array(&format!("{name}_in{i}"), bytes);
                    args.push(format!("{name}_in{i}, sizeof {name}_in{i}"));
                }
                main += "    {\n";
                for o in 0..p.outputs.len() {
                    let _ = writeln!(main, "        static unsigned char out{o}[ARM_{up}_OUT{o}_BYTES];");
                    args.push(format!("out{o}, sizeof out{o}"));
                }
                let _ = writeln!(main, "        if (arm_{name}({}) != KERF_OK) failures++;", args.join(", "));
                for (o, bytes) in want_out.iter().enumerate() {
                    let _ = writeln!(main, "        hex(out{o}, sizeof out{o});");
                    want.push(hexed(bytes));
                }
                main += "    }\n";
            }
            kerfx_aot::Body::Dynamic(_) => unreachable!("the runtime-free library holds no dynamic kernel"),
        }
    }
    main += "    printf(\"failures %d\\n\", failures);\n    return failures != 0;\n}\n";
    want.push("failures 0".into());
    std::fs::write(d.join("driver.c"), c + &main).unwrap();
    let exe = d.join("driver");
    let cc = Command::new("aarch64-linux-gnu-gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fPIE", "-pie", "-Wl,-z,text", "-I"])
        .arg(d)
        .arg(d.join("driver.c"))
        .arg(d.join("arm.o"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(cc.status.success(), "aarch64-linux-gnu-gcc: {}", String::from_utf8_lossy(&cc.stderr));
    let run = Command::new("qemu-aarch64").args(["-L", SYSROOT]).arg(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "under qemu: {stdout}{}", String::from_utf8_lossy(&run.stderr));
    let got: Vec<&str> = stdout.lines().collect();
    assert_eq!(got.len(), want.len(), "{stdout}");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "line {i} of the driver's output");
    }
}
