//! Kernels over several inputs and outputs: a [`kerfx_ir::Program`] compiled move by move.
//!
//! Each move is one map (its chain composed) compiled as a kernel writing its box of the
//! output through an output view ([`Options::output`]): the box's offset and the output's
//! row-major strides. A chain that does not fuse whole (a reshape whose axes do not line
//! up, [`kerfx_ir::map::compose_segments`]) runs its leading segments into scratch
//! tensors, the last one into the box. A move writing its whole output runs dense (no
//! view); a box no output view expresses (a map that fills, or whose nest is not the
//! box's shape) is written dense into scratch and moved into the box by a copy kernel. Concat is then one branch-free nest per input, each byte of the
//! output written once; Split one nest per output. A [`ProgramKernel`] checks every
//! buffer once and runs the moves in order; each move's kernel splits its own outer loop
//! over threads when its work is large. Packed 4-bit dtypes, which no kernel writes
//! through a view, run each move into a dense scratch buffer placed into its box on the
//! host.

use crate::{Jit, JitKernel, Options, buffer_bytes, length_error};
use kerfx_ir::dtype::Layout;
use kerfx_ir::program::Program;
use kerfx_ir::schedule::Strided;
use kerfx_ir::{DType, Error, Kernel, Plan, Tensor};
use std::sync::Arc;

/// A compiled [`Program`]: its moves' kernels, and the byte lengths of its buffers.
#[derive(Debug)]
pub struct ProgramKernel {
    dtype: DType,
    inputs: Vec<Vec<u64>>,
    outputs: Vec<Vec<u64>>,
    input_bytes: Vec<usize>,
    output_bytes: Vec<usize>,
    moves: Vec<MoveKernel>,
    /// A concat on an inner axis runs as one interleaving pass over its output instead
    /// of its moves (see [`crate::interleave`]); the moves stay for what they show.
    interleave: Option<crate::interleave::Interleave>,
    /// The JIT's thread setting, for the interleaving pass.
    threads: usize,
}

#[derive(Debug)]
struct MoveKernel {
    input: Option<usize>,
    output: usize,
    /// The box's first coordinate (for the host placement of packed dtypes).
    at: Vec<u64>,
    /// One kernel per segment of the chain (one where it fuses whole). The last writes
    /// the box through an output view of the whole output buffer (for packed 4-bit
    /// dtypes: dense, placed by the host); each before it writes a dense scratch tensor
    /// the next reads.
    kernels: Vec<Arc<JitKernel>>,
}

impl Jit {
    /// Compile a program (see [`kerfx_ir::Program`]): one kernel per move, static or
    /// dynamic as `dynamic` says, over dense input and output buffers. The program is
    /// validated first (every read inside its input, every output element written once).
    /// Compiled programs are cached (by their plans, boxes and shapes) as kernels are.
    pub fn compile_program(&self, program: &Program, dynamic: bool) -> Result<Arc<ProgramKernel>, Error> {
        // A hit compares the program with the cached one in place (no clone).
        if let Some(hit) = self.programs.get(&crate::cache::ProgramRef { program, dynamic }) {
            return hit;
        }
        let key = crate::cache::ProgramKey::of(program, dynamic);
        self.programs.get_or_init(key, || self.build_program(program, dynamic).map(Arc::new))
    }

