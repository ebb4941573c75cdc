//! Kernels over several inputs and outputs: a [`Program`] compiled move by move, as
//! `kerfx_jit`'s `compile_program` compiles it, into static functions the one checking entry
//! point calls in order.
//!
//! Each move's chain is composed into one map ([`kerfx_ir::map::compose_segments`]). A
//! move that writes its whole output runs dense; any other writes its box through an
//! output view of the whole output buffer (the box's offset, the output's row-major
//! strides: [`Program::box_view`]). Where the JIT runs through scratch — a chain that does
//! not compose into one map (its leading segments each into a dense buffer), a map no
//! output view expresses (a reshape last: written dense, then copied into the box by a
//! [`Plan::copy`] kernel) — the entry point allocates the scratch itself (`malloc` once its
//! arguments are checked, the most any one move needs; `free` before it returns;
//! `KERF_ERR_NOMEM` when the allocation fails): the caller passes only its inputs and
//! outputs. Packed 4-bit boxes, which no kernel writes through a view and the JIT places on
//! the host, are written dense into scratch and placed into their box element by element by
//! the entry point; a packed move writing a whole output runs dense.
//!
//! `<lib>_<kernel>_range(…, lo, hi)` runs positions `[lo, hi)` of the program's
//! `RANGE_EXTENT`, so that callers split a program over their own threads: its positions
//! are its moves' split loops one after another (each split as the JIT splits that move's
//! kernel over threads: [`PartRuns::Split`]), in units of each split's alignment so that
//! every bound is valid; a move through scratch, or all the placed moves of a packed
//! output, is one position ([`PartRuns::Whole`]). One index over all moves rather than a
//! range per move: one call covers any mix of moves (small moves in one range, a large one
//! split), callers need no per-move loop, and the whole call is the range `[0, extent)`.

use kerfx_ir::dtype::Layout;
use kerfx_ir::program::Program;
use kerfx_ir::schedule::Strided;
use kerfx_ir::{DType, Plan};
use kerfx_jit::Target;
use kerfx_jit::Views;
use kerfx_jit::object::{StaticFunction, static_function, static_function_part};

/// One input or output of a program kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// Its name: the graph value it is, or `in_k` / `out_k` (the C parameter's name).
    pub name: String,
    /// Its shape.
    pub shape: Vec<u64>,
    /// Bytes of its dense buffer.
    pub bytes: u64,
    /// An input whose bytes the object holds (a graph constant): the caller passes no
    /// buffer for it.
    pub constant: Option<Vec<u8>>,
}

/// The alignment of each scratch buffer in the entry point's one allocation.
const SCRATCH_ALIGN: u64 = 16;

/// A buffer a call reads or writes, whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// None (a call that starts with a fill reads nothing).
    None,
    /// Program input `k` (of every input, constants included).
    Input(usize),
    /// Entry-point output `k`.
    Output(usize),
    /// `bytes` at `offset` of the entry point's scratch allocation.
    Scratch {
        /// Its offset (a multiple of 16).
        offset: u64,
        /// Its bytes.
        bytes: u64,
    },
}

/// One call of a move: a static function run over `[0, extent)` of its whole buffers.
pub struct Call {
    /// The function.
    pub function: StaticFunction,
    /// The buffer it reads.
    pub reads: Buffer,
    /// The buffer it writes.
    pub writes: Buffer,
}

/// One move: it reads input `input` (of every input, constants included) and writes its box
/// of output `output`, through its calls in order — one, unless its chain does not compose
/// into one map (a call per segment, each but the last into scratch) or no output view
/// expresses its map (dense into scratch, then a copy into the box).
pub struct MoveFunction {
    /// The input it reads (`None`: it starts with a fill).
    pub input: Option<usize>,
    /// The entry-point output it writes.
    pub output: usize,
    /// Its calls, in order.
    pub calls: Vec<Call>,
    /// For a packed 4-bit box: where its calls left it (dense), to be placed into its box of
    /// the output element by element after them.
    pub place: Option<Place>,
}

