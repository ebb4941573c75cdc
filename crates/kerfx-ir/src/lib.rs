//! kerf's core: element types, tensors, the canonical [`Plan`], the vendor frontends
//! that lower requests to it, and the reference interpreter that is every backend's oracle.

#![warn(missing_docs)]

pub mod chain;
pub mod error;
pub mod frontend;
pub mod graph;
pub mod kernel;
pub mod map;
pub mod plan;
pub mod program;
pub mod random;
pub mod reference;
mod refine;
pub mod request;
pub mod schedule;
pub mod table;
pub mod tensor;

/// Element types (the `kerfx-dtype` crate, below the spec layer).
pub use kerfx_dtype as dtype;
/// Conversions between numbers and element bits.
pub use kerfx_dtype::scalar;

pub use dtype::DType;
pub use error::{About, Error, Hint};
pub use frontend::{lower, lower_program};
pub use kernel::Kernel;
pub use map::Map;
pub use plan::{AxisRead, BoundaryMode, FillKind, FillPlan, Gathered, Linspace, Plan, Step, Window};
pub use program::{Move, Program};
pub use request::{AttrValue, InputArg, Request};
pub use tensor::{Tensor, TensorView};
