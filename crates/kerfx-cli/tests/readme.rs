//! The README's shell lines run as written: every `kerf` command of its `sh` blocks, in a
//! directory holding the files its other blocks name (`request.toml`, the AOT library
//! `mykernels.toml` and `crop.toml`, `prog.c`, an ONNX `model.onnx` with `x0.npy`), must
//! succeed; the C program of "Ahead of time, from C" compiles with the README's `cc` line
//! against the header `kerf aot` wrote (which holds the README's header lines) and prints
//! what its comment says; its TOML blocks are the files they name, or (the chain) run.

use kerfx_testkit::native::runtime_library;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

/// The bodies of the README's code blocks of `lang`.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let fence = format!("```{lang}\n");
    text.split(&fence).skip(1).map(|rest| rest.split("```").next().unwrap_or("").to_string()).collect()
}

/// The one block of `lang` whose first line is `first` (a comment naming its file).
fn block_starting(text: &str, lang: &str, first: &str) -> String {
    let found: Vec<String> = blocks(text, lang).into_iter().filter(|b| b.starts_with(first)).collect();
    assert_eq!(found.len(), 1, "README.md has one ```{lang} block starting with `{first}`");
    found[0].clone()
}

/// Each command of the shell blocks' lines (`a; b` is two), comments removed.
fn shell_commands(text: &str) -> Vec<String> {
    blocks(text, "sh")
        .iter()
        .flat_map(|b| b.lines().map(str::to_string).collect::<Vec<_>>())
        .map(|l| l.split(" #").next().unwrap_or("").trim().to_string())
        .flat_map(|l| l.split("; ").map(|c| c.trim().to_string()).collect::<Vec<_>>())
        .filter(|c| !c.is_empty())
        .collect()
}

/// The scratch directory the commands run in: `tests/` (a link to the repository's), and
/// the files the README's other blocks describe.
fn scratch(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::os::unix::fs::symlink(repo().join("tests"), d.join("tests")).unwrap();
    let case = repo().join("tests/data/conformance/trt_slice_seed_fill");
    std::fs::copy(case.join("request.toml"), d.join("request.toml")).unwrap();
    std::fs::copy(case.join("input.npy"), d.join("input.npy")).unwrap();
    std::fs::write(d.join("mykernels.toml"), block_starting(text, "toml", "# mykernels.toml")).unwrap();
    std::fs::write(d.join("crop.toml"), block_starting(text, "toml", "# crop.toml")).unwrap();
    std::fs::write(d.join("prog.c"), block_starting(text, "c", "#include <stdio.h>")).unwrap();
    std::fs::write(d.join("dynamic.toml"), block_starting(text, "toml", "# dynamic.toml")).unwrap();
    std::fs::write(d.join("dynamic.c"), block_starting(text, "c", "/* dynamic.c */")).unwrap();
    let model = repo().join("tests/data/conformance-graph/g_reshape-transpose_f82f7156");
    std::fs::copy(model.join("model.onnx"), d.join("model.onnx")).unwrap();
    std::fs::copy(model.join("inputs/x0.npy"), d.join("x0.npy")).unwrap();
    dir
}

