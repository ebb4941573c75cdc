//! Kernels over several inputs and outputs: a [`kerfx_ir::Program`] compiled move by move.
//!
//! Each move is one map (its chain composed) compiled as a kernel writing its box of the
//! output through an output view ([`Options::output`]): the box's offset and the output's
//! row-major strides — or, for a program compiled for strided buffers
//! ([`Jit::compile_program_views`]), the output view's strides, its first kernel reading
//! its input through the input's view ([`Options::input`]) — except a chain starting with
//! a reshape the view's strides cannot say, which reads a dense gather of the view. A chain that does not fuse whole (a reshape whose axes do not line
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
    /// The layouts it was compiled for.
    views: ProgramViews,
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

/// The layouts of a program's buffers: per input and per output, `None` for dense
/// row-major, or a [`Strided`] view of a larger buffer. Input views take any strides
/// (zero and negative included); output views positive strides whose elements do not
/// overlap. Each is checked against its tensor's shape when the program is compiled.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProgramViews {
    /// One per input (an empty list: all dense).
    pub inputs: Vec<Option<Strided>>,
    /// One per output (an empty list: all dense).
    pub outputs: Vec<Option<Strided>>,
}

impl ProgramViews {
    fn input(&self, i: usize) -> Option<&Strided> {
        self.inputs.get(i).and_then(Option::as_ref)
    }
    fn output(&self, o: usize) -> Option<&Strided> {
        self.outputs.get(o).and_then(Option::as_ref)
    }
}

impl Jit {
    /// Compile a program (see [`kerfx_ir::Program`]): one kernel per move, static or
    /// dynamic as `dynamic` says, over dense input and output buffers. The program is
    /// validated first (every read inside its input, every output element written once).
    /// Compiled programs are cached (by their plans, boxes and shapes) as kernels are.
    pub fn compile_program(&self, program: &Program, dynamic: bool) -> Result<Arc<ProgramKernel>, Error> {
        self.compile_program_views(program, dynamic, &ProgramViews::default())
    }

    /// [`Jit::compile_program`] for buffers laid out as `views` say: each move's first
    /// kernel reads its input through the input's view, its last writes its box through
    /// the output's view (the box's offset added to the view's), so no byte is gathered
    /// or copied on the way — except where a move's chain starts with a reshape whose
    /// axes the input view's strides do not continue: that move gathers the view into a
    /// dense scratch tensor first (one copy of its input). Cached by program and views. Refused: packed 4-bit dtypes
    /// with a view (their moves are placed by the host, dense), an output view with a
    /// negative stride, and views outside their buffers or not of their tensor's rank.
    pub fn compile_program_views(
        &self,
        program: &Program,
        dynamic: bool,
        views: &ProgramViews,
    ) -> Result<Arc<ProgramKernel>, Error> {
        // A hit compares the program with the cached one in place (no clone).
        if let Some(hit) = self.programs.get(&crate::cache::ProgramRef { program, dynamic, views }) {
            return hit;
        }
        let key = crate::cache::ProgramKey::of(program, dynamic, views);
        self.programs.get_or_init(key, || self.build_program(program, dynamic, views).map(Arc::new))
    }

