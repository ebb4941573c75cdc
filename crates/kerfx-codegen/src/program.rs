//! Programs (kernels over several inputs and outputs, [`kerfx_ir::Program`]) → an inherent
//! impl with `run(inputs, outputs)`, one loops function per move, and a `kerfx::Kernel`
//! impl whose `run_buffers` takes every buffer.
//!
//! Each move is its chain composed into one map, scheduled as the JIT schedules it: a
//! move writing a whole output as a dense nest, any other through an output view of its
//! box (the box's offset, the output's row-major strides). Concat is then one
//! branch-free nest per input, each output element written once; Split one nest per
//! output. A move no single nest writes (a chain that does not fuse whole, one that
//! starts with a fill, or fills with several values) is an error naming the move: the
//! JIT runs those through scratch buffers, which generated code does not allocate.

use crate::elem::Elem;
use crate::slice::{Loops, helpers, loops};
use crate::{length_check, lit};
use kerfx_ir::Error;
use kerfx_ir::program::Program;
use kerfx_ir::schedule::{self, Strided};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The loop nest of move `m`: dense when it writes its whole output, else through the
/// view of its box.
fn move_nest(program: &Program, m: usize) -> Result<kerfx_ir::schedule::LoopNest, Error> {
    let mv = &program.moves[m];
    let in_move = |e: Error| Error::Invalid { what: format!("program: move {m}: {e}") };
    let mut segments = kerfx_ir::map::compose_segments(&mv.steps).map_err(in_move)?;
    if segments.len() != 1 {
        return Err(in_move(Error::Invalid {
            what: format!(
                "its chain fuses into {} maps, not one: the derive writes each move as one nest; `kerf run` runs it \
                 on the JIT",
                segments.len()
            ),
        }));
    }
    let map = segments.pop().map(|s| s.fused).ok_or_else(|| in_move(Error::Invalid { what: "no plan".into() }))?;
    let output = &program.outputs[mv.output];
    let whole = mv.at.iter().all(|&a| a == 0) && mv.shape() == output.as_slice();
    if whole {
        return schedule::map_nest(&map).map_err(in_move);
    }
    let too_large = || Error::TooLarge { what: format!("output {} of shape {output:?}", mv.output) };
    let (offset, strides) = program.box_view(mv);
    let view = Strided {
        offset: i64::try_from(offset).map_err(|_| too_large())?,
        strides: strides.iter().map(|&s| i64::try_from(s)).collect::<Result<_, _>>().map_err(|_| too_large())?,
        buffer_len: kerfx_ir::tensor::volume(output).ok_or_else(too_large)?,
    };
    schedule::map_views(&map, None, Some(&view)).map_err(in_move)
}

