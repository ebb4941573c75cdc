//! `kerf aot` run as a user would: the object and header written, a static library that
//! links, and every error one line on stderr that leaves no partial or new output and
//! replaces no file kerf did not write.

use assert_cmd::Command;
use kerfx_testkit::native::{have, runtime_library};
use std::ffi::OsStr;
use std::path::Path;

fn kerf() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kerf"));
    c.env("RUST_BACKTRACE", "1");
    c
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A library of one crop and the directory holding it.
fn library(dir: &Path, request: &str) -> std::path::PathBuf {
    std::fs::write(
        dir.join("crop.toml"),
        format!(
            "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 1]\nsize = [2, 2]\nstride = [1, 1]\n\
             [inputs]\ninput = {request}\n"
        ),
    )
    .unwrap();
    std::fs::write(dir.join("lib.toml"), "name = \"mk\"\n[[kernels]]\nname = \"crop\"\nrequest = \"crop.toml\"\n")
        .unwrap();
    dir.join("lib.toml")
}

/// One error line, status 1, no panic.
fn fails(out: &std::process::Output) -> String {
    let e = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.starts_with("error: ") && e.lines().count() == 1 && !e.contains("panicked"), "{e}");
    e
}

#[test]
fn aot_writes_an_object_and_a_header_and_replaces_only_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path(), "{ dtype = \"f32\", shape = [3, 3] }");
    let out_dir = tmp.path().join("out");
    kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).assert().success();
    assert_eq!(files_in(&out_dir), ["mk.h", "mk.o"]);
    let header = std::fs::read_to_string(out_dir.join("mk.h")).unwrap();
    assert!(
        header.contains("int32_t mk_crop(const void *input, size_t input_bytes, void *output, size_t output_bytes);")
    );
    assert!(header.contains("#define MK_CROP_OUTPUT_BYTES 16ULL"));
    // Again: kerf's own files are replaced, byte for byte the same.
    let object = std::fs::read(out_dir.join("mk.o")).unwrap();
    kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).assert().success();
    assert_eq!(std::fs::read(out_dir.join("mk.o")).unwrap(), object);
    // A file kerf did not write is never replaced.
    std::fs::write(out_dir.join("mk.h"), "/* mine */\n").unwrap();
    let e = fails(&kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).output().unwrap());
    assert!(e.contains("mk.h") && e.contains("not written by kerf aot"), "{e}");
    assert_eq!(std::fs::read_to_string(out_dir.join("mk.h")).unwrap(), "/* mine */\n");
    assert_eq!(files_in(&out_dir), ["mk.h", "mk.o"], "no temporary file is left");
}

#[test]
fn aot_errors_leave_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    // A request that does not lower: the error names the kernel and the file.
    let lib = library(tmp.path(), "{ dtype = \"f32\", shape = [3] }");
    let out_dir = tmp.path().join("out");
    let e = fails(&kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).output().unwrap());
    assert!(e.contains("kernel \"crop\"") && e.contains("crop.toml"), "{e}");
    assert!(!out_dir.exists(), "a failed run created the output directory");
    // An unknown target, a missing library file, an output that is a file.
    let lib = library(tmp.path(), "{ dtype = \"f32\", shape = [3, 3] }");
    let e = fails(&kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).args(["--target", "mips"]).output().unwrap());
    assert!(e.contains("--target") && e.contains("aarch64-unknown-linux-gnu"), "{e}");
    let e = fails(&kerf().arg("aot").arg(tmp.path().join("none.toml")).arg("-o").arg(&out_dir).output().unwrap());
    assert!(e.contains("none.toml"), "{e}");
    assert!(!out_dir.exists());
    let e = fails(&kerf().arg("aot").arg(&lib).arg("-o").arg(&lib).output().unwrap());
    assert!(e.contains("is not a directory"), "{e}");
}

