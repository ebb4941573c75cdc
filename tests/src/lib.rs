//! kerf cross-crate tests live in tests/.
