//! The host functions kernels call, declared once: [`Helper`] names each, and the one
//! table below gives its symbol, address and argument count (every argument an i64:
//! pointers and sizes). Everything else derives from it: a kernel module declares the
//! helpers first, in this order, so that a helper's function index is its discriminant
//! (`Helper::index`); the JIT registers every symbol (`compile.rs`), the builder keeps one
//! `FuncRef` slot per helper (`Gen::helpers`) and imports a helper on its first call
//! (`Gen::call_helper`). A new helper is one line of the table (appended last, so that
//! existing kernels keep their function indices and their CLIF). The runtime library's
//! functions (`kerfx_rt`: every one) go by their C symbols (`kerf_rt1_*`), which objects
//! written ahead of time link.

use kerfx_rt::{head, random, repeat, stream, tile};

macro_rules! helpers {
    ($($(#[doc = $doc:literal])* $name:ident => $symbol:literal, $f:path, $args:literal;)*) => {
        /// A host function kernels call (see the module docs); its discriminant is the
        /// function index kernels import it by.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u32)]
        pub(crate) enum Helper {
            $($(#[doc = $doc])* $name,)*
        }

        impl Helper {
            /// Every helper, in declaration order.
            pub(crate) const ALL: &[Helper] = &[$(Helper::$name),*];
            /// The symbol kernels import it by.
            pub(crate) fn symbol(self) -> &'static str {
                match self {
                    $(Helper::$name => $symbol,)*
                }
            }
            /// The function's address (registered with the JIT under [`Helper::symbol`]).
            pub(crate) fn address(self) -> *const u8 {
                match self {
                    $(Helper::$name => $f as *const u8,)*
                }
            }
            /// How many i64 arguments it takes.
            pub(crate) fn args(self) -> usize {
                match self {
                    $(Helper::$name => $args,)*
                }
            }
        }
    };
}

helpers! {
    /// [`stream::stream_copy`]: `(dst, src, n)`.
    StreamCopy => "kerf_rt1_stream_copy", stream::stream_copy, 3;
    /// [`repeat::repeat`]: `(dst, filled, total)`.
    Repeat => "kerf_rt1_repeat", repeat::repeat, 3;
    /// [`repeat::repeat_nibbles`]: `(out, start, filled, total)`.
    RepeatNibbles => "kerf_rt1_repeat_nibbles", repeat::repeat_nibbles, 4;
    /// [`stream::stream_fill`]: `(dst, n, lo, hi)`.
    StreamFill => "kerf_rt1_stream_fill", stream::stream_fill, 4;
    /// [`stream::stream_linspace`]: `(dst, n, start, coef)`.
    StreamLinspace => "kerf_rt1_stream_linspace", stream::stream_linspace, 4;
    /// [`random::random_fill`]: `(out, args, lo, hi, kind)`.
    RandomFill => "kerf_rt1_random_fill", random::random_fill, 5;
    /// [`head::head_run`]: `(out, head, start, stride, count)`.
    HeadRun => "kerf_rt1_head_run", head::head_run, 5;
    /// [`tile::tile_copy`]: `(dst, src, rows, cols, rs, cs, ds, w, stream)`.
    TileCopy => "kerf_rt1_tile_copy", tile::tile_copy, 9;
    /// [`stream::stream_stride2`]: `(dst, src, n, w)`.
    StreamStride2 => "kerf_rt1_stream_stride2", stream::stream_stride2, 4;
    /// [`stream::stream_rows`]: `(dst, src, rows, row, stride)`.
    StreamRows => "kerf_rt1_stream_rows", stream::stream_rows, 5;
    /// [`stream::stream_table_rows`]: `(dst, src, rows, row, table, scale)`.
    StreamTableRows => "kerf_rt1_stream_table_rows", stream::stream_table_rows, 6;
    /// [`stream::stream_row_blocks`]: `(dst, src, outer, outer_stride, rows, row, stride)`.
    StreamRowBlocks => "kerf_rt1_stream_row_blocks", stream::stream_row_blocks, 7;
}

/// How many host functions kernels may call.
pub(crate) const HELPERS: usize = Helper::ALL.len();

impl Helper {
    /// The function index kernels import it by: its declaration order.
    pub(crate) fn index(self) -> u32 {
        self as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every helper is declared in the runtime's `kerf_rt.h` under its symbol, with as
    /// many parameters as kernels pass it.
    #[test]
    fn the_runtime_header_declares_every_helper() {
        let header = kerfx_rt::HEADER.split_whitespace().collect::<Vec<_>>().join(" ");
        for h in Helper::ALL {
            assert!(h.symbol().starts_with("kerf_rt1_"), "{h:?}");
            let decl = header.split(&format!("void {}(", h.symbol())).nth(1).unwrap_or_else(|| panic!("{h:?}"));
            let params = decl.split(')').next().unwrap();
            assert_eq!(params.split(',').count(), h.args(), "{h:?}: {params}");
        }
    }

    #[test]
    fn indices_are_the_declaration_order() {
        for (k, h) in Helper::ALL.iter().enumerate() {
            assert_eq!(h.index() as usize, k, "{h:?}");
        }
    }
}