#[test]
fn aot_staticlib_links_into_a_c_program() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path(), "{ dtype = \"i8\", shape = [3, 3] }");
    let out_dir = tmp.path().join("out");
    kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).args(["--emit", "staticlib"]).assert().success();
    assert_eq!(files_in(&out_dir), ["libmk.a", "mk.h"]);
    if !have("cc") {
        return;
    }
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        eprintln!("skipped linking: the default target is x86-64 Linux");
        return;
    }
    let main = "unsigned char in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, out[4];\n    \
                if (mk_crop(in, sizeof in, out, sizeof out) != KERF_OK) return 1;\n    \
                printf(\"%d %d %d %d\\n\", out[0], out[1], out[2], out[3]);";
    assert_eq!(link_and_run(tmp.path(), &out_dir, "mk", "prog", main), "2 3 5 6\n");
}

/// A C program whose `main` is `body` (with `<lib>.h` and stdio.h), linked with `-l<lib>`
/// from `lib_dir` into `dir/NAME`: [`cc_and_run`]'s standard output.
fn link_and_run(dir: &Path, lib_dir: &Path, lib: &str, name: &str, body: &str) -> String {
    let source =
        format!("#include \"{lib}.h\"\n#include <stdio.h>\nint main(void) {{\n    {body}\n    return 0;\n}}\n");
    let (include, libs) = (lib_dir.as_os_str(), format!("-l{lib}"));
    cc_and_run(dir, name, &source, [OsStr::new("-I"), include, OsStr::new("-L"), include, OsStr::new(&libs)], None)
}

/// `dir/NAME.c` (`source`) compiled and linked by the system `cc` with `args` into
/// `dir/NAME` and run (with `LD_LIBRARY_PATH` = `lib_path` when given), both asserted to
/// succeed; the program's standard output.
fn cc_and_run<'a>(
    dir: &Path,
    name: &str,
    source: &str,
    args: impl IntoIterator<Item = &'a OsStr>,
    lib_path: Option<&Path>,
) -> String {
    let (prog, exe) = (dir.join(format!("{name}.c")), dir.join(name));
    std::fs::write(&prog, source).unwrap();
    let cc = std::process::Command::new("cc").arg(&prog).args(args).arg("-o").arg(&exe).output().unwrap();
    assert!(cc.status.success(), "{name}: {}", stderr(&cc));
    let mut run = std::process::Command::new(&exe);
    if let Some(path) = lib_path {
        run.env("LD_LIBRARY_PATH", path);
    }
    let run = run.output().unwrap();
    assert!(run.status.success(), "{name}: {:?} {}", run.status, stderr(&run));
    String::from_utf8_lossy(&run.stdout).into_owned()
}

