//! The conformance suite (tests/data/conformance) on the run-time backends: the test
//! kit's `conformance_suite!`, one `#[test]` per case and backend. The derive backend's
//! instance is in crates/kerfx-derive-tests/tests/conformance.rs.

use kerfx_testkit::Backend;

#[test]
fn the_suite_has_every_case() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/conformance");
    let on_disk =
        std::fs::read_dir(root).unwrap().filter(|e| e.as_ref().unwrap().path().join("request.toml").is_file()).count();
    assert_eq!(kerfx_testkit::CASE_COUNT, on_disk, "the generated suite is stale");
    assert!(on_disk >= 298, "only {on_disk} conformance cases were found");
}

mod reference {
    kerfx_testkit::conformance_suite!(super::Backend::Reference);
}

mod jit_static {
    kerfx_testkit::conformance_suite!(super::Backend::JitStatic);
}

mod jit_dynamic {
    kerfx_testkit::conformance_suite!(super::Backend::JitDynamic);
}

/// Every shared chain case that runs (all but those that must fail) compiles to one
/// fused kernel, static and dynamic: fill heads and several fill values included. Pinned.
#[test]
fn every_chain_case_that_runs_fuses_into_one_kernel() {
    use kerfx::request_file::{AnyFile, load_any};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/conformance");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("chain_"))
        .collect();
    names.sort();
    let jit = kerfx::Jit::default();
    let (mut running, mut fused, mut not_fused) = (0, 0, Vec::new());
    for name in names {
        let dir = root.join(&name);
        if dir.join("expected_error").exists() {
            continue;
        }
        let AnyFile::Chain(file) = load_any(&dir.join("request.toml")).unwrap() else {
            panic!("{name} is not a chain file")
        };
        let lowered = kerfx::chain::lower_chain(&file.chain()).unwrap();
        running += 1;
        let one_static = jit.compile(lowered.fused().unwrap(), &kerfx::Options::STATIC).is_ok();
        let one_dynamic = jit.compile(lowered.fused().unwrap(), &kerfx::Options::DYNAMIC).is_ok();
        if one_static && one_dynamic {
            fused += 1;
        } else {
            not_fused.push(name);
        }
    }
    assert_eq!(running, 47, "the shared chain cases that run");
    assert_eq!(fused, 47, "chain cases not fused into one kernel: {not_fused:?}");
}

/// The suite on kernels compiled ahead of time: every case that runs compiled into one
/// library (`kerfx_aot::write_library`), linked by the system `cc` with the runtime
/// library (`libkerfx_rt.a`, built by cargo) into a shared object (`-Wl,-z,text`: no text
/// relocations), loaded, and each kernel run through its checking entry point by the
/// suite's one `check_case`. Ops over several inputs or outputs (Concat, Split) compile
/// to program kernels, run through their entry point (`Backend::AotProgram`) and split
/// into ranges at several points through their range entry point, each split equal to the
/// whole call. Cases
/// that must fail must fail to compile. Random fills (the runtime's Philox block fill)
/// are checked by the suite's statistics and, bit for bit, against the reference; chains
/// that start with a fill compute it by the runtime's head runs. Strings run on the
/// reference interpreter (as on the JIT): each is named with its reason.
mod aot_static {
    use kerfx::request_file::{AnyFile, load_any};
    use kerfx::{DType, Error, Kernel};
    use std::process::Command;

    type WithInput = unsafe extern "C" fn(*const u8, usize, *mut u8, usize) -> i32;
    type NoInput = unsafe extern "C" fn(*mut u8, usize) -> i32;

    /// A program entry point: `(in_0, in_0_bytes, …, out_0, out_0_bytes, …) -> int32_t`,
    /// every parameter a pointer or a `size_t` (passed alike, as 64-bit integers, on
    /// x86-64 System V, the one target this suite runs objects on).
    struct AotProgram {
        /// The entry point's address.
        entry: *const std::ffi::c_void,
        /// The range entry point's address: the same parameters, then `lo, hi`.
        range: *const std::ffi::c_void,
        /// Positions of its range.
        extent: usize,
        dtype: DType,
        input_bytes: Vec<u64>,
        outputs: Vec<Vec<u64>>,
    }

    // SAFETY: the entry point is a plain function of the loaded (leaked, never unloaded)
    // library; calling it from any thread is as safe as from this one.
    unsafe impl Sync for AotProgram {}

