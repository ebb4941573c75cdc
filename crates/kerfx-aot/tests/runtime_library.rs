//! The runtime library objects link: every function `kerf_rt.h` declares (which declares
//! every host function kernels call, a test of the JIT's helper table checks) is defined
//! and global in `libkerfx_rt.a` as cargo builds it, so that an object written ahead of
//! time finds each symbol it imports.

use kerfx_testkit::native::runtime_library;
use object::read::archive::ArchiveFile;
use object::{Object, ObjectSymbol};
use std::collections::BTreeSet;

/// The functions the header declares: every `kerf_rt1_NAME(`.
fn declared() -> BTreeSet<String> {
    let h = kerfx_rt::HEADER;
    let mut names = BTreeSet::new();
    for (at, _) in h.match_indices("kerf_rt1_") {
        let name: String = h[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if h[at + name.len()..].starts_with('(') {
            names.insert(name);
        }
    }
    names
}

#[test]
fn every_function_the_header_declares_is_defined_in_the_static_library() {
    let declared = declared();
    assert!(declared.contains("kerf_rt1_stream_row_blocks") && declared.contains("kerf_rt1_plan_run"), "{declared:?}");
    let bytes = std::fs::read(runtime_library()).unwrap();
    let archive = ArchiveFile::parse(&*bytes).unwrap();
    let mut defined = BTreeSet::new();
    for member in archive.members() {
        let member = member.unwrap();
        let data = member.data(&*bytes).unwrap();
        // Members that are not objects (the archive's own tables) hold no symbols.
        let Ok(file) = object::File::parse(data) else { continue };
        for sym in file.symbols() {
            if let Ok(name) = sym.name()
                && sym.is_definition()
                && sym.is_global()
                && name.starts_with("kerf_rt1_")
            {
                defined.insert(name.to_string());
            }
        }
    }
    let missing: Vec<_> = declared.difference(&defined).collect();
    assert!(missing.is_empty(), "declared in kerf_rt.h, not defined in libkerfx_rt.a: {missing:?}");
}