#[cfg(unix)]
#[test]
fn every_kerf_line_of_the_readme_runs() {
    let text = readme();
    let dir = scratch(&text);
    let commands: Vec<String> = shell_commands(&text).into_iter().filter(|c| c.starts_with("kerf ")).collect();
    assert!(commands.len() >= 15, "the README's kerf lines: {commands:?}");
    for command in &commands {
        let mut words: Vec<&str> = command.split_whitespace().skip(1).collect();
        let mut stdin = Stdio::null();
        if let Some(k) = words.iter().position(|w| *w == "<") {
            stdin = std::fs::File::open(dir.path().join(words[k + 1])).unwrap().into();
            words.drain(k..k + 2);
        }
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kerf"));
        cmd.current_dir(dir.path()).args(&words).stdin(stdin);
        if words[0] == "bench" {
            // The README's line as written, with few samples: the test checks that it runs.
            cmd.args(["--iters", "3"]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "`{command}` failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(k) = words.iter().position(|w| *w == "-o") {
            assert!(dir.path().join(words[k + 1]).exists(), "`{command}` wrote no {}", words[k + 1]);
        }
    }
    // The README's header lines are what `kerf aot` wrote (the last run: a static library).
    let header = std::fs::read_to_string(dir.path().join("build/mykernels.h")).unwrap();
    let shown = blocks(&text, "c").into_iter().find(|b| b.starts_with("#define MYKERNELS_")).unwrap();
    for line in shown.lines() {
        assert!(header.contains(line), "the header lacks the README's line `{line}`");
    }
    // The C program, built by the README's cc line: its comment gives the output.
    let cc = shell_commands(&text).into_iter().find(|c| c.starts_with("cc -std=c99")).unwrap();
    let have_cc = Command::new("cc").arg("--version").output().is_ok_and(|o| o.status.success());
    if !have_cc {
        eprintln!("no cc: the README's C program is not built");
        return;
    }
    // The object (the staticlib run replaced only the library, so write the .o again).
    let aot = Command::new(env!("CARGO_BIN_EXE_kerf"))
        .current_dir(dir.path())
        .args(["aot", "mykernels.toml", "-o", "build"])
        .output()
        .unwrap();
    assert!(aot.status.success(), "{}", String::from_utf8_lossy(&aot.stderr));
    let built = Command::new("sh").arg("-c").arg(&cc).current_dir(dir.path()).output().unwrap();
    assert!(built.status.success(), "`{cc}`: {}", String::from_utf8_lossy(&built.stderr));
    let ran = Command::new(dir.path().join("prog")).output().unwrap();
    assert!(ran.status.success());
    let program = block_starting(&text, "c", "#include <stdio.h>");
    let want = program.split("/* ").filter_map(|c| c.split(" */").next()).find(|c| c.starts_with(char::is_numeric));
    assert_eq!(String::from_utf8_lossy(&ran.stdout).trim(), want.unwrap(), "prog's output");
    // The dynamic kernel's program, by its cc line with the runtime library cargo built
    // for this test's profile in place of target/release's.
    let cc = shell_commands(&text).into_iter().find(|c| c.starts_with("cc -std=c99 -Ibuild dynamic.c")).unwrap();
    let cc = cc.replace("target/release/libkerfx_rt.a", &runtime_library().display().to_string());
    let built = Command::new("sh").arg("-c").arg(&cc).current_dir(dir.path()).output().unwrap();
    assert!(built.status.success(), "`{cc}`: {}", String::from_utf8_lossy(&built.stderr));
    let ran = Command::new(dir.path().join("dynamic")).output().unwrap();
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    let program = block_starting(&text, "c", "/* dynamic.c */");
    let want = program.split("/* ").filter_map(|c| c.split(" */").next()).find(|c| c.starts_with(char::is_numeric));
    assert_eq!(String::from_utf8_lossy(&ran.stdout).trim(), want.unwrap(), "dynamic's output");
}

/// A TOML block that names a file of the repository in its first line is that file; the
/// chain block runs, fused and step by step, to the same output.
#[test]
fn the_readme_toml_blocks_are_true() {
    let text = readme();
    let mut named = 0;
    for block in blocks(&text, "toml") {
        let first = block.lines().next().unwrap_or("");
        let Some(path) = first.strip_prefix("# tests/") else { continue };
        let file = std::fs::read_to_string(repo().join("tests").join(path)).unwrap();
        let body = &block[first.len() + 1..];
        assert_eq!(body.trim(), file.trim(), "README.md's copy of tests/{path}");
        named += 1;
    }
    assert!(named >= 1, "the README shows a request file of tests/");
    let dir = tempfile::tempdir().unwrap();
    let chain = block_starting(&text, "toml", "# Every step after the first");
    std::fs::write(dir.path().join("chain.toml"), chain).unwrap();
    // The chain's x.npy: a 4x4 f32 array (its pads and slices fit that shape).
    let x = kerfx::Tensor::from_bytes(
        kerfx::DType::F32,
        &[4, 4],
        &(0..16).flat_map(|v| (v as f32).to_le_bytes()).collect::<Vec<_>>(),
    )
    .unwrap();
    kerfx::npy::write(&dir.path().join("x.npy"), &x).unwrap();
    let mut outputs = Vec::new();
    for extra in [&[][..], &["--unfused"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_kerf"))
            .current_dir(dir.path())
            .args(["run", "chain.toml"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
        outputs.push(out.stdout);
    }
    assert_eq!(outputs[0], outputs[1], "fused and step by step differ");
    assert!(String::from_utf8_lossy(&outputs[0]).starts_with("f32[6, 6]\n[[5.0, 4.0, 5.0, 6.0, 7.0, 6.0],"));
}
