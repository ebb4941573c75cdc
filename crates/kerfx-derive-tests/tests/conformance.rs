//! The shared conformance suite (tests/data/conformance) on the derive backend: every case
//! with an expected output that the derive can express becomes a derived kernel (build.rs,
//! through `kerfx_testkit::derive_suite`) checked by the suite's one `check_case`.

include!(concat!(env!("OUT_DIR"), "/conformance.rs"));
