//! kerf's compile-time backend: a scheduled map or fill ([`kerfx_ir::schedule`]) → Rust tokens.
//!
//! The derive macro (`kerfx-derive`) and `kerf expand` both call this crate; it is a plain
//! library so that tests can snapshot its output directly. It consumes the same
//! [`LoopNest`](kerfx_ir::schedule::LoopNest) / [`FillNest`](kerfx_ir::schedule::FillNest)
//! as the JIT, so both backends emit the same loop structure: one loop per dim, one
//! block per segment, contiguous runs as `copy_from_slice`, fill segments as `fill`.
//!
//! The generated code is safe Rust except for index-table gathers and nibble accesses,
//! whose `unsafe` blocks state the invariant they rely on (every offset of a verified
//! nest lies in the input, whose length the entry point has checked).

#![warn(missing_docs)]

mod elem;
mod fill;
mod program;
mod slice;

use kerfx_ir::schedule::{self, Schedule};
use kerfx_ir::{Error, Plan, Request};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

pub use elem::Elem;

/// The items a derive emits for `name`: an inherent impl (consts, `run`, the loops) and
/// an impl of `kerfx::Kernel`. Generated paths start with `::kerf`.
pub fn kernel_impl(plan: &Plan, name: &Ident) -> Result<TokenStream, Error> {
    let sched = schedule::schedule(plan)?;
    let doc = doc_lines(plan, &sched);
    Ok(match (&sched, plan) {
        (Schedule::Slice(nest), Plan::Step(p)) => {
            let buffers = slice::Buffers { dtype: p.dtype, input_shape: &p.input_shape, output_shape: &p.output_shape };
            slice::kernel(&buffers, nest, name, &doc)?
        }
        (Schedule::Fill(nest), Plan::Fill(p)) => fill::kernel(p, nest, name, &doc)?,
        _ => return Err(Error::Invalid { what: "schedule does not match its plan".into() }),
    })
}

/// A whole file: `pub struct NAME;` and the items of [`kernel_impl`], formatted with
/// prettyplease. What `kerf expand` prints and the snapshots pin.
pub fn expand_plan(plan: &Plan, struct_name: &str) -> Result<String, Error> {
    let name = struct_ident(struct_name)?;
    let items = kernel_impl(plan, &name)?;
    let tokens = quote! {
        /// A kernel derived with `#[derive(kerfx::Kernel)]`.
        pub struct #name;
        #items
    };
    unparse(tokens)
}

/// The items a derive emits for a program (several inputs and outputs, e.g. Concat or
/// Split): consts, `run(inputs, outputs)` over arrays of slices, one loops function per
/// move writing its box, and an impl of `kerfx::Kernel` with `run_buffers`.
pub fn program_impl(program: &kerfx_ir::Program, name: &Ident) -> Result<TokenStream, Error> {
    program::program_impl(program, name, &program::doc_lines(program))
}

/// A program as a whole file: `pub struct NAME;` and the items of [`program_impl`],
/// formatted. What `kerf expand` prints for a program request or a graph that cuts into
/// one program.
pub fn expand_program(program: &kerfx_ir::Program, struct_name: &str) -> Result<String, Error> {
    let name = struct_ident(struct_name)?;
    let items = program_impl(program, &name)?;
    let tokens = quote! {
        /// A kernel over several inputs and outputs, derived with `#[derive(kerfx::Kernel)]`.
        pub struct #name;
        #items
    };
    unparse(tokens)
}

/// Lower a request and expand it: what the derive would generate for it, as a file (a
/// program's items for an op over several inputs or outputs, see [`is_program_op`]).
pub fn expand_request(request: &Request, struct_name: &str) -> Result<String, Error> {
    if is_program_op(&request.op) {
        return expand_program(&kerfx_ir::lower_program(request)?, struct_name);
    }
    let plan = kerfx_ir::lower(request)?;
    expand_plan(&plan, struct_name)
}

/// Whether `op` reads a variadic input or writes a variadic output (Concat, Split): its
/// requests lower to a [`kerfx_ir::Program`], and the derive emits a program's items.
/// An unknown op is not one (lowering names it).
pub fn is_program_op(op: &str) -> bool {
    kerfx_spec::registry().ok().and_then(|r| r.get(op)).is_some_and(kerfx_spec::OpSpec::is_program)
}

/// A map expanded as one kernel (the derive's code for its loop nest,
/// [`kerfx_ir::schedule::map_nest`]) — a chain's, composed: its `run` takes the map's input
/// and writes its output. An error for a map no derived kernel says (one that starts with
/// a fill, or fills with two values).
pub fn expand_map(map: &kerfx_ir::Map, struct_name: &str) -> Result<String, Error> {
    let name = struct_ident(struct_name)?;
    let nest = schedule::map_nest(map)?;
    let mut doc: Vec<String> = map.to_string().lines().map(|l| format!(" {l}")).collect();
    doc.extend([String::new(), " Schedule:".into(), " ```text".into()]);
    doc.extend(nest.to_string().lines().map(|l| format!(" {l}")));
    doc.push(" ```".into());
    let buffers = slice::Buffers { dtype: map.dtype, input_shape: map.head_shape(), output_shape: &map.output_shape };
    let items = slice::kernel(&buffers, &nest, &name, &doc)?;
    let tokens = quote! {
        /// A chain fused into one kernel.
        pub struct #name;
        #items
    };
    unparse(tokens)
}

/// `struct_name` as the identifier of the generated struct.
fn struct_ident(struct_name: &str) -> Result<Ident, Error> {
    syn::parse_str::<Ident>(struct_name)
        .map_err(|_| Error::Invalid { what: format!("`{struct_name}` is not a Rust identifier") })
}

/// Generated items as a formatted Rust file.
fn unparse(tokens: TokenStream) -> Result<String, Error> {
    let file: syn::File = syn::parse2(tokens)
        .map_err(|e| Error::Invalid { what: format!("kerfx-codegen produced tokens that do not parse: {e}") })?;
    Ok(prettyplease::unparse(&file))
}

/// The plan and its schedule, as doc lines on the generated impl.
fn doc_lines(plan: &Plan, sched: &Schedule) -> Vec<String> {
    let mut lines: Vec<String> = plan.to_string().lines().map(str::to_string).collect();
    lines.push(String::new());
    lines.push("Schedule:".into());
    let listing = sched.to_string();
    lines.push("```text".into());
    lines.extend(listing.lines().map(str::to_string));
    lines.push("```".into());
    lines.into_iter().map(|l| if l.is_empty() { l } else { format!(" {l}") }).collect()
}

/// An unsuffixed integer literal (where the type is inferred).
pub(crate) fn lit(n: u64) -> proc_macro2::Literal {
    proc_macro2::Literal::u64_unsuffixed(n)
}

/// A `usize` literal (loop bounds and constant offsets, which fix the index type).
pub(crate) fn ulit(n: u64) -> proc_macro2::Literal {
    proc_macro2::Literal::usize_suffixed(n as usize)
}

pub(crate) fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// The `Err(BufferLength)` check of one buffer's length.
pub(crate) fn length_check(buf: &Ident, what: &str, expected: &TokenStream) -> TokenStream {
    quote! {
        if #buf.len() != #expected {
            return ::core::result::Result::Err(::kerfx::Error::BufferLength {
                what: ::std::string::String::from(#what),
                expected: #expected,
                found: #buf.len(),
            });
        }
    }
}