/// A dense box of packed 4-bit elements in scratch placed into its output: box element `e`
/// (row-major in `shape`) goes to output element `offset + Σ_d y_d · strides[d]`, `y` its
/// coordinates; each output byte read, its nibble replaced, written back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The scratch buffer holding the box, dense.
    pub from: Buffer,
    /// The output element of the box's first element.
    pub offset: u64,
    /// The box's shape.
    pub shape: Vec<u64>,
    /// The output's row-major strides, in elements.
    pub strides: Vec<u64>,
}

/// A run of a program's positions (`<lib>_<kernel>_range(…, lo, hi)` runs positions
/// `[lo, hi)` of `[0, range_extent)`): the program's positions are its parts', one after
/// another in move order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangePart {
    /// Its first position.
    pub start: u64,
    /// How many positions it has.
    pub positions: u64,
    /// What its positions run.
    pub runs: PartRuns,
}

/// What a [`RangePart`]'s positions run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartRuns {
    /// Move `m`'s one call, split as the JIT splits that kernel over threads (its split
    /// loop's `extent` and `align`): position j runs `[j·align, min((j+1)·align, extent))`
    /// of the split loop, so that every position is a valid range of the kernel (whole
    /// bytes of packed elements, whole blocks of a random fill) and any bound is valid.
    Split(usize),
    /// One position running these moves whole, in order: a move through scratch (its
    /// calls depend on each other), or every move of one packed 4-bit output placed
    /// nibble by nibble (their placements read and write shared bytes), with the output's
    /// padding nibble.
    Whole(Vec<usize>),
}

/// A program compiled: its operands and one function per move, in order.
pub struct ProgramFunctions {
    /// The element type of every operand.
    pub dtype: DType,
    /// Every input, in the program's order (constants included).
    pub inputs: Vec<Operand>,
    /// Every output, in the entry point's order.
    pub outputs: Vec<Operand>,
    /// The moves, in the program's order; each writes its own box.
    pub moves: Vec<MoveFunction>,
    /// Bytes of scratch the moves need (the most any one move uses): 0, or the entry point
    /// allocates them (`malloc`) once its arguments are checked, and frees them before it
    /// returns.
    pub scratch_bytes: u64,
    /// The parts of its range (see [`RangePart`]), in order.
    pub parts: Vec<RangePart>,
    /// Positions of its range: the sum of its parts'.
    pub range_extent: u64,
}

impl ProgramFunctions {
    /// The inputs the caller passes (every one but the constants), in order.
    pub fn caller_inputs(&self) -> impl Iterator<Item = &Operand> {
        self.inputs.iter().filter(|i| i.constant.is_none())
    }
}

/// How a program's operands are presented: names, constants, the outputs' order.
pub struct Operands {
    /// Per program input: its name and, for a constant, its bytes.
    pub inputs: Vec<(String, Option<Vec<u8>>)>,
    /// Per entry-point output (in the entry point's order): its name and the program
    /// output it is.
    pub outputs: Vec<(String, usize)>,
}

impl Operands {
    /// `in_k` and `out_k`, the program's own order, no constant.
    pub fn plain(program: &Program) -> Operands {
        Operands {
            inputs: (0..program.inputs.len()).map(|k| (format!("in_{k}"), None)).collect(),
            outputs: (0..program.outputs.len()).map(|k| (format!("out_{k}"), k)).collect(),
        }
    }
}