/// Kernels over several inputs and outputs: a Split request and the graph file
/// tests/data/graph/roll.toml, each one entry point, linked and run from C; a graph that
/// does not run as one program is one error line naming why.
#[test]
fn aot_writes_program_kernels_and_graphs() {
    let tmp = tempfile::tempdir().unwrap();
    let roll = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/graph/roll.toml");
    std::fs::write(
        tmp.path().join("split.toml"),
        "op = \"openvino.variadic_split\"\n[inputs]\ndata = { dtype = \"u8\", shape = [2, 5] }\naxis = 1\n\
         split_lengths = [2, 3]\n",
    )
    .unwrap();
    let lib = tmp.path().join("lib.toml");
    std::fs::write(
        &lib,
        format!(
            "name = \"pk\"\n[[kernels]]\nname = \"split\"\nrequest = \"split.toml\"\n\
             [[kernels]]\nname = \"roll\"\nrequest = {:?}\n",
            roll.display().to_string()
        ),
    )
    .unwrap();
    let out_dir = tmp.path().join("out");
    kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).args(["--emit", "staticlib"]).assert().success();
    assert_eq!(files_in(&out_dir), ["libpk.a", "pk.h"]);
    let header = std::fs::read_to_string(out_dir.join("pk.h")).unwrap();
    assert!(header.contains(
        "int32_t pk_split(const void *in_0, size_t in_0_bytes, void *out_0, size_t out_0_bytes, \
         void *out_1, size_t out_1_bytes);"
    ));
    assert!(header.contains("int32_t pk_roll(const void *in_0, size_t in_0_bytes, void *out_0, size_t out_0_bytes);"));
    assert!(header.contains("#define PK_ROLL_IN0_NAME \"x\"") && header.contains("#define PK_SPLIT_OUT1_BYTES 6ULL"));
    if have("cc") && cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        let main = "unsigned char in[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, a[4], b[6];\n    float x[16], y[16];\n    \
                    int i;\n    for (i = 0; i < 16; i++) x[i] = (float)i;\n    \
                    if (pk_split(in, sizeof in, a, sizeof a, b, sizeof b) != KERF_OK) return 1;\n    \
                    if (pk_split(in, sizeof in, a, sizeof a, in, sizeof b) != KERF_ERR_OVERLAP) return 2;\n    \
                    if (pk_roll(x, sizeof x, y, sizeof y) != KERF_OK) return 3;\n    \
                    printf(\"%d %d %d %d | %g %g %g\\n\", a[0], a[3], b[0], b[5], y[0], y[5], y[8]);";
        assert_eq!(link_and_run(tmp.path(), &out_dir, "pk", "prog", main), "0 6 2 9 | 3 0 11\n");
    } else {
        eprintln!("skipped linking: no C compiler `cc`, or not x86-64 Linux");
    }
    // A value both output and read again: two programs, refused, nothing written.
    std::fs::write(
        tmp.path().join("two.toml"),
        "outputs = [\"y\", \"z\"]\n[inputs]\nx = { dtype = \"f32\", shape = [4] }\n\
         [[nodes]]\nop = \"onnx.slice\"\nversion = 13\nreads = { data = \"x\" }\nwrites = [\"y\"]\n\
         [nodes.inputs]\nstarts = [1]\nends = [3]\n\
         [[nodes]]\nop = \"onnx.concat\"\nversion = 13\nreads = { inputs = [\"y\", \"y\"] }\nwrites = [\"z\"]\n\
         [nodes.attributes]\naxis = 0\n",
    )
    .unwrap();
    std::fs::write(&lib, "name = \"pk2\"\n[[kernels]]\nname = \"g\"\nrequest = \"two.toml\"\n").unwrap();
    let none = tmp.path().join("none");
    let e = fails(&kerf().arg("aot").arg(&lib).arg("-o").arg(&none).output().unwrap());
    assert!(e.contains("kernel \"g\"") && e.contains("two.toml") && e.contains("cuts into 2 programs"), "{e}");
    assert!(!none.exists());
}

