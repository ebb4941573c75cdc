//! AOT ÷ JIT on request files, side by side in one run: each request compiled ahead of
//! time into one library (linked with the runtime library by `cc` into a shared object
//! and loaded) and by the JIT (static, one thread), then timed in interleaved samples on
//! the same buffers. Prints one line per request: medians in nanoseconds and their ratio.
//!
//! ```sh
//! cargo build --release -p kerfx-rt
//! cargo run --release -p kerfx-aot --example versus_jit -- tests/data/bench/w1_rows.toml ...
//! cargo run --release -p kerfx-aot --example versus_jit -- --cpu host tests/data/bench/w8_int4_columns.toml
//! ```
//!
//! `libkerfx_rt.a` is taken from this example's target directory (built as above).

use kerfx::request_file::{AnyFile, load_any};
use kerfx::{Jit, JitSettings, Kernel, Options};
use std::process::{Command, ExitCode};
use std::time::Instant;

type WithInput = unsafe extern "C" fn(*const u8, usize, *mut u8, usize) -> i32;
type NoInput = unsafe extern "C" fn(*mut u8, usize) -> i32;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn median(mut v: Vec<u128>) -> u128 {
    v.sort_unstable();
    v[v.len() / 2]
}

fn run() -> Result<(), String> {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    // `--cpu PRESET` first: the objects' CPU preset (default x86-64-v2, as `kerf aot`).
    let cpu = match files.first().map(String::as_str) {
        Some("--cpu") if files.len() >= 2 => Some(files.drain(..2).nth(1).unwrap_or_default()),
        _ => None,
    };
    if files.is_empty() {
        return Err("usage: versus_jit [--cpu PRESET] REQUEST.toml...".into());
    }
    let triple = "x86_64-unknown-linux-gnu";
    let target = match &cpu {
        None => kerfx_aot::Target::aot(triple),
        Some(cpu) => kerfx_aot::Target::aot_cpu(triple, cpu),
    }
    .map_err(|e| e.to_string())?;
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 64 }).map_err(|e| e.to_string())?;
    let (mut kernels, mut jitted) = (Vec::new(), Vec::new());
    for (i, f) in files.iter().enumerate() {
        let name = format!("k{i}");
        let file = load_any(std::path::Path::new(f)).map_err(|e| e.to_string())?;
        let (aot, jk) = match &file {
            AnyFile::Request(r) => (
                kerfx_aot::compile_kernel(&name, f, &r.request, &target),
                jit.compile(&r.request, &Options::STATIC).map_err(|e| e.to_string()),
            ),
            AnyFile::Chain(c) => {
                let lowered = kerfx::chain::lower_chain(&c.chain()).map_err(|e| e.to_string())?;
                let map = lowered.fused().map_err(|e| e.to_string())?.clone();
                (
                    kerfx_aot::compile_kernel(&name, f, &map, &target),
                    jit.compile(map.clone(), &Options::STATIC).map_err(|e| e.to_string()),
                )
            }
        };
        kernels.push(aot.map_err(|e| format!("{f}: {e}"))?);
        jitted.push(jk.map_err(|e| format!("{f}: {e}"))?);
    }
    let out = kerfx_aot::write_library("bench", &kernels, &target)?;
    let dir = std::env::temp_dir().join(format!("kerf-versus-jit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (obj, so) = (dir.join("bench.o"), dir.join("libbench.so"));
    std::fs::write(&obj, &out.object).map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let rt = exe.parent().and_then(|p| p.parent()).map(|p| p.join("libkerfx_rt.a")).ok_or("no target directory")?;
    if !rt.is_file() {
        return Err(format!("{} is missing: cargo build -p kerfx-rt (same profile)", rt.display()));
    }
    let link = Command::new("cc").args(["-shared", "-Wl,-z,text", "-o"]).arg(&so).arg(&obj).arg(&rt).output();
    let link = link.map_err(|e| format!("cc: {e}"))?;
    if !link.status.success() {
        return Err(format!("cc: {}", String::from_utf8_lossy(&link.stderr)));
    }
    // SAFETY: a library just linked from kerf's object and runtime; nothing runs on load
    // but the dynamic linker's relocations.
    let lib = unsafe { libloading::Library::new(&so) }.map_err(|e| e.to_string())?;
    println!("{:<40} {:>12} {:>12} {:>8}", "request", "aot_ns", "jit_ns", "aot/jit");
    for ((k, j), f) in kernels.iter().zip(&jitted).zip(&files) {
        let func = k
            .single()
            .ok_or_else(|| format!("{}: a program kernel; this benchmark times one-to-one kernels", k.name))?;
        let input = vec![7u8; func.input_bytes.unwrap_or(0) as usize];
        let mut output = vec![0u8; func.output_bytes as usize];
        let symbol = format!("bench_{}", k.name);
        // SAFETY: the header declares the entry points with exactly these signatures.
        let entry: Result<WithInput, NoInput> = unsafe {
            if func.input_bytes.is_some() {
                Ok(*lib.get::<WithInput>(symbol.as_bytes()).map_err(|e| e.to_string())?)
            } else {
                Err(*lib.get::<NoInput>(symbol.as_bytes()).map_err(|e| e.to_string())?)
            }
        };
        let call_aot = |output: &mut [u8]| -> i32 {
            match entry {
                // SAFETY: the entry point checks both buffers before anything runs.
                Ok(e) => unsafe { e(input.as_ptr(), input.len(), output.as_mut_ptr(), output.len()) },
                // SAFETY: as above.
                Err(e) => unsafe { e(output.as_mut_ptr(), output.len()) },
            }
        };
        let jit_input = func.input_bytes.map(|_| &input[..]);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let samples = if func.output_bytes > (1 << 20) { 21 } else { 2001 };
        for _ in 0..samples {
            let t = Instant::now();
            let s = call_aot(&mut output);
            a.push(t.elapsed().as_nanos());
            if s != 0 {
                return Err(format!("{f}: status {s}"));
            }
            let t = Instant::now();
            j.run_bytes(jit_input, &mut output).map_err(|e| e.to_string())?;
            b.push(t.elapsed().as_nanos());
        }
        let (a, b) = (median(a), median(b));
        println!("{:<40} {a:>12} {b:>12} {:>8.3}", f, a as f64 / b.max(1) as f64);
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
