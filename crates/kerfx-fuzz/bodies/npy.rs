//! Any bytes as a `.npy` file: read as its own dtype and as each dtype numpy lacks
//! (kerf's storage convention). Nothing may panic, nothing may allocate more than the file
//! can fill, and whatever reads must write back and read again to the same tensor.

use kerfx_ir::DType;
use std::path::Path;

/// The target on one input: returns quietly, or panics with what went wrong.
pub fn run(data: &[u8]) {
    let name = Path::new("fuzz.npy");
    let natural = match kerfx::npy::from_bytes(data, name, None) {
        Ok(t) => t,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let again = kerfx::npy::from_bytes(&kerfx::npy::to_bytes(&natural), name, None)
        .expect("a tensor kerf read writes back to a file it reads");
    assert_eq!(again.dtype(), natural.dtype());
    assert_eq!(again.shape(), natural.shape());
    if natural.bytes() != again.bytes() || natural.strings() != again.strings() {
        panic!("round trip changed the data of a {} {:?} tensor", natural.dtype(), natural.shape());
    }
    for d in [DType::BF16, DType::F8E4M3FN, DType::F8E5M2, DType::I4, DType::U4] {
        if let Ok(t) = kerfx::npy::from_bytes(data, name, Some(d)) {
            let back = kerfx::npy::from_bytes(&kerfx::npy::to_bytes(&t), name, Some(d))
                .expect("a converted tensor writes back");
            assert_eq!(back, t, "{d} round trip");
        }
    }
}