/// `--shared`: `lib<lib>.so` through the system `cc` and `<lib>.pc`, whose flags build a
/// C program that runs against it; a library calling the runtime needs `--runtime` (then
/// links it in and exports only its own entry points); the errors leave no output.
#[test]
fn aot_shared_links_through_cc_with_a_pkg_config_file() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = library(tmp.path(), "{ dtype = \"i8\", shape = [3, 3] }");
    let out_dir = tmp.path().join("out");
    // clap's usage errors: --runtime only with --shared, --shared not with --emit.
    for extra in [&["--runtime", "x.a"][..], &["--shared", "--emit", "obj"]] {
        let out = kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).args(extra).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&out).contains("--shared"), "{}", stderr(&out));
    }
    if !have("cc") || !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        eprintln!("skipped: --shared links with `cc` on x86-64 Linux (CI installs it)");
        return;
    }
    let e = fails(
        &kerf()
            .arg("aot")
            .arg(&lib)
            .arg("-o")
            .arg(&out_dir)
            .args(["--shared", "--target", "aarch64-unknown-linux-gnu"])
            .env_remove("CC")
            .output()
            .unwrap(),
    );
    assert!(e.contains("set CC"), "{e}");
    assert!(!out_dir.exists());
    kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).arg("--shared").assert().success();
    assert_eq!(files_in(&out_dir), ["libmk.so", "mk.h", "mk.pc"]);
    let pc = std::fs::read_to_string(out_dir.join("mk.pc")).unwrap();
    let absolute = std::fs::canonicalize(&out_dir).unwrap();
    assert!(
        pc.contains(&format!("libdir={}\n", absolute.display())) && pc.contains("Libs: -L${libdir} -lmk\n"),
        "{pc}"
    );
    // Again: kerf's own files are replaced.
    kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).arg("--shared").assert().success();
    let flags = if have("pkg-config") {
        let o = std::process::Command::new("pkg-config")
            .args(["--cflags", "--libs", "mk"])
            .env("PKG_CONFIG_PATH", &out_dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8(o.stdout).unwrap()
    } else {
        eprintln!("no pkg-config: the .pc file's flags are spelled out");
        format!("-I{0} -L{0} -lmk", absolute.display())
    };
    let source = "#include \"mk.h\"\n#include <stdio.h>\nint main(void) {\n    unsigned char in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, out[4];\n    \
                  if (mk_crop(in, sizeof in, out, sizeof out) != KERF_OK) return 1;\n    \
                  printf(\"%d %d %d %d\\n\", out[0], out[1], out[2], out[3]);\n    return 0;\n}\n";
    let args = flags.split_whitespace().map(OsStr::new);
    assert_eq!(cc_and_run(tmp.path(), "prog", source, args, Some(&out_dir)), "2 3 5 6\n");

    // A transpose calls the runtime's tiled copy: refused without --runtime, then linked in.
    std::fs::write(
        tmp.path().join("tr.toml"),
        "op = \"onnx.transpose\"\n[attributes]\nperm = [1, 0]\n[inputs]\ndata = { dtype = \"f32\", shape = [64, 48] }\n",
    )
    .unwrap();
    std::fs::write(tmp.path().join("rt.toml"), "name = \"rt\"\n[[kernels]]\nname = \"tr\"\nrequest = \"tr.toml\"\n")
        .unwrap();
    let rt_dir = tmp.path().join("rt");
    let rt_lib = tmp.path().join("rt.toml");
    let e = fails(&kerf().arg("aot").arg(&rt_lib).arg("-o").arg(&rt_dir).arg("--shared").output().unwrap());
    assert!(e.contains("--runtime") && e.contains("libkerfx_rt.a"), "{e}");
    assert!(!rt_dir.exists());
    let runtime = runtime_library();
    kerf()
        .arg("aot")
        .arg(&rt_lib)
        .arg("-o")
        .arg(&rt_dir)
        .arg("--shared")
        .arg("--runtime")
        .arg(&runtime)
        .assert()
        .success();
    assert_eq!(files_in(&rt_dir), ["kerf_rt.h", "librt.so", "rt.h", "rt.pc"]);
    let nm = std::process::Command::new("nm").args(["-D", "--defined-only"]).arg(rt_dir.join("librt.so")).output();
    if let Some(nm) = nm.ok().filter(|o| o.status.success()) {
        let symbols: Vec<String> = String::from_utf8_lossy(&nm.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
            .collect();
        assert_eq!(symbols, ["rt_info", "rt_tr", "rt_tr_range"], "the shared library's exports");
    } else {
        eprintln!("no nm: the exported symbols are not listed");
    }
}

/// A dynamic kernel (`dynamic = true`): the header declares its plan constructor and entry
/// point and includes `kerf_rt.h`, written beside it; a C program links the object with
/// the runtime library, builds plans of two shapes and runs them; `--shared --runtime`
/// exports the entry points and the runtime's plan functions, and nothing else.
#[test]
fn aot_writes_a_dynamic_kernel_that_runs_plans_from_c() {
    let tmp = tempfile::tempdir().unwrap();
    library(tmp.path(), "{ dtype = \"i8\", shape = [3, 3] }");
    let lib = tmp.path().join("dyn.toml");
    std::fs::write(&lib, "name = \"dk\"\n[[kernels]]\nname = \"crop\"\nrequest = \"crop.toml\"\ndynamic = true\n")
        .unwrap();
    let out_dir = tmp.path().join("out");
    kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).assert().success();
    assert_eq!(files_in(&out_dir), ["dk.h", "dk.o", "kerf_rt.h"]);
    let header = std::fs::read_to_string(out_dir.join("dk.h")).unwrap();
    assert!(header.contains("#include \"kerf_rt.h\""), "{header}");
    assert!(
        header.contains(
            "int32_t dk_crop_plan(const uint64_t *input_shape, size_t input_rank, const int64_t *start, size_t start_count, \
             const int64_t *size, size_t size_count, const int64_t *stride, size_t stride_count, kerf_rt1_plan **plan);"
        ),
        "{header}"
    );
    assert!(header.contains("#define DK_CROP_PARAM_COUNT 3") && header.contains("#define DK_CROP_NEEDS_RUNTIME 1"));
    // A chain cannot be a dynamic kernel: one error line naming the kernel.
    std::fs::write(
        tmp.path().join("chain.toml"),
        "[[steps]]\nop = \"onnx.identity\"\n[steps.inputs]\ninput = { dtype = \"u8\", shape = [2] }\n",
    )
    .unwrap();
    let bad = tmp.path().join("bad.toml");
    std::fs::write(&bad, "name = \"bad\"\n[[kernels]]\nname = \"c\"\nrequest = \"chain.toml\"\ndynamic = true\n")
        .unwrap();
    let e = fails(&kerf().arg("aot").arg(&bad).arg("-o").arg(tmp.path().join("none")).output().unwrap());
    assert!(e.contains("kernel \"c\"") && e.contains("a dynamic kernel is one op"), "{e}");
    if !have("cc") || !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        eprintln!("skipped linking: no C compiler `cc`, or not x86-64 Linux (CI has both)");
        return;
    }
    let source = "#include \"dk.h\"\n#include <stdio.h>\n\
         int main(void) {\n    unsigned char in[16], out[16];\n    int i;\n    kerf_rt1_plan *plan = NULL;\n    \
         const uint64_t small[] = {3, 3}, big[] = {4, 4};\n    \
         const int64_t start[] = {0, 1}, size[] = {2, 2}, whole[] = {4, 3}, stride[] = {1, 1};\n    \
         for (i = 0; i < 16; i++) in[i] = (unsigned char)(i + 1);\n    \
         if (dk_crop_plan(small, 2, start, 2, size, 2, stride, 2, &plan) != KERF_OK) return 1;\n    \
         if (dk_crop(plan, in, 9, out, kerf_rt1_plan_output_bytes(plan)) != KERF_OK) return 2;\n    \
         printf(\"%d %d %d %d\\n\", out[0], out[1], out[2], out[3]);\n    kerf_rt1_plan_free(plan);\n    \
         if (dk_crop_plan(big, 2, start, 2, whole, 2, stride, 2, &plan) != KERF_OK) return 3;\n    \
         if (dk_crop(plan, in, sizeof in, out, 12) != KERF_OK) return 4;\n    \
         printf(\"%d %d\\n\", out[0], out[11]);\n    kerf_rt1_plan_free(plan);\n    return 0;\n}\n";
    let (object, runtime) = (out_dir.join("dk.o"), runtime_library());
    let args = [OsStr::new("-I"), out_dir.as_os_str(), object.as_os_str(), runtime.as_os_str()]
        .into_iter()
        .chain(["-lpthread", "-ldl", "-lm"].map(OsStr::new));
    assert_eq!(cc_and_run(tmp.path(), "prog", source, args, None), "2 3 5 6\n2 16\n");
    // The shared library: the program links it alone.
    let shared = tmp.path().join("shared");
    kerf()
        .arg("aot")
        .arg(&lib)
        .arg("-o")
        .arg(&shared)
        .arg("--shared")
        .arg("--runtime")
        .arg(runtime_library())
        .assert()
        .success();
    let args = [OsStr::new("-I"), shared.as_os_str(), OsStr::new("-L"), shared.as_os_str(), OsStr::new("-ldk")];
    assert_eq!(cc_and_run(tmp.path(), "prog_shared", source, args, Some(&shared)), "2 3 5 6\n2 16\n");
    let nm = std::process::Command::new("nm").args(["-D", "--defined-only"]).arg(shared.join("libdk.so")).output();
    if let Some(nm) = nm.ok().filter(|o| o.status.success()) {
        let symbols: Vec<String> = String::from_utf8_lossy(&nm.stdout)
            .lines()
            .filter(|l| l.contains(" T "))
            .filter_map(|l| l.split_whitespace().last().map(str::to_string))
            .collect();
        assert!(symbols.iter().all(|s| s.starts_with("dk_") || s.starts_with("kerf_rt1_plan_")), "{symbols:?}");
        assert!(symbols.iter().any(|s| s == "kerf_rt1_plan_free"), "{symbols:?}");
    } else {
        eprintln!("no nm: the shared library's symbols are not listed");
    }
}