    /// Call `entry` with `args`: the arity chooses the function type, which is exactly the
    /// entry point's (as many 64-bit integer parameters, an `int32_t` result).
    macro_rules! call_with {
        ($entry:expr, $args:expr, $($n:literal => [$($i:literal)*]),* $(,)?) => {
            match $args.len() {
                $($n => {
                    // SAFETY: the entry point takes exactly $n integer-class parameters
                    // (its header's declaration); it checks every pointer and length it
                    // is given before anything runs, and the buffers are valid for them.
                    unsafe {
                        let f: unsafe extern "C" fn($(call_with!(@ty $i)),*) -> i32 = std::mem::transmute($entry);
                        f($($args[$i]),*)
                    }
                })*
                n => return Err(Error::Invalid { what: format!("a program entry point of {n} parameters") }),
            }
        };
        (@ty $i:literal) => { usize };
    }

    impl AotProgram {
        /// The status of the range entry point on these buffers and `[lo, hi)`.
        fn run_range(&self, inputs: &[&[u8]], outputs: &mut [Vec<u8>], lo: usize, hi: usize) -> Result<i32, Error> {
            let mut args: Vec<usize> = Vec::new();
            for i in inputs {
                args.extend([i.as_ptr() as usize, i.len()]);
            }
            for o in outputs.iter_mut() {
                args.extend([o.as_mut_ptr() as usize, o.len()]);
            }
            args.extend([lo, hi]);
            Ok(call_with!(self.range, args,
                6 => [0 1 2 3 4 5],
                8 => [0 1 2 3 4 5 6 7],
                10 => [0 1 2 3 4 5 6 7 8 9],
                12 => [0 1 2 3 4 5 6 7 8 9 10 11],
                14 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13],
                16 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15],
                18 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17],
                20 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19],
                22 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21],
            ))
        }

        /// The case's program split into ranges at several points — in two at the ends,
        /// after the first position, at a third, a half and before the last (empty pieces
        /// included), in three, and every position alone in reverse order with an empty
        /// range at each bound — equals its whole call, byte for byte; bad ranges
        /// (`lo > hi`, `hi > extent`) return `KERF_ERR_RANGE` with nothing written.
        fn check_ranges(&self, case: &str, request: &kerfx::Request) {
            let inputs = kerfx::program_inputs(request).unwrap();
            let inputs: Vec<&[u8]> = inputs.iter().map(|t| t.bytes().unwrap()).collect();
            let fresh = || -> Vec<Vec<u8>> {
                self.outputs.iter().map(|s| vec![0xAB; self.dtype.buffer_bytes(s.iter().product()).unwrap()]).collect()
            };
            let mut whole = fresh();
            assert_eq!(self.run_range(&inputs, &mut whole, 0, self.extent).unwrap(), 0, "{case}: [0, extent)");
            let e = self.extent;
            let mut splits: Vec<Vec<(usize, usize)>> = [0, 1, e / 3, e / 2, e.saturating_sub(1), e]
                .into_iter()
                .filter(|&m| m <= e)
                .map(|m| vec![(0, m), (m, e)])
                .collect();
            splits.push(vec![(0, e / 3), (e / 3, 2 * e / 3), (2 * e / 3, e)]);
            splits.push((0..e).rev().flat_map(|k| [(k, k + 1), (k, k)]).collect());
            for split in splits {
                let mut outs = fresh();
                for &(lo, hi) in &split {
                    assert_eq!(self.run_range(&inputs, &mut outs, lo, hi).unwrap(), 0, "{case}: [{lo}, {hi})");
                }
                assert!(outs == whole, "{case}: ranges {split:?} differ from the whole call");
            }
            for (lo, hi) in [(1, 0), (e, e + 1), (e + 1, e + 1), (0, usize::MAX), (usize::MAX, 0)] {
                let mut outs = fresh();
                let status = self.run_range(&inputs, &mut outs, lo, hi).unwrap();
                assert_eq!(status, kerfx_aot::status::RANGE, "{case}: [{lo}, {hi}) of {e}");
                assert!(outs == fresh(), "{case}: a refused range wrote");
            }
        }
    }

    impl kerfx_testkit::ProgramEntry for AotProgram {
        fn dtype(&self) -> DType {
            self.dtype
        }
        fn output_shapes(&self) -> &[Vec<u64>] {
            &self.outputs
        }
        fn run_buffers(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
            if inputs.len() != self.input_bytes.len() || outputs.len() != self.outputs.len() {
                return Err(Error::Invalid {
                    what: format!("{} inputs and {} outputs for this program", inputs.len(), outputs.len()),
                });
            }
            let mut args: Vec<usize> = Vec::new();
            for i in inputs {
                args.extend([i.as_ptr() as usize, i.len()]);
            }
            for o in outputs.iter_mut() {
                args.extend([o.as_mut_ptr() as usize, o.len()]);
            }
            let status = call_with!(self.entry, args,
                4 => [0 1 2 3],
                6 => [0 1 2 3 4 5],
                8 => [0 1 2 3 4 5 6 7],
                10 => [0 1 2 3 4 5 6 7 8 9],
                12 => [0 1 2 3 4 5 6 7 8 9 10 11],
                14 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13],
                16 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15],
                18 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17],
                20 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19],
                22 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21],
            );
            match status {
                0 => Ok(()),
                s => Err(Error::Invalid { what: format!("entry point returned status {s}") }),
            }
        }
    }

    /// One loaded entry point behind the suite's [`Kernel`].
    struct AotKernel {
        entry: Result<WithInput, NoInput>,
        dtype: DType,
        input_shape: Option<Vec<u64>>,
        output_shape: Vec<u64>,
    }

    impl Kernel for AotKernel {
        fn dtype(&self) -> DType {
            self.dtype
        }
        fn input_shape(&self) -> Option<&[u64]> {
            self.input_shape.as_deref()
        }
        fn output_shape(&self) -> &[u64] {
            &self.output_shape
        }
        fn run_bytes(&self, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
            let status = match (self.entry, input) {
                // SAFETY: the entry point checks both lengths, NULLs and overlap itself
                // before anything runs; the slices are valid for their lengths.
                (Ok(f), Some(i)) => unsafe { f(i.as_ptr(), i.len(), output.as_mut_ptr(), output.len()) },
                (Ok(_), None) => return Err(Error::Invalid { what: "the kernel reads an input".into() }),
                // SAFETY: as above, for the output alone.
                (Err(f), _) => unsafe { f(output.as_mut_ptr(), output.len()) },
            };
            match status {
                0 => Ok(()),
                s => Err(Error::Invalid { what: format!("entry point returned status {s}") }),
            }
        }
    }

    /// `libkerfx_rt.a`, built by cargo in this test's profile and target directory.
    fn runtime_library() -> std::path::PathBuf {
        let exe = std::env::current_exe().unwrap();
        let profile_dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
        let profile = if cfg!(debug_assertions) { "dev" } else { "release" };
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "kerfx-rt", "--profile", profile])
            .status()
            .unwrap();
        assert!(status.success(), "cargo build -p kerfx-rt failed");
        let lib = profile_dir.join("libkerfx_rt.a");
        assert!(lib.is_file(), "{} was not built", lib.display());
        lib
    }

    /// Whether the system has a C compiler (`cc`); prints why not.
    fn have_cc() -> bool {
        match Command::new("cc").arg("--version").output() {
            Ok(o) if o.status.success() => true,
            _ => {
                eprintln!("skipped: no C compiler `cc` on this system (CI installs one)");
                false
            }
        }
    }

    #[test]
    fn every_case_compiled_ahead_of_time_matches_the_reference() {
        if !have_cc() {
            return;
        }
        let target = kerfx_aot::Target::aot("x86_64-unknown-linux-gnu").unwrap();
        if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
            eprintln!("skipped: the AOT suite links x86-64 Linux objects and runs them here");
            return;
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/conformance");
        let (mut kernels, mut cases, mut refused, mut must_fail) = (Vec::new(), Vec::new(), Vec::new(), 0);
        for (i, case) in kerfx_testkit::case_names().into_iter().enumerate() {
            let dir = root.join(&case);
            let name = format!("k{i}");
            let compiled = match load_any(&dir.join("request.toml")) {
                Err(e) => Err(e.to_string()),
                Ok(AnyFile::Request(f)) => kerfx_aot::compile_request(&name, &case, &f.request, &target),
                Ok(AnyFile::Chain(f)) => kerfx::chain::lower_chain(&f.chain())
                    .and_then(|l| l.fused().cloned())
                    .map_err(|e| e.to_string())
                    .and_then(|m| kerfx_aot::compile_kernel(&name, &case, m, &target)),
            };
            match (compiled, dir.join("expected_error").exists()) {
                (Ok(k), false) => {
                    kernels.push(k);
                    cases.push(case);
                }
                (Ok(_), true) => panic!("{case}: must fail, but compiled ahead of time"),
                (Err(_), true) => must_fail += 1,
                // Strings run on the reference interpreter, as on the JIT.
                (Err(e), false) if e.contains("cannot move strings") => refused.push(format!("{case}: {e}")),
                (Err(e), false) => panic!("{case}: failed to compile ahead of time: {e}"),
            }
        }
        let out = kerfx_aot::write_library("conformance", &kernels, &target).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let (obj, so) = (tmp.path().join("conformance.o"), tmp.path().join("libconformance.so"));
        std::fs::write(&obj, &out.object).unwrap();
        let link = Command::new("cc")
            .arg("-shared")
            .arg("-Wl,-z,text")
            .arg("-o")
            .arg(&so)
            .arg(&obj)
            .arg(runtime_library())
            .output()
            .unwrap();
        assert!(link.status.success(), "cc -shared: {}", String::from_utf8_lossy(&link.stderr));
        // SAFETY: the library was just linked from kerf's object, whose only
        // initialization is the dynamic linker's relocations.
        let lib: &'static libloading::Library = Box::leak(Box::new(unsafe { libloading::Library::new(&so) }.unwrap()));
        let (mut programs, mut random, mut headed) = (0, 0, 0);
        for (k, case) in kernels.iter().zip(&cases) {
            let symbol = format!("conformance_{}", k.name);
            let f = match &k.body {
                kerfx_aot::Body::Single(f) => f,
                kerfx_aot::Body::Program(p) => {
                    // SAFETY: the symbols are the program's entry points, functions; only
                    // their addresses are read here (called through `call_with!`).
                    let (entry, range) = unsafe {
                        let range = format!("{symbol}_range");
                        (
                            *lib.get::<*const std::ffi::c_void>(symbol.as_bytes()).unwrap(),
                            *lib.get::<*const std::ffi::c_void>(range.as_bytes()).unwrap(),
                        )
                    };
                    let program: &'static AotProgram = Box::leak(Box::new(AotProgram {
                        entry,
                        range,
                        extent: p.range_extent as usize,
                        dtype: p.dtype,
                        input_bytes: p.caller_inputs().map(|i| i.bytes).collect(),
                        outputs: p.outputs.iter().map(|o| o.shape.clone()).collect(),
                    }));
                    kerfx_testkit::check_case(super::Backend::AotProgram(program), case);
                    let Ok(AnyFile::Request(file)) = load_any(&root.join(case).join("request.toml")) else {
                        panic!("{case}: a program case is a request")
                    };
                    program.check_ranges(case, &file.request);
                    programs += 1;
                    continue;
                }
            };
            // SAFETY: the header declares these symbols with exactly these C signatures.
            let entry = unsafe {
                if f.input_bytes.is_some() {
                    Ok(*lib.get::<WithInput>(symbol.as_bytes()).unwrap())
                } else {
                    Err(*lib.get::<NoInput>(symbol.as_bytes()).unwrap())
                }
            };
            let kernel: &'static AotKernel = Box::leak(Box::new(AotKernel {
                entry,
                dtype: f.dtype,
                input_shape: f.input_shape.clone(),
                output_shape: f.output_shape.clone(),
            }));
            kerfx_testkit::check_case(super::Backend::Aot(kernel), case);
            if f.host_functions.contains(&"kerf_rt1_head_run") {
                headed += 1;
            }
            // A random fill: its statistics above, its bits the reference's.
            let dir = root.join(case);
            if dir.join("expected_stats.json").exists() {
                let Ok(AnyFile::Request(file)) = load_any(&dir.join("request.toml")) else {
                    panic!("{case}: a random fill case is a request")
                };
                let want = kerfx::run_reference_outputs(&file.request).unwrap();
                let got = kernel.run_tensor(None).unwrap();
                assert!([got] == *want, "{case}: the random fill differs from the reference's bits");
                assert!(f.host_functions.contains(&"kerf_rt1_random_fill"), "{case}");
                random += 1;
            }
        }
        eprintln!(
            "{} cases ran ahead of time ({programs} of them programs, {random} random fills, {headed} chains from a \
             fill through head runs); {must_fail} that must fail did not compile; {} are not written ahead of time:",
            cases.len(),
            refused.len()
        );
        for r in &refused {
            eprintln!("  not written ahead of time: {r}");
        }
        // Most of the suite runs without a runtime library.
        assert!(cases.len() * 2 > kerfx_testkit::CASE_COUNT, "only {} cases compiled ahead of time", cases.len());
        // Every Concat and Split case that runs but the one of strings runs as a program
        // kernel (the packed 4-bit Concats through scratch and a placement). Pinned.
        assert_eq!(programs, 22, "program cases run ahead of time");
        // Every random fill case, and the chains that start with a fill whose kernels
        // compute its elements by the runtime's head runs. Pinned.
        assert_eq!(random, 4, "random fill cases run ahead of time, bit for bit");
        assert_eq!(headed, 7, "chains from a fill that call the runtime's head runs");
    }
}