/// Compile `program` for `target`: one static function per move (see the module doc).
/// Errors name the move.
pub fn compile_program(program: &Program, operands: &Operands, target: &Target) -> Result<ProgramFunctions, String> {
    program.validate().map_err(|e| e.to_string())?;
    if operands.inputs.len() != program.inputs.len() {
        return Err(format!("{} input names for {} program inputs", operands.inputs.len(), program.inputs.len()));
    }
    let mut order: Vec<usize> = operands.outputs.iter().map(|(_, o)| *o).collect();
    order.sort_unstable();
    if order != (0..program.outputs.len()).collect::<Vec<_>>() {
        return Err("the entry point's outputs are not each program output once".into());
    }
    let dtype = program.dtype;
    if dtype.layout() == Layout::Strings {
        return Err(format!(
            "a program of {dtype}: kerf moves bytes and cannot move strings; string programs run on the reference interpreter"
        ));
    }
    let bytes = |shape: &[u64]| -> Result<u64, String> {
        kerfx_ir::tensor::volume(shape)
            .and_then(|n| dtype.buffer_bytes(n))
            .map(|b| b as u64)
            .ok_or_else(|| format!("a {dtype} tensor of shape {shape:?} is too large"))
    };
    let mut inputs = Vec::with_capacity(program.inputs.len());
    for ((name, constant), shape) in operands.inputs.iter().zip(&program.inputs) {
        let n = bytes(shape)?;
        if let Some(c) = constant
            && c.len() as u64 != n
        {
            return Err(format!("constant {name:?}: {} bytes, its {dtype} {shape:?} holds {n}", c.len()));
        }
        inputs.push(Operand { name: name.clone(), shape: shape.clone(), bytes: n, constant: constant.clone() });
    }
    // Program output k is entry-point output `slot[k]`.
    let mut slot = vec![0; program.outputs.len()];
    let mut outputs = Vec::with_capacity(operands.outputs.len());
    for (k, (name, o)) in operands.outputs.iter().enumerate() {
        slot[*o] = k;
        let shape = program.outputs[*o].clone();
        outputs.push(Operand { name: name.clone(), bytes: bytes(&shape)?, shape, constant: None });
    }
    let packed = dtype.layout() == Layout::Nibbles;
    // The functions writing the outputs are parts of one call writing all of them: they
    // stream as the call's size says, as on the JIT.
    let call_bytes = outputs.iter().fold(0u64, |n, o| n.saturating_add(o.bytes));
    let mut moves = Vec::with_capacity(program.moves.len());
    let mut scratch_bytes = 0u64;
    for (m, mv) in program.moves.iter().enumerate() {
        let in_move = |e: String| format!("program move {m} (into output {}, at {:?}): {e}", slot[mv.output], mv.at);
        let mut segments = kerfx_ir::map::compose_segments(&mv.steps).map_err(|e| in_move(e.to_string()))?;
        let map = segments.pop().ok_or_else(|| in_move("it has no plan".into()))?.fused;
        let output = slot[mv.output];
        // The move's scratch: dense buffers one after another, each 16-byte aligned.
        let mut used = 0u64;
        let mut scratch = |n: u64| -> Result<Buffer, String> {
            let offset = used;
            used = offset
                .checked_add(n.div_ceil(SCRATCH_ALIGN) * SCRATCH_ALIGN)
                .ok_or_else(|| in_move("its scratch is too large".into()))?;
            Ok(Buffer::Scratch { offset, bytes: n })
        };
        let mut calls = Vec::with_capacity(segments.len() + 2);
        let mut place = None;
        // Leading segments of a chain that does not compose whole: each into scratch.
        let mut source = match mv.input {
            Some(i) => Buffer::Input(i),
            None => Buffer::None,
        };
        for (k, segment) in segments.into_iter().enumerate() {
            let f = static_function(segment.fused, target).map_err(|e| in_move(format!("segment {k}: {e}")))?;
            let dst = scratch(f.output_bytes)?;
            calls.push(Call { function: f, reads: source, writes: dst });
            source = dst;
        }
        let whole = mv.at.iter().all(|&a| a == 0) && mv.shape() == program.outputs[mv.output].as_slice();
        if whole {
            let f = static_function_part(map, Views::DENSE, call_bytes, target).map_err(|e| in_move(e.to_string()))?;
            calls.push(Call { function: f, reads: source, writes: Buffer::Output(output) });
        } else if packed {
            // No kernel writes packed 4-bit elements through a view: dense into scratch,
            // then placed into the box element by element (as the JIT places them on the
            // host).
            let f = static_function(map, target).map_err(|e| in_move(e.to_string()))?;
            let dst = scratch(f.output_bytes)?;
            calls.push(Call { function: f, reads: source, writes: dst });
            let (offset, strides) = program.box_view(mv);
            place = Some(Place { from: dst, offset, shape: mv.shape().to_vec(), strides });
        } else {
            let (offset, strides) = program.box_view(mv);
            let too_large = || in_move(format!("output of shape {:?} is too large", program.outputs[mv.output]));
            let view = Strided {
                offset: i64::try_from(offset).map_err(|_| too_large())?,
                strides: strides
                    .iter()
                    .map(|&s| i64::try_from(s))
                    .collect::<Result<_, _>>()
                    .map_err(|_| too_large())?,
                buffer_len: kerfx_ir::tensor::volume(&program.outputs[mv.output]).ok_or_else(too_large)?,
            };
            match static_function_part(map.clone(), Views::DENSE.output(&view), call_bytes, target) {
                Ok(f) => calls.push(Call { function: f, reads: source, writes: Buffer::Output(output) }),
                // A map no output view expresses (one whose nest is not the box's shape: a
                // reshape last) writes dense scratch, which a copy moves into the box, as
                // on the JIT.
                Err(first) => {
                    let copy = Plan::copy(dtype, mv.shape());
                    let dense = static_function(map, target);
                    let into_box = static_function_part(&copy, Views::DENSE.output(&view), call_bytes, target);
                    let (Ok(dense), Ok(into_box)) = (dense, into_box) else {
                        return Err(in_move(format!("no output view expresses its map ({first})")));
                    };
                    let dst = scratch(dense.output_bytes)?;
                    calls.push(Call { function: dense, reads: source, writes: dst });
                    calls.push(Call { function: into_box, reads: dst, writes: Buffer::Output(output) });
                }
            }
        }
        // Each call is passed the whole buffers the entry point checked or allocated: its
        // function must take exactly those.
        for (k, call) in calls.iter().enumerate() {
            let f = &call.function;
            crate::check_host_functions(f).map_err(in_move)?;
            let held = |b: Buffer| match b {
                Buffer::None => None,
                Buffer::Input(i) => Some(inputs[i].bytes),
                Buffer::Output(o) => Some(outputs[o].bytes),
                Buffer::Scratch { bytes, .. } => Some(bytes),
            };
            if f.input_bytes != held(call.reads) || Some(f.output_bytes) != held(call.writes) {
                return Err(in_move(format!(
                    "kernel {k} reads {:?} and writes {} bytes, its buffers hold {:?} and {:?}",
                    f.input_bytes,
                    f.output_bytes,
                    held(call.reads),
                    held(call.writes)
                )));
            }
        }
        scratch_bytes = scratch_bytes.max(used);
        moves.push(MoveFunction { input: mv.input, output, calls, place });
    }
    let (parts, range_extent) = range_parts(&moves)?;
    Ok(ProgramFunctions { dtype, inputs, outputs, moves, scratch_bytes, parts, range_extent })
}