/// `--cpu`: a preset above the conservative one (x86-64-v3) and `host` record themselves
/// in the header, and their objects compute what the default's does (a crop of 4-bit
/// elements, whose nibble shifts the presets compile differently), run from C; a preset
/// Cranelift does not have, `host` for another architecture, and an x86 preset for
/// aarch64 are one error line each, leaving no output.
#[test]
fn aot_cpu_presets_are_recorded_and_compute_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("crop.toml"),
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 1]\nsize = [2, 3]\nstride = [1, 1]\n\
         [inputs]\ninput = { dtype = \"i4\", shape = [3, 5] }\n",
    )
    .unwrap();
    let lib = tmp.path().join("lib.toml");
    std::fs::write(&lib, "name = \"mk\"\n[[kernels]]\nname = \"crop\"\nrequest = \"crop.toml\"\n").unwrap();
    let can_run = cfg!(all(target_arch = "x86_64", target_os = "linux")) && have("cc");
    #[cfg(target_arch = "x86_64")]
    let v3 = ["avx2", "bmi2", "fma"].iter().all(|f| match *f {
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "bmi2" => std::arch::is_x86_feature_detected!("bmi2"),
        _ => std::arch::is_x86_feature_detected!("fma"),
    });
    #[cfg(not(target_arch = "x86_64"))]
    let v3 = false;
    let mut printed = Vec::new();
    for (cpu, recorded) in [(None, "x86-64-v2"), (Some("x86-64-v3"), "x86-64-v3"), (Some("host"), "host")] {
        let out_dir = tmp.path().join(format!("out-{recorded}"));
        let mut cmd = kerf();
        cmd.arg("aot").arg(&lib).arg("-o").arg(&out_dir).args(["--emit", "staticlib"]);
        if let Some(cpu) = cpu {
            cmd.args(["--cpu", cpu]);
        }
        if cpu == Some("host") && !cfg!(target_arch = "x86_64") {
            continue;
        }
        cmd.assert().success();
        let header = std::fs::read_to_string(out_dir.join("mk.h")).unwrap();
        assert!(header.contains(&format!("#define MK_CPU \"{recorded}\"")), "{header}");
        if !can_run || (cpu == Some("x86-64-v3") && !v3) {
            eprintln!("skipped running the {recorded} object: no cc, not x86-64 Linux, or a CPU without x86-64-v3");
            continue;
        }
        let main = "unsigned char in[8] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe}, out[3];\n    \
                    if (mk_crop(in, sizeof in, out, sizeof out) != KERF_OK) return 1;\n    \
                    printf(\"%02x %02x %02x\\n\", out[0], out[1], out[2]);";
        let out = link_and_run(tmp.path(), &out_dir, "mk", &format!("prog-{recorded}"), main);
        printed.push((recorded, out));
    }
    // Elements are nibbles, low first: row r of [3, 5] holds 5r..5r + 4; the crop keeps
    // columns 1..4 of rows 0 and 1: 1 2 3 6 7 8, packed two to a byte, low first.
    for (recorded, out) in &printed {
        assert_eq!(out, "21 63 87\n", "{recorded}");
    }
    let out_dir = tmp.path().join("none");
    for (target, cpu, says) in [
        ("x86_64-unknown-linux-gnu", "x86-64-v9", "no such preset"),
        ("aarch64-unknown-linux-gnu", "x86-64-v3", "aarch64-baseline"),
        ("aarch64-unknown-linux-gnu", if cfg!(target_arch = "aarch64") { "x86-64-v2" } else { "host" }, "--cpu"),
    ] {
        let out = kerf().arg("aot").arg(&lib).arg("-o").arg(&out_dir).args(["--target", target, "--cpu", cpu]).output();
        let e = fails(&out.unwrap());
        assert!(e.contains("--cpu") && e.contains(cpu) && e.contains(says), "{e}");
        assert!(!out_dir.exists(), "a refused --cpu created the output directory");
    }
}
