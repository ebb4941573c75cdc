//! Kernels over several inputs and outputs: a [`Program`] compiled move by move, as
//! `kerf_jit`'s `compile_program` compiles it, into static functions the one checking entry
//! point calls in order.
//!
//! Each move's chain is composed into one map ([`kerf_ir::map::compose_segments`]). A
//! move that writes its whole output runs dense; any other writes its box through an
//! output view of the whole output buffer (the box's offset, the output's row-major
//! strides: [`Program::box_view`]). Where the JIT falls back on scratch — a chain that does
//! not compose into one map, a map no output view expresses (one that fills, or a reshape
//! last), written dense then copied by a [`Plan::copy`] kernel — the object would need a
//! buffer the caller does not pass: such a move is refused, naming it and why. Packed
//! 4-bit dtypes, which no kernel writes through a view, are written only by moves that
//! write a whole output.

use kerf_ir::dtype::Layout;
use kerf_ir::program::Program;
use kerf_ir::schedule::Strided;
use kerf_ir::{DType, Plan};
use kerf_jit::Target;
use kerf_jit::Views;
use kerf_jit::object::{StaticFunction, static_function, static_function_views};

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

/// One move's function: it reads input `input` (of every input, constants included) and
/// writes output `output`, the whole buffer of each.
pub struct MoveFunction {
    /// The input it reads (`None`: it starts with a fill).
    pub input: Option<usize>,
    /// The output it writes.
    pub output: usize,
    /// The function, its buffers the whole input and the whole output.
    pub function: StaticFunction,
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
        kerf_ir::tensor::volume(shape)
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
    let mut moves = Vec::with_capacity(program.moves.len());
    for (m, mv) in program.moves.iter().enumerate() {
        let in_move = |e: String| format!("program move {m} (into output {}, at {:?}): {e}", slot[mv.output], mv.at);
        let mut segments = kerf_ir::map::compose_segments(&mv.steps).map_err(|e| in_move(e.to_string()))?;
        if segments.len() > 1 {
            return Err(in_move(format!(
                "its chain does not compose into one map ({} segments); the JIT runs it through scratch \
                 tensors, which an object's entry point has no buffer for",
                segments.len()
            )));
        }
        let map = segments.pop().ok_or_else(|| in_move("it has no plan".into()))?.fused;
        let whole = mv.at.iter().all(|&a| a == 0) && mv.shape() == program.outputs[mv.output].as_slice();
        let function = if whole {
            static_function(map, target).map_err(|e| in_move(e.to_string()))?
        } else if packed {
            return Err(in_move(format!(
                "packed 4-bit {dtype} elements are written dense only, and this move writes a box of its output"
            )));
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
                buffer_len: kerf_ir::tensor::volume(&program.outputs[mv.output]).ok_or_else(too_large)?,
            };
            static_function_views(map, Views::DENSE.output(&view), target).map_err(|first| {
                // The JIT's fallback (dense scratch, then a copy kernel into the box) needs
                // a buffer; say whether it would have compiled.
                let copy = Plan::copy(dtype, mv.shape());
                let fallback = static_function_views(&copy, Views::DENSE.output(&view), target).is_ok();
                in_move(format!(
                    "no output view expresses its map ({first}){}",
                    if fallback {
                        "; the JIT writes it dense into scratch and copies it into its box, \
                         which an object's entry point has no buffer for"
                    } else {
                        ""
                    }
                ))
            })?
        };
        if let Some(f) = function.host_functions.iter().find(|f| !f.starts_with("kerf_rt1_")) {
            return Err(in_move(format!(
                "calls the host function {f}, which is the JIT's own and not in the runtime library (kerf-rt) yet"
            )));
        }
        // The entry point passes each move the whole buffers it checked: the function must
        // take exactly those.
        let want_in = mv.input.map(|i| inputs[i].bytes);
        let want_out = outputs[slot[mv.output]].bytes;
        if function.input_bytes != want_in || function.output_bytes != want_out {
            return Err(in_move(format!(
                "its function reads {:?} and writes {} bytes, its buffers hold {want_in:?} and {want_out}",
                function.input_bytes, function.output_bytes
            )));
        }
        moves.push(MoveFunction { input: mv.input, output: slot[mv.output], function });
    }
    Ok(ProgramFunctions { dtype, inputs, outputs, moves })
}