/// The parts of a program's range, in move order: a move of one call is split as the JIT
/// splits its kernel over threads (`PartRuns::Split`); a move through scratch is one
/// position, and so are all the placed moves of one packed output together (placed at the
/// first's). Moves write disjoint elements (`Program::validate`) and read only inputs, so
/// the parts run in any order, on any threads, and two parts never write the same byte.
fn range_parts(moves: &[MoveFunction]) -> Result<(Vec<RangePart>, u64), String> {
    let mut parts: Vec<RangePart> = Vec::new();
    let mut at = 0u64;
    for (m, mv) in moves.iter().enumerate() {
        if mv.place.is_some()
            && let Some(part) = parts.iter_mut().find(|p| match &p.runs {
                PartRuns::Whole(ms) => ms.iter().any(|&o| moves[o].place.is_some() && moves[o].output == mv.output),
                PartRuns::Split(_) => false,
            })
            && let PartRuns::Whole(ms) = &mut part.runs
        {
            ms.push(m);
            continue;
        }
        let (runs, positions) = match mv.calls.as_slice() {
            [call] if mv.place.is_none() => {
                (PartRuns::Split(m), call.function.extent.div_ceil(call.function.align.max(1)))
            }
            _ => (PartRuns::Whole(vec![m]), 1),
        };
        parts.push(RangePart { start: at, positions, runs });
        at = at.checked_add(positions).ok_or("the program's range has too many positions")?;
    }
    Ok((parts, at))
}