    fn build_program(&self, program: &Program, dynamic: bool, views: &ProgramViews) -> Result<ProgramKernel, Error> {
        program.validate()?;
        crate::check_moves_bytes(program.dtype)?;
        check_views(program, views)?;
        let packed = program.dtype.layout() == Layout::Nibbles;
        // The kernels writing the outputs are parts of one call writing all of them
        // (streaming is decided for it: see `Options`); scratch is read right after.
        let call_bytes = program
            .outputs
            .iter()
            .map(|s| program.dtype.buffer_bytes(kerfx_ir::tensor::volume(s).unwrap_or(0)).unwrap_or(0) as u64)
            .fold(0u64, u64::saturating_add);
        let mut moves = Vec::with_capacity(program.moves.len());
        for (m, mv) in program.moves.iter().enumerate() {
            let in_move = |e: Error| Error::Invalid { what: format!("program: move {m}: {e}") };
            let segments = kerfx_ir::map::compose_segments(&mv.steps).map_err(in_move)?;
            let count = segments.len();
            let mut input_view = mv.input.and_then(|i| views.input(i));
            let options = Options::dynamic(dynamic);
            let mut kernels = Vec::with_capacity(count + 2);
            // A first map that cannot read the view in place (a reshape whose axes the
            // view's strides do not continue) reads a dense gather of it: the one copy.
            if let (Some(view), Some(first)) = (input_view, segments.first())
                && kerfx_ir::schedule::map_strided(&first.fused, view).is_err()
            {
                let shape = first.fused.head_shape().to_vec();
                kernels.push(self.compile(&Plan::copy(program.dtype, &shape), &options.input(view))?);
                input_view = None;
            }
            for (k, segment) in segments.into_iter().enumerate() {
                // The first segment reads the input (through its view), the others scratch.
                let options = match input_view {
                    Some(v) if k == 0 => options.input(v),
                    _ => options,
                };
                if k + 1 < count {
                    kernels.push(self.compile(segment.fused, &options)?);
                    continue;
                }
                let map = segment.fused;
                let whole = mv.at.iter().all(|&a| a == 0) && mv.shape() == program.outputs[mv.output].as_slice();
                let out_view = views.output(mv.output);
                let into_output = options.part_of(call_bytes);
                if packed || (whole && out_view.is_none()) {
                    // Dense: the whole output, or (packed 4-bit dtypes) a box placed by the host.
                    kernels.push(self.compile(map, &into_output)?);
                    continue;
                }
                let view = box_view(program, mv, out_view)?;
                match self.compile(map.clone(), &into_output.output(&view)) {
                    Ok(k) => kernels.push(k),
                    // A map no output view expresses (one that fills, or whose nest is
                    // not the box's shape: a reshape last) writes dense scratch, which a
                    // copy moves into the box.
                    Err(first) => {
                        let copy = Plan::copy(program.dtype, mv.shape());
                        let dense = self.compile(map, &options);
                        let into_box =
                            self.compile(&copy, &Options::dynamic(dynamic).part_of(call_bytes).output(&view));
                        match (dense, into_box) {
                            (Ok(d), Ok(c)) => kernels.extend([d, c]),
                            _ => return Err(in_move(first)),
                        }
                    }
                }
            }
            moves.push(MoveKernel { input: mv.input, output: mv.output, at: mv.at.clone(), kernels });
        }
        let bytes = |shapes: &[Vec<u64>], views: &[Option<Strided>]| {
            shapes
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    let view = views.get(k).and_then(Option::as_ref);
                    let n = view.map_or_else(|| kerfx_ir::tensor::volume(s).unwrap_or(u64::MAX), |v| v.buffer_len);
                    buffer_bytes(program.dtype, n)
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(ProgramKernel {
            dtype: program.dtype,
            input_bytes: bytes(&program.inputs, &views.inputs)?,
            output_bytes: bytes(&program.outputs, &views.outputs)?,
            inputs: program.inputs.clone(),
            outputs: program.outputs.clone(),
            views: views.clone(),
            moves,
            // Dense buffers only: the interleaving pass reads and writes them whole.
            interleave: (views.inputs.iter().chain(&views.outputs).all(Option::is_none))
                .then(|| crate::interleave::Interleave::plan(program))
                .flatten(),
            threads: self.settings.threads,
        })
    }
}

/// The views fit the program: as many as its buffers (or none), each of its tensor's
/// rank and inside its buffer; output views with non-negative strides; no view of a
/// packed 4-bit dtype.
fn check_views(program: &Program, views: &ProgramViews) -> Result<(), Error> {
    let sides = [("input", &views.inputs, &program.inputs), ("output", &views.outputs, &program.outputs)];
    for (side, given, shapes) in sides {
        if !given.is_empty() && given.len() != shapes.len() {
            return Err(Error::Mismatch {
                what: format!("program {side} views"),
                expected: format!("{} (one per {side}) or none", shapes.len()),
                found: given.len().to_string(),
            });
        }
        for (k, (view, shape)) in given.iter().zip(shapes).enumerate() {
            let Some(view) = view else { continue };
            if program.dtype.layout() == Layout::Nibbles {
                return Err(Error::Invalid {
                    what: format!(
                        "program {side} {k}: a {} program takes dense buffers (packed 4-bit elements have no \
                         element address)",
                        program.dtype
                    ),
                });
            }
            view.check_inside(shape, &format!("program {side} {k} view"))?;
            if side == "output"
                && let Some(d) = view.strides.iter().position(|&s| s < 0)
            {
                return Err(Error::Invalid {
                    what: format!(
                        "program output {k} view: stride {} on axis {d} is negative; output views take positive strides",
                        view.strides[d]
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The view a move writes its box through: the output's view (row-major dense when it
/// has none) moved to the box's first element.
fn box_view(program: &Program, mv: &kerfx_ir::program::Move, out_view: Option<&Strided>) -> Result<Strided, Error> {
    let too_large = || too_large(program, mv.output);
    let (offset, strides, buffer_len) = match out_view {
        Some(v) => (v.offset, v.strides.clone(), v.buffer_len),
        None => {
            let strides = kerfx_ir::tensor::row_major_strides(&program.outputs[mv.output]);
            let strides =
                strides.iter().map(|&s| i64::try_from(s)).collect::<Result<Vec<_>, _>>().map_err(|_| too_large())?;
            (0, strides, kerfx_ir::tensor::volume(&program.outputs[mv.output]).ok_or_else(too_large)?)
        }
    };
    let mut at: i64 = offset;
    for (a, s) in mv.at.iter().zip(&strides) {
        let a = i64::try_from(*a).map_err(|_| too_large())?;
        at = a.checked_mul(*s).and_then(|d| at.checked_add(d)).ok_or_else(too_large)?;
    }
    Ok(Strided { offset: at, strides, buffer_len })
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
    /// The layouts of the buffers it was compiled for (empty lists: dense).
    pub fn views(&self) -> &ProgramViews {
        &self.views
    }
    /// The kernels of each move, in order (their CLIF, their tiling): one per segment of
    /// its chain, the last writing its box.
    pub fn move_kernels(&self) -> impl Iterator<Item = &[Arc<JitKernel>]> {
        self.moves.iter().map(|m| m.kernels.as_slice())
    }

    /// Run on caller-owned buffers: `inputs[i]` holds input i, `outputs[o]` output o, each
    /// exactly its bytes — the tensor's, dense, or the whole buffer its view lies in
    /// ([`Jit::compile_program_views`]; an output view's other elements are left as they
    /// are) — checked, all of them, before any move runs. Allocates
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
            // The input's whole buffer (its view's, where it has one).
            let input: Option<&[u8]> = mv.input.map(|i| inputs[i]);
            // Where the chain does not fuse whole: its leading segments, each into scratch
            // (the first reading the input through its view).
            let Some((last, leading)) = mv.kernels.split_last() else { continue };
            let mut scratch: Option<Tensor> = None;
            for k in leading {
                let mut next = Tensor::zeros(self.dtype, k.output_shape())?;
                let source = scratch.as_ref().map_or(input, |t| t.bytes());
                let dst = next.bytes_mut().ok_or_else(|| Error::Invalid { what: "program: scratch bytes".into() })?;
                k.run_bytes(source, dst)?;
                scratch = Some(next);
            }
            let source = scratch.as_ref().map_or(input, |t| t.bytes());
            if self.dtype.layout() == Layout::Nibbles {
                // No views (refused when compiled): the part dense, placed by the host.
                let view = source.map(|b| kerfx_ir::TensorView {
                    dtype: self.dtype,
                    shape: last.input_shape().unwrap_or_default(),
                    data: kerfx_ir::tensor::ViewData::Bytes(b),
                });
                let part = last.run_tensor(view)?;
                let mut out = Tensor::from_bytes(self.dtype, &self.outputs[mv.output], outputs[mv.output])?;
                kerfx_ir::program::place(&part, &mut out, &mv.at)?;
                let placed = out.bytes().ok_or_else(|| Error::Invalid { what: "program: packed output".into() })?;
                outputs[mv.output].copy_from_slice(placed);
            } else {
                last.run_bytes(source, outputs[mv.output])?;
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
