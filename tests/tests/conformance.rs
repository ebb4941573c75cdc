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

/// Call the C function at `entry` (an entry point or a plan constructor of an object
/// written ahead of time; `$what` names it in the error) with `args`: the arity chooses
/// the function type, exactly the function's (as many integer-class parameters, pointers
/// or `size_t`, an `int32_t` result); an arity not listed is an error.
macro_rules! call_with {
    ($what:literal, $entry:expr, $args:expr, $($n:literal => [$($i:literal)*]),* $(,)?) => {
        match $args.len() {
            $($n => {
                // The function takes exactly $n integer-class parameters (its header's declaration).
                // SAFETY: as above; it checks every pointer and number it is given, and the arrays
                // and buffers passed are valid for their counts and lengths.
                unsafe {
                    let f: unsafe extern "C" fn($(call_with!(@ty $i)),*) -> i32 = std::mem::transmute($entry);
                    f($($args[$i]),*)
                }
            })*
            n => return Err(Error::Invalid { what: format!("{} of {n} parameters", $what) }),
        }
    };
    (@ty $i:literal) => { usize };
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
    use kerfx_testkit::native::{have, runtime_library};
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
            Ok(call_with!("a program entry point", self.range, args,
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
            let status = call_with!("a program entry point", self.entry, args,
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

    #[test]
    fn every_case_compiled_ahead_of_time_matches_the_reference() {
        if !have("cc") {
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
                kerfx_aot::Body::Dynamic(_) => unreachable!("compile_request compiles no dynamic kernel"),
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

/// The suite on dynamic kernels compiled ahead of time (`kerfx_aot::compile_dynamic`):
/// every case of one op over one input — as the dynamic JIT runs them — grouped by its
/// op, version, fixed attributes, dtype, rank, parameters and kernel key, one dynamic
/// kernel per group compiled from the group's first case, all in one library linked by
/// `cc` with the runtime library into a shared object and loaded. Each case then builds
/// its own plan through its kernel's plan constructor (its input's shape and parameters:
/// the runtime's planner validates and schedules them) and runs it on guard-page buffers
/// (flush with the trailing, then the leading guard page; the bytes around them checked),
/// compared with the reference by the suite's `check_case`. Cases that must fail fail to
/// compile, to plan or to run. Chains, programs (Concat, Split), fills and strings are
/// not dynamic kernels written ahead of time: each is named with its reason.
mod aot_dynamic {
    use kerfx::request_file::{AnyFile, load_any};
    use kerfx::{AttrValue, DType, Error, InputArg, Request, Tensor};
    use kerfx_aot::Template;
    use kerfx_reliability::{Flush, GuardedBuf};
    use kerfx_rt::plan::Place;
    use kerfx_testkit::native::{have, runtime_library};
    use std::ffi::c_void;
    use std::process::Command;

    type Entry = unsafe extern "C" fn(*const c_void, *const u8, usize, *mut u8, usize) -> i32;

    /// The runtime's plan functions, from the loaded library.
    struct Runtime {
        error: unsafe extern "C" fn(*mut u8, usize) -> usize,
        output_bytes: unsafe extern "C" fn(*const c_void) -> u64,
        output_shape: unsafe extern "C" fn(*const c_void, *mut u64, usize) -> usize,
        free: unsafe extern "C" fn(*mut c_void),
    }

    /// One dynamic kernel's two entry points.
    struct AotDynamic {
        /// `<lib>_<k>_plan`, called through `call_with!`.
        constructor: *const c_void,
        entry: Entry,
        dtype: DType,
        params: usize,
        rt: &'static Runtime,
    }

    // SAFETY: plain functions of the loaded (leaked, never unloaded) library; plans are
    // immutable and the planner keeps its messages per thread.
    unsafe impl Sync for AotDynamic {}

    /// The request with its data input given by dtype and shape: what a dynamic kernel is
    /// compiled from.
    fn as_meta(request: &Request) -> Result<Request, Error> {
        let spec = kerfx::op_spec(&request.op)?;
        let name = kerfx::data_input_name(spec).ok_or_else(|| Error::Invalid { what: "no data input".into() })?;
        let data = kerfx::data_input(request)?.ok_or_else(|| Error::Invalid { what: "no data input".into() })?;
        let mut r = request.clone();
        r.inputs.insert(name.to_string(), InputArg::Meta { dtype: data.dtype(), shape: data.shape().to_vec() });
        Ok(r)
    }

    /// The values of a template's parameters, as its request gives them.
    fn param_values(t: &Template) -> Result<Vec<Vec<i64>>, Error> {
        let bad = |name: &str| Error::Invalid { what: format!("parameter `{name}`") };
        t.params
            .iter()
            .map(|p| match (&p.place, t.request.attributes.get(&p.name), t.request.inputs.get(&p.name)) {
                (Place::Attr { .. }, Some(AttrValue::Int(v)), _) => Ok(vec![*v]),
                (Place::Attr { .. }, Some(AttrValue::IntList(v)), _) => Ok(v.clone()),
                (Place::Input { .. }, _, Some(InputArg::Tensor(x))) => (0..x.len())
                    .map(|i| x.element_i128(i).and_then(|v| i64::try_from(v).ok()).ok_or_else(|| bad(&p.name)))
                    .collect(),
                _ => Err(bad(&p.name)),
            })
            .collect()
    }

    /// What groups cases onto one kernel: the template without its data shape and
    /// parameter values, its parameters' names and counts, and the kernel key.
    fn group_key(t: &Template, key: Option<kerfx_rt::dynamic::MoveKey>) -> String {
        let mut r = t.request.clone();
        r.inputs.insert(t.data.0.clone(), InputArg::Meta { dtype: t.data.1, shape: vec![0; t.data.2] });
        for p in &t.params {
            r.attributes.remove(&p.name);
            r.inputs.remove(&p.name);
        }
        let dtype = |p: &kerfx_rt::plan::Param| match &p.place {
            Place::Input { dtype, .. } => dtype.to_string(),
            Place::Attr { .. } => "attr".into(),
        };
        let params: Vec<String> = t.params.iter().map(|p| format!("{}:{:?}:{}", p.name, p.count(), dtype(p))).collect();
        format!("{}{params:?}{key:?}", kerfx_rt::plan::encode_request(&r).unwrap_or_default())
    }

    impl kerfx_testkit::DynamicEntry for AotDynamic {
        fn run_request(&self, request: &Request) -> Result<Tensor, Error> {
            let data = kerfx::data_input(request)?.ok_or_else(|| Error::Invalid { what: "no data input".into() })?;
            let template = Template::of(&as_meta(request)?)?;
            if template.params.len() != self.params {
                return Err(Error::Invalid { what: "parameters of another kernel".into() });
            }
            let values = param_values(&template)?;
            let shape = data.shape();
            let mut plan: *mut c_void = std::ptr::null_mut();
            let mut args: Vec<usize> = vec![shape.as_ptr() as usize, shape.len()];
            for v in &values {
                args.extend([v.as_ptr() as usize, v.len()]);
            }
            args.push(&raw mut plan as usize);
            let status = call_with!("a plan constructor", self.constructor, args,
                3 => [0 1 2], 5 => [0 1 2 3 4], 7 => [0 1 2 3 4 5 6], 9 => [0 1 2 3 4 5 6 7 8],
                11 => [0 1 2 3 4 5 6 7 8 9 10],
                13 => [0 1 2 3 4 5 6 7 8 9 10 11 12],
                15 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14],
                17 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16],
                19 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18],
                21 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20],
                23 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22],
            );
            if status != 0 {
                let mut msg = vec![0u8; 512];
                // SAFETY: the buffer is writable for its length.
                let n = unsafe { (self.rt.error)(msg.as_mut_ptr(), msg.len()) }.min(msg.len() - 1);
                assert!(plan.is_null(), "a failed plan constructor left a plan");
                return Err(Error::Invalid {
                    what: format!("plan: status {status}: {}", String::from_utf8_lossy(&msg[..n])),
                });
            }
            /// Frees the plan however the run ends.
            struct Owned<'a>(*mut c_void, &'a Runtime);
            impl Drop for Owned<'_> {
                fn drop(&mut self) {
                    // SAFETY: a plan of the constructor, freed once.
                    unsafe { (self.1.free)(self.0) }
                }
            }
            let plan = Owned(plan, self.rt);
            // SAFETY: a live plan; the shape buffer is sized by the rank asked first.
            let (out_bytes, dims) = unsafe {
                let rank = (self.rt.output_shape)(plan.0, std::ptr::null_mut(), 0);
                let mut dims = vec![0u64; rank];
                (self.rt.output_shape)(plan.0, dims.as_mut_ptr(), rank);
                ((self.rt.output_bytes)(plan.0), dims)
            };
            let input = data.bytes().ok_or_else(|| Error::Invalid { what: "strings".into() })?;
            let mut result: Option<Tensor> = None;
            for flush in Flush::BOTH {
                let inp = GuardedBuf::from_bytes(input, flush);
                let mut out = GuardedBuf::new(out_bytes as usize, flush);
                let (ip, il) = (inp.as_slice().as_ptr(), inp.as_slice().len());
                let o = out.as_mut_slice();
                // SAFETY: the entry point checks the plan and both buffers' lengths before
                // anything runs; the buffers are valid for their lengths.
                let status = unsafe { (self.entry)(plan.0, ip, il, o.as_mut_ptr(), o.len()) };
                if status != 0 {
                    return Err(Error::Invalid { what: format!("entry point returned status {status}") });
                }
                assert!(inp.canary_intact() && out.canary_intact(), "{flush:?}: a byte around a buffer changed");
                let t = Tensor::from_bytes(self.dtype, &dims, out.as_slice())?;
                if let Some(r) = &result {
                    assert!(r == &t, "the two guard-page runs differ");
                }
                result = Some(t);
            }
            result.ok_or_else(|| Error::Invalid { what: "no run".into() })
        }
    }

    #[test]
    fn every_case_compiled_as_a_dynamic_kernel_ahead_of_time_matches_the_reference() {
        if !have("cc") {
            return;
        }
        if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
            eprintln!("skipped: the AOT suite links x86-64 Linux objects and runs them here");
            return;
        }
        let target = kerfx_aot::Target::aot("x86_64-unknown-linux-gnu").unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/conformance");
        let (mut kernels, mut groups, mut refused, mut must_fail) = (Vec::new(), Vec::<String>::new(), Vec::new(), 0);
        // Per case run: its name and its kernel's index.
        let mut cases: Vec<(String, usize)> = Vec::new();
        let mut later: Vec<(String, String)> = Vec::new();
        for case in kerfx_testkit::case_names() {
            let dir = root.join(&case);
            let must = dir.join("expected_error").exists();
            if dir.join("expected_stats.json").exists() {
                refused.push(format!("{case}: a random fill (fills are not dynamic kernels written ahead of time)"));
                continue;
            }
            let request = match load_any(&dir.join("request.toml")) {
                Ok(AnyFile::Request(f)) => f.request,
                Ok(AnyFile::Chain(_)) => {
                    refused.push(format!("{case}: a chain (a dynamic kernel written ahead of time is one op)"));
                    continue;
                }
                Err(_) if must => {
                    must_fail += 1;
                    continue;
                }
                Err(e) => panic!("{case}: {e}"),
            };
            if kerfx::is_program_op(&request.op).unwrap_or(false) {
                refused.push(format!("{case}: {} is a program (several inputs or outputs)", request.op));
                continue;
            }
            let template = match as_meta(&request).and_then(|m| Template::of(&m)) {
                Ok(t) => t,
                Err(e) if !must => {
                    refused.push(format!("{case}: {e}"));
                    continue;
                }
                Err(_) => {
                    must_fail += 1;
                    continue;
                }
            };
            let key = match kerfx_ir::lower(&template.request) {
                Ok(kerfx_ir::Plan::Step(s)) => Some(kerfx_rt::dynamic::MoveKey::of(&s)),
                Ok(_) => {
                    refused.push(format!("{case}: a fill (fills are not dynamic kernels written ahead of time)"));
                    continue;
                }
                Err(_) => None,
            };
            let Some(key) = key else {
                // Its numbers make no plan: run it through a kernel of its group, if any,
                // once every group is known (the planner must refuse it).
                assert!(must, "{case}: does not lower");
                later.push((case, group_key(&template, None)));
                continue;
            };
            let gk = group_key(&template, Some(key));
            if let Some(g) = groups.iter().position(|k| k == &gk) {
                cases.push((case, g));
                continue;
            }
            let name = format!("k{}", kernels.len());
            match kerfx_aot::compile_dynamic(&name, &case, &template.request, &target) {
                Ok(k) => {
                    groups.push(gk);
                    kernels.push(k);
                    cases.push((case, kernels.len() - 1));
                }
                Err(e) if e.contains("cannot move strings") || e.contains("chain of kernels") => {
                    refused.push(format!("{case}: {e}"))
                }
                Err(_) if must => must_fail += 1,
                Err(e) => panic!("{case}: failed to compile as a dynamic kernel: {e}"),
            }
        }
        // Cases whose numbers make no plan run through a kernel of their op and kind.
        for (case, gk) in later {
            let stem = gk.split("None").next().unwrap_or_default().to_string();
            match groups.iter().position(|k| k.starts_with(&stem)) {
                Some(g) => cases.push((case, g)),
                None => must_fail += 1,
            }
        }
        let out = kerfx_aot::write_library("dynconf", &kernels, &target).unwrap();
        assert!(out.needs_runtime && out.header.contains("dynconf_k0_plan"));
        let tmp = tempfile::tempdir().unwrap();
        let (obj, so) = (tmp.path().join("dynconf.o"), tmp.path().join("libdynconf.so"));
        std::fs::write(&obj, &out.object).unwrap();
        // The planner's functions the suite calls itself, pulled from the archive.
        let mut link = Command::new("cc");
        link.arg("-shared").arg("-Wl,-z,text").arg("-o").arg(&so).arg(&obj);
        for f in ["error", "output_bytes", "output_shape", "free"] {
            link.arg(format!("-Wl,-u,kerf_rt1_plan_{f}"));
        }
        let link = link.arg(runtime_library()).output().unwrap();
        assert!(link.status.success(), "cc -shared: {}", String::from_utf8_lossy(&link.stderr));
        // SAFETY: the library was just linked from kerf's object and runtime, whose only
        // initialization is the dynamic linker's relocations (and Rust's std, inert).
        let lib: &'static libloading::Library = Box::leak(Box::new(unsafe { libloading::Library::new(&so) }.unwrap()));
        // SAFETY: kerf_rt.h declares these with exactly these C signatures.
        let rt: &'static Runtime = unsafe {
            Box::leak(Box::new(Runtime {
                error: *lib.get(b"kerf_rt1_plan_error").unwrap(),
                output_bytes: *lib.get(b"kerf_rt1_plan_output_bytes").unwrap(),
                output_shape: *lib.get(b"kerf_rt1_plan_output_shape").unwrap(),
                free: *lib.get(b"kerf_rt1_plan_free").unwrap(),
            }))
        };
        let entries: Vec<&'static AotDynamic> = kernels
            .iter()
            .map(|k| {
                let d = k.dynamic().unwrap();
                let symbol = format!("dynconf_{}", k.name);
                // SAFETY: the header declares the entry point with this C signature; the
                // constructor's address is only read (called through `call_with!`).
                let (entry, constructor) = unsafe {
                    (
                        *lib.get::<Entry>(symbol.as_bytes()).unwrap(),
                        *lib.get::<*const c_void>(format!("{symbol}_plan").as_bytes()).unwrap(),
                    )
                };
                let e = AotDynamic { constructor, entry, dtype: k.dtype(), params: d.template.params.len(), rt };
                &*Box::leak(Box::new(e))
            })
            .collect();
        for (case, g) in &cases {
            kerfx_testkit::check_case(kerfx_testkit::Backend::AotDynamic(entries[*g]), case);
        }
        eprintln!(
            "{} cases ran on {} dynamic kernels written ahead of time; {must_fail} that must fail did not compile; \
             {} are not dynamic kernels written ahead of time:",
            cases.len(),
            kernels.len(),
            refused.len()
        );
        for r in &refused {
            eprintln!("  not a dynamic kernel written ahead of time: {r}");
        }
        // Most of the suite runs; cases of one op, mode, dtype, rank and parameter list
        // share a kernel (a plan of numbers it was not compiled from). Pinned.
        assert_eq!((cases.len(), kernels.len()), (572, 490), "cases run, dynamic kernels");
    }
}