    fn build_program(&self, program: &Program, dynamic: bool) -> Result<ProgramKernel, Error> {
        program.validate()?;
        crate::check_moves_bytes(program.dtype)?;
        let packed = program.dtype.layout() == Layout::Nibbles;
        // The kernels writing the outputs are parts of one call writing all of them
        // (streaming is decided for it: see `Options`); scratch is read right after.
        let call_bytes = program
            .outputs
            .iter()
            .map(|s| program.dtype.buffer_bytes(kerfx_ir::tensor::volume(s).unwrap_or(0)).unwrap_or(0) as u64)
            .fold(0u64, u64::saturating_add);
        let into_output = Options::dynamic(dynamic).part_of(call_bytes);
        let mut moves = Vec::with_capacity(program.moves.len());
        for (m, mv) in program.moves.iter().enumerate() {
            let in_move = |e: Error| Error::Invalid { what: format!("program: move {m}: {e}") };
            let mut segments = kerfx_ir::map::compose_segments(&mv.steps).map_err(in_move)?;
            let map = segments.pop().ok_or_else(|| in_move(Error::Invalid { what: "no plan".into() }))?.fused;
            let mut kernels = segments
                .into_iter()
                .map(|s| self.compile(s.fused, &Options::dynamic(dynamic)))
                .collect::<Result<Vec<_>, _>>()?;
            let whole = mv.at.iter().all(|&a| a == 0) && mv.shape() == program.outputs[mv.output].as_slice();
            if packed || whole {
                // Dense: the whole output, or (packed 4-bit dtypes) a box placed by the host.
                kernels.push(self.compile(map, &into_output)?);
            } else {
                let (offset, strides) = program.box_view(mv);
                let view = Strided {
                    offset: i64::try_from(offset).map_err(|_| too_large(program, mv.output))?,
                    strides: strides
                        .iter()
                        .map(|&s| i64::try_from(s))
                        .collect::<Result<_, _>>()
                        .map_err(|_| too_large(program, mv.output))?,
                    buffer_len: kerfx_ir::tensor::volume(&program.outputs[mv.output])
                        .ok_or_else(|| too_large(program, mv.output))?,
                };
                let options = Options::dynamic(dynamic);
                match self.compile(map.clone(), &into_output.output(&view)) {
                    Ok(k) => kernels.push(k),
                    // A map no output view expresses (one that fills, or whose nest is
                    // not the box's shape: a reshape last) writes dense scratch, which a
                    // copy moves into the box.
                    Err(first) => {
                        let copy = Plan::copy(program.dtype, mv.shape());
                        let (dense, into_box) =
                            match (self.compile(map, &options), self.compile(&copy, &into_output.output(&view))) {
                                (Ok(d), Ok(c)) => (d, c),
                                _ => return Err(in_move(first)),
                            };
                        kernels.extend([dense, into_box]);
                    }
                }
            }
            moves.push(MoveKernel { input: mv.input, output: mv.output, at: mv.at.clone(), kernels });
        }
        let bytes = |shapes: &[Vec<u64>]| {
            shapes
                .iter()
                .map(|s| buffer_bytes(program.dtype, kerfx_ir::tensor::volume(s).unwrap_or(u64::MAX)))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(ProgramKernel {
            dtype: program.dtype,
            input_bytes: bytes(&program.inputs)?,
            output_bytes: bytes(&program.outputs)?,
            inputs: program.inputs.clone(),
            outputs: program.outputs.clone(),
            moves,
            interleave: crate::interleave::Interleave::plan(program),
            threads: self.settings.threads,
        })
    }
}

fn too_large(program: &Program, output: usize) -> Error {
    Error::TooLarge { what: format!("output {output} of shape {:?}", program.outputs[output]) }
}

impl ProgramKernel {
    /// The element type of every buffer.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// The shapes of the inputs, in order.
    pub fn input_shapes(&self) -> &[Vec<u64>] {
        &self.inputs
    }
    /// The shapes of the outputs, in order.
    pub fn output_shapes(&self) -> &[Vec<u64>] {
        &self.outputs
    }
    /// The kernels of each move, in order (their CLIF, their tiling): one per segment of
    /// its chain, the last writing its box.
    pub fn move_kernels(&self) -> impl Iterator<Item = &[Arc<JitKernel>]> {
        self.moves.iter().map(|m| m.kernels.as_slice())
    }

