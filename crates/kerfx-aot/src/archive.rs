//! `lib<lib>.a`: a System V (GNU) archive of the library's one object, with the symbol
//! index linkers need (written by `kerf aot --emit staticlib` and by `kerfx-build`).

use crate::Output;

/// The static library holding `output`'s object as `<lib>.o`, indexed by its exported
/// symbols. Deterministic: zero time, uid and gid; mode 644.
pub fn static_library(output: &Output) -> Vec<u8> {
    let member = format!("{}.o", output.name);
    let (object, symbols) = (&output.object, &output.exported);
    let header = |name: &str, size: usize| format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n", 0, 0, 0, 644);
    let names: Vec<u8> = symbols.iter().flat_map(|s| s.bytes().chain([0])).collect();
    let index_len = 4 + 4 * symbols.len() + names.len();
    let index_padded = index_len + index_len % 2;
    let member_at = (8 + 60 + index_padded) as u32;
    let mut a = b"!<arch>\n".to_vec();
    a.extend(header("/", index_len).into_bytes());
    a.extend((symbols.len() as u32).to_be_bytes());
    for _ in symbols {
        a.extend(member_at.to_be_bytes());
    }
    a.extend(&names);
    if index_len % 2 == 1 {
        a.push(b'\n');
    }
    a.extend(header(&format!("{member}/"), object.len()).into_bytes());
    a.extend(object);
    if object.len() % 2 == 1 {
        a.push(b'\n');
    }
    a
}