/// The items a derive emits for a program: consts, `run`, one loops function per move,
/// and an impl of `kerfx::Kernel`. Validates the program first.
pub fn program_impl(program: &Program, name: &Ident, doc: &[String]) -> Result<TokenStream, Error> {
    program.validate()?;
    if program.moves.iter().any(|mv| mv.input.is_none()) {
        return Err(Error::Invalid {
            what: "program: a move that starts with a fill: the derive writes moves that read an input".into(),
        });
    }
    let elem = Elem::new(program.dtype);
    let mut moves: Vec<(usize, usize, Loops, u128)> = Vec::with_capacity(program.moves.len());
    for (m, mv) in program.moves.iter().enumerate() {
        let nest = move_nest(program, m)?;
        let l = loops(&nest, &format_ident!("__kerf_move{}", m))
            .map_err(|e| Error::Invalid { what: format!("program: move {m}: {e}") })?;
        let input = mv.input.unwrap_or(0);
        moves.push((input, mv.output, l, nest.fill_bits));
    }
    let t = elem.rust_type();
    let dtype = elem.dtype_path();
    let lens = |shapes: &[Vec<u64>]| -> Result<Vec<u64>, Error> {
        shapes
            .iter()
            .map(|s| {
                kerfx_ir::tensor::volume(s)
                    .filter(|&n| n <= i64::MAX as u64)
                    .map(|n| elem.slice_len(n))
                    .ok_or_else(|| Error::TooLarge { what: format!("a tensor of shape {s:?}") })
            })
            .collect()
    };
    let (in_lens, out_lens) = (lens(&program.inputs)?, lens(&program.outputs)?);
    let (n_in, n_out) = (lit(program.inputs.len() as u64), lit(program.outputs.len() as u64));
    let shape_lits = |shapes: &[Vec<u64>]| -> Vec<TokenStream> {
        shapes
            .iter()
            .map(|s| {
                let d = s.iter().map(|&d| lit(d));
                quote!(&[#(#d),*])
            })
            .collect()
    };
    let (in_shapes, out_shapes) = (shape_lits(&program.inputs), shape_lits(&program.outputs));
    let in_len_lits: Vec<_> = in_lens.iter().map(|&n| lit(n)).collect();
    let out_len_lits: Vec<_> = out_lens.iter().map(|&n| lit(n)).collect();
    let in_ids: Vec<Ident> = (0..program.inputs.len()).map(|i| format_ident!("input{}", i)).collect();
    let out_ids: Vec<Ident> = (0..program.outputs.len()).map(|o| format_ident!("output{}", o)).collect();
    let name_s = name.to_string();
    let what_in = |i: usize| format!("{name_s} input {i} ({} {:?})", program.dtype, program.inputs[i]);
    let what_out = |o: usize| format!("{name_s} output {o} ({} {:?})", program.dtype, program.outputs[o]);

    // The calls of the moves, on typed arrays (`run`) or byte arrays (`run_buffers`).
    let calls = |bytes: bool| -> Vec<TokenStream> {
        moves
            .iter()
            .map(|(i, o, l, fill_bits)| {
                let (f, a, b) = (&l.name, &in_ids[*i], &out_ids[*o]);
                let fill = match (l.fill, bytes) {
                    (false, _) => quote!(),
                    (true, false) => {
                        let v = elem.constant(*fill_bits);
                        quote!(, #v)
                    }
                    (true, true) if elem.is_nibbles() => {
                        let v = elem.constant(*fill_bits);
                        quote!(, #v)
                    }
                    (true, true) => {
                        let v = elem.constant_bytes(*fill_bits);
                        quote!(, #v)
                    }
                };
                quote!(Self::#f(#a, #b #fill);)
            })
            .collect()
    };
    // An odd count of nibbles leaves each output's last high nibble zero.
    let pads: Vec<TokenStream> = if elem.is_nibbles() {
        program
            .outputs
            .iter()
            .zip(&out_ids)
            .filter(|(s, _)| kerfx_ir::tensor::volume(s).is_some_and(|n| n % 2 == 1))
            .map(|(s, id)| {
                let last = lit(kerfx_ir::tensor::volume(s).unwrap_or(1) / 2);
                quote!(#id[#last] &= 0x0f;)
            })
            .collect()
    } else {
        Vec::new()
    };

    // `run`: typed slices, every length checked before any move writes.
    let checks_in: Vec<_> = (0..in_ids.len())
        .map(|i| {
            length_check(&in_ids[i], &what_in(i), &{
                let n = &in_len_lits[i];
                quote!(#n)
            })
        })
        .collect();
    let checks_out: Vec<_> = (0..out_ids.len())
        .map(|o| {
            length_check(&out_ids[o], &what_out(o), &{
                let n = &out_len_lits[o];
                quote!(#n)
            })
        })
        .collect();
    let typed_calls = calls(false);
    let run_doc = " Run on caller-owned slices, one per input and one per output in order (the \
                   lengths `INPUT_LENS` and `OUTPUT_LENS`): checks every length before writing \
                   anything, then runs each move's loops into its box; allocates nothing.";
    let run = quote! {
        #[doc = #run_doc]
        #[inline]
        pub fn run(&self, inputs: [&[#t]; #n_in], outputs: [&mut [#t]; #n_out]) -> ::core::result::Result<(), ::kerfx::Error> {
            let [#(#in_ids),*] = inputs;
            let [#(#out_ids),*] = outputs;
            #(#checks_in)*
            #(#checks_out)*
            #(
                let ::core::result::Result::Ok(#in_ids) = <&[#t; #in_len_lits]>::try_from(#in_ids) else {
                    ::core::unreachable!("lengths checked above")
                };
            )*
            #(
                let ::core::result::Result::Ok(#out_ids) = <&mut [#t; #out_len_lits]>::try_from(#out_ids) else {
                    ::core::unreachable!("lengths checked above")
                };
            )*
            #(#typed_calls)*
            #(#pads)*
            ::core::result::Result::Ok(())
        }
    };

    // `run_buffers`: the same loops on byte arrays.
    let run_buffers_body = if elem.is_string() {
        quote! {
            let _ = (inputs, outputs);
            ::core::result::Result::Err(::kerfx::Error::Invalid {
                what: ::std::string::String::from("a string kernel moves `String`s: call `run`, not `run_buffers`"),
            })
        }
    } else {
        let w = if elem.is_nibbles() { 1 } else { elem.width().unwrap_or(1) as u64 };
        let wl = lit(w);
        let bytes_ty =
            if elem.is_nibbles() { quote!(::core::primitive::u8) } else { quote!([::core::primitive::u8; #wl]) };
        let in_bytes: Vec<_> = in_lens.iter().map(|&n| lit(n * w)).collect();
        let out_bytes: Vec<_> = out_lens.iter().map(|&n| lit(n * w)).collect();
        let checks_in: Vec<_> = (0..in_ids.len())
            .map(|i| {
                let n = &in_bytes[i];
                length_check(&in_ids[i], &what_in(i), &quote!(#n))
            })
            .collect();
        let checks_out: Vec<_> = (0..out_ids.len())
            .map(|o| {
                let n = &out_bytes[o];
                length_check(&out_ids[o], &what_out(o), &quote!(#n))
            })
            .collect();
        let chunk = |id: &Ident, m: bool| {
            if elem.is_nibbles() {
                if m { quote!(&mut **#id) } else { quote!(#id) }
            } else if m {
                quote!(#id.as_chunks_mut::<#wl>().0)
            } else {
                quote!(#id.as_chunks::<#wl>().0)
            }
        };
        let cin: Vec<_> = in_ids.iter().map(|id| chunk(id, false)).collect();
        let cout: Vec<_> = out_ids.iter().map(|id| chunk(id, true)).collect();
        let byte_calls = calls(true);
        let counts = format!("{} inputs and {} outputs", program.inputs.len(), program.outputs.len());
        quote! {
            let found = ::std::format!("{} inputs and {} outputs", inputs.len(), outputs.len());
            let (&[#(#in_ids),*], [#(#out_ids),*]) = (inputs, outputs) else {
                return ::core::result::Result::Err(::kerfx::Error::Mismatch {
                    what: ::std::string::String::from("kernel buffers"),
                    expected: ::std::string::String::from(#counts),
                    found,
                });
            };
            #(#checks_in)*
            #(#checks_out)*
            #(
                let ::core::result::Result::Ok(#in_ids) = <&[#bytes_ty; #in_len_lits]>::try_from(#cin) else {
                    ::core::unreachable!("lengths checked above")
                };
            )*
            #(
                let ::core::result::Result::Ok(#out_ids) = <&mut [#bytes_ty; #out_len_lits]>::try_from(#cout) else {
                    ::core::unreachable!("lengths checked above")
                };
            )*
            #(#byte_calls)*
            #(#pads)*
            ::core::result::Result::Ok(())
        }
    };
    let one_to_one = program.inputs.len() == 1 && program.outputs.len() == 1;
    let run_bytes_body = if one_to_one {
        quote! {
            let ::core::option::Option::Some(input) = input else {
                return ::core::result::Result::Err(::kerfx::Error::Invalid {
                    what: ::std::string::String::from("this kernel reads one input: pass it"),
                });
            };
            <Self as ::kerfx::Kernel>::run_buffers(self, &[input], &mut [output])
        }
    } else {
        let why = format!(
            "{name_s} reads {} inputs and writes {} outputs: run it with run_buffers",
            program.inputs.len(),
            program.outputs.len()
        );
        quote! {
            let _ = (input, output);
            ::core::result::Result::Err(::kerfx::Error::Invalid { what: ::std::string::String::from(#why) })
        }
    };
    let input_shape = if one_to_one {
        quote!(::core::option::Option::Some(Self::INPUT_SHAPES[0]))
    } else {
        quote!(::core::option::Option::None)
    };
    let funcs = moves.iter().map(|(_, _, l, _)| &l.func);
    let helpers =
        helpers(elem, moves.iter().any(|(_, _, l, _)| l.repeats), moves.iter().any(|(_, _, l, _)| l.computed_tables));
    let doc_attrs = doc.iter().map(|l| quote!(#[doc = #l]));
    let len_doc = if elem.is_nibbles() {
        "(bytes: two 4-bit elements a byte, the first in the low nibble)"
    } else {
        "(elements)"
    };
    let in_lens_doc = format!(" Length of each input slice `run` takes {len_doc}.");
    let out_lens_doc = format!(" Length of each output slice `run` writes {len_doc}.");
    Ok(quote! {
        #(#doc_attrs)*
        impl #name {
            /// Shape of each input, in order.
            pub const INPUT_SHAPES: [&'static [::core::primitive::u64]; #n_in] = [#(#in_shapes),*];
            /// Shape of each output, in order.
            pub const OUTPUT_SHAPES: [&'static [::core::primitive::u64]; #n_out] = [#(#out_shapes),*];
            #[doc = #in_lens_doc]
            pub const INPUT_LENS: [::core::primitive::usize; #n_in] = [#(#in_len_lits),*];
            #[doc = #out_lens_doc]
            pub const OUTPUT_LENS: [::core::primitive::usize; #n_out] = [#(#out_len_lits),*];
            /// Element type of every input and output.
            pub const DTYPE: ::kerfx::DType = #dtype;
            #run
            #(#funcs)*
            #helpers
        }

        impl ::kerfx::Kernel for #name {
            fn dtype(&self) -> ::kerfx::DType {
                Self::DTYPE
            }
            fn input_shape(&self) -> ::core::option::Option<&[::core::primitive::u64]> {
                #input_shape
            }
            fn output_shape(&self) -> &[::core::primitive::u64] {
                Self::OUTPUT_SHAPES[0]
            }
            fn input_shapes(&self) -> ::std::vec::Vec<&[::core::primitive::u64]> {
                Self::INPUT_SHAPES.to_vec()
            }
            fn output_shapes(&self) -> ::std::vec::Vec<&[::core::primitive::u64]> {
                Self::OUTPUT_SHAPES.to_vec()
            }
            fn run_bytes(&self, input: ::core::option::Option<&[::core::primitive::u8]>, output: &mut [::core::primitive::u8]) -> ::core::result::Result<(), ::kerfx::Error> {
                #run_bytes_body
            }
            fn run_buffers(&self, inputs: &[&[::core::primitive::u8]], outputs: &mut [&mut [::core::primitive::u8]]) -> ::core::result::Result<(), ::kerfx::Error> {
                #run_buffers_body
            }
        }
    })
}

/// The program's moves and their nests, as doc lines on the generated impl.
pub(crate) fn doc_lines(program: &Program) -> Vec<String> {
    let mut lines =
        vec![format!("A {} program: inputs {:?}, outputs {:?}.", program.dtype, program.inputs, program.outputs)];
    for (m, mv) in program.moves.iter().enumerate() {
        lines.push(String::new());
        lines.push(format!(
            "Move {m}: input {} into output {} at {:?} (box {:?}):",
            mv.input.map_or("none".to_string(), |i| i.to_string()),
            mv.output,
            mv.at,
            mv.shape()
        ));
        lines.push("```text".into());
        match move_nest(program, m) {
            Ok(nest) => lines.extend(nest.to_string().lines().map(str::to_string)),
            Err(e) => lines.push(e.to_string()),
        }
        lines.push("```".into());
    }
    lines.into_iter().map(|l| if l.is_empty() { l } else { format!(" {l}") }).collect()
}