    /// Run on caller-owned dense buffers: `inputs[i]` holds input i, `outputs[o]` output
    /// o, each exactly its bytes (checked, all of them, before any move runs). Allocates
    /// nothing, except the scratch of packed 4-bit dtypes. ([`Kernel::run_buffers`].)
    pub fn run_buffers(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
        if inputs.len() != self.inputs.len() {
            return Err(Error::Mismatch {
                what: "program inputs".into(),
                expected: format!("{} buffers", self.inputs.len()),
                found: inputs.len().to_string(),
            });
        }
        if outputs.len() != self.outputs.len() {
            return Err(Error::Mismatch {
                what: "program outputs".into(),
                expected: format!("{} buffers", self.outputs.len()),
                found: outputs.len().to_string(),
            });
        }
        for (i, (b, &n)) in inputs.iter().zip(&self.input_bytes).enumerate() {
            if b.len() != n {
                return Err(length_error(&format!("program input {i}"), n, b.len()));
            }
        }
        for (o, (b, &n)) in outputs.iter().zip(&self.output_bytes).enumerate() {
            if b.len() != n {
                return Err(length_error(&format!("program output {o}"), n, b.len()));
            }
        }
        if let (Some(interleave), [output]) = (&self.interleave, &mut *outputs) {
            return interleave.run(inputs, output, self.threads);
        }
        for mv in &self.moves {
            let mut source = mv.input.map(|i| kerfx_ir::TensorView {
                dtype: self.dtype,
                shape: &self.inputs[i],
                data: kerfx_ir::tensor::ViewData::Bytes(inputs[i]),
            });
            // Where the chain does not fuse whole: its leading segments, each into scratch.
            let Some((last, leading)) = mv.kernels.split_last() else { continue };
            let mut scratch: Option<Tensor>;
            for k in leading {
                let next = k.run_tensor(source)?;
                scratch = Some(next);
                source = scratch.as_ref().map(Tensor::view);
            }
            if self.dtype.layout() == Layout::Nibbles {
                let part = last.run_tensor(source)?;
                let mut out = Tensor::from_bytes(self.dtype, &self.outputs[mv.output], outputs[mv.output])?;
                kerfx_ir::program::place(&part, &mut out, &mv.at)?;
                let placed = out.bytes().ok_or_else(|| Error::Invalid { what: "program: packed output".into() })?;
                outputs[mv.output].copy_from_slice(placed);
            } else {
                let input = match source.map(|v| v.data) {
                    Some(kerfx_ir::tensor::ViewData::Bytes(b)) => Some(b),
                    Some(kerfx_ir::tensor::ViewData::Strings(_)) => {
                        return Err(Error::Invalid {
                            what: "the JIT moves bytes; string programs run on the reference".into(),
                        });
                    }
                    None => None,
                };
                last.run_bytes(input, outputs[mv.output])?;
            }
        }
        Ok(())
    }

    /// Allocating convenience: run on input tensors (dtype and shapes checked) and return
    /// the outputs.
    pub fn run_tensors(&self, inputs: &[kerfx_ir::TensorView<'_>]) -> Result<Vec<Tensor>, Error> {
        let mut bytes = Vec::with_capacity(inputs.len());
        for (i, v) in inputs.iter().enumerate() {
            let shape = self.inputs.get(i).map(Vec::as_slice);
            if v.dtype != self.dtype || Some(v.shape) != shape {
                return Err(Error::Mismatch {
                    what: format!("program input {i}"),
                    expected: format!("{} {:?}", self.dtype, shape.unwrap_or_default()),
                    found: format!("{} {:?}", v.dtype, v.shape),
                });
            }
            match v.data {
                kerfx_ir::tensor::ViewData::Bytes(b) => bytes.push(b),
                kerfx_ir::tensor::ViewData::Strings(_) => {
                    return Err(Error::Invalid {
                        what: "the JIT moves bytes; string programs run on the reference".into(),
                    });
                }
            }
        }
        let mut outs = self.outputs.iter().map(|s| Tensor::zeros(self.dtype, s)).collect::<Result<Vec<_>, _>>()?;
        let mut slices: Vec<&mut [u8]> = outs
            .iter_mut()
            .map(|t| t.bytes_mut().ok_or_else(|| Error::Invalid { what: "program: a byte output".into() }))
            .collect::<Result<_, _>>()?;
        self.run_buffers(&bytes, &mut slices)?;
        Ok(outs)
    }
}

/// A program is a [`Kernel`] over several buffers: [`Kernel::run_buffers`] runs it;
/// `run_bytes`, `input_shape` and `output_shape` serve a program of one input (or none)
/// and one output, and refuse others.
impl Kernel for ProgramKernel {
    fn dtype(&self) -> DType {
        self.dtype
    }
    /// The input's shape when the program reads exactly one (else `None`).
    fn input_shape(&self) -> Option<&[u64]> {
        match self.inputs.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }
    /// The first output's shape (see [`Kernel::output_shapes`] for all).
    fn output_shape(&self) -> &[u64] {
        self.outputs.first().map_or(&[], Vec::as_slice)
    }
    fn input_shapes(&self) -> Vec<&[u64]> {
        self.inputs.iter().map(Vec::as_slice).collect()
    }
    fn output_shapes(&self) -> Vec<&[u64]> {
        self.outputs.iter().map(Vec::as_slice).collect()
    }
    fn run_bytes(&self, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
        if self.inputs.len() > 1 || self.outputs.len() != 1 {
            return Err(Error::Invalid {
                what: format!(
                    "this program reads {} inputs and writes {} outputs: run it with run_buffers",
                    self.inputs.len(),
                    self.outputs.len()
                ),
            });
        }
        let inputs: Vec<&[u8]> = input.into_iter().collect();
        ProgramKernel::run_buffers(self, &inputs, &mut [output])
    }
    fn run_buffers(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
        ProgramKernel::run_buffers(self, inputs, outputs)
    }
}
