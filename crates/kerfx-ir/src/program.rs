//! Programs: kernels over N inputs and M outputs.
//!
//! A [`Program`] is a list of [`Move`]s, each a chain of plans (a step, or several fused
//! — the form [`crate::chain`] lowers to — possibly starting with a fill) from one input
//! into one *box* of one output: the sub-tensor of the output whose first element is at
//! `at` and whose shape is the chain's output shape. Concat is one move per input into
//! disjoint boxes of its output; Split one move per output, each a slice of the input.
//! No move branches per element: each is a map (see [`crate::map`]) of its own, and
//! backends run it as one nest writing its box through an output view.
//!
//! [`Program::validate`] proves, for any program however it was built, that every move
//! reads an input of the shape its chain reads and that each output is written exactly
//! once: its moves' boxes lie inside it, are pairwise disjoint, and their volumes add up
//! to its volume (disjoint boxes inside a box whose volumes sum to its volume cover it).
//! [`evaluate`] is the reference: each move's plans by the formulas of
//! [`crate::reference`], its result placed into its box.

use crate::error::Error;
use crate::plan::Plan;
use crate::tensor::{Strings, Tensor, TensorView, row_major_strides, volume};
use crate::{DType, dtype::Layout};

/// A kernel over several inputs and outputs: moves into boxes of the outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The element type of every input and output.
    pub dtype: DType,
    /// The shape of each input, in order.
    pub inputs: Vec<Vec<u64>>,
    /// The shape of each output, in order.
    pub outputs: Vec<Vec<u64>>,
    /// The moves; together they write each output element exactly once.
    pub moves: Vec<Move>,
}

/// One move of a [`Program`]: a chain of plans from one input into one box of one output.
#[derive(Clone, Debug, PartialEq)]
pub struct Move {
    /// The input the chain reads; `None` when its first plan is a fill (reads nothing).
    pub input: Option<usize>,
    /// The chain: plan k reads plan k−1's output, the first reads the input. Only the
    /// first may be a fill.
    pub steps: Vec<Plan>,
    /// The output it writes.
    pub output: usize,
    /// The output coordinate of the box's first element; the box has the chain's output
    /// shape.
    pub at: Vec<u64>,
}

impl Move {
    /// The shape of the box it writes: the last plan's output shape.
    pub fn shape(&self) -> &[u64] {
        self.steps.last().map_or(&[], Plan::output_shape)
    }
}

fn invalid(what: String) -> Error {
    Error::Invalid { what: format!("program: {what}") }
}

impl Program {
    /// The program of one plan: its input (if it reads one) into its whole output.
    pub fn single(plan: Plan) -> Program {
        let inputs: Vec<Vec<u64>> = plan.input_shape().map(|s| vec![s.to_vec()]).unwrap_or_default();
        let output = plan.output_shape().to_vec();
        let input = (!inputs.is_empty()).then_some(0);
        Program {
            dtype: plan.dtype(),
            inputs,
            outputs: vec![output.clone()],
            moves: vec![Move { input, steps: vec![plan], output: 0, at: vec![0; output.len()] }],
        }
    }

    /// Check everything a backend relies on: every plan valid and of the program's dtype;
    /// each move's chain linked (plan k reads plan k−1's output shape), reading an input
    /// of the shape it expects (a fill first: no input), its box inside its output; each
    /// output's boxes pairwise disjoint, their volumes adding up to the output's. Costs
    /// O(moves² · rank) beside the plans' own checks.
    pub fn validate(&self) -> Result<(), Error> {
        for shape in self.inputs.iter().chain(&self.outputs) {
            volume(shape).ok_or_else(|| invalid(format!("a tensor of shape {shape:?} has too many elements")))?;
        }
        for (m, mv) in self.moves.iter().enumerate() {
            self.validate_move(m, mv)?;
        }
        for (o, shape) in self.outputs.iter().enumerate() {
            let boxes: Vec<&Move> = self.moves.iter().filter(|mv| mv.output == o).collect();
            let mut written: u64 = 0;
            for (k, a) in boxes.iter().enumerate() {
                let n = volume(a.shape()).unwrap_or(u64::MAX);
                written = written.saturating_add(n);
                if n == 0 {
                    continue;
                }
                for b in &boxes[..k] {
                    let overlaps = (0..shape.len()).all(|d| {
                        let (a0, a1) = (a.at[d], a.at[d] + a.shape()[d]);
                        let (b0, b1) = (b.at[d], b.at[d] + b.shape()[d]);
                        a0 < b1 && b0 < a1
                    });
                    if overlaps {
                        return Err(invalid(format!(
                            "output {o}: the boxes at {:?} and {:?} overlap (an element would be written twice)",
                            b.at, a.at
                        )));
                    }
                }
            }
            let total = volume(shape).unwrap_or(u64::MAX);
            if written != total {
                return Err(invalid(format!(
                    "output {o} of shape {shape:?}: its moves write {written} of its {total} elements (each must be written exactly once)"
                )));
            }
        }
        Ok(())
    }

    fn validate_move(&self, m: usize, mv: &Move) -> Result<(), Error> {
        let what = |s: String| invalid(format!("move {m}: {s}"));
        let Some(first) = mv.steps.first() else { return Err(what("it has no plan".into())) };
        for (k, plan) in mv.steps.iter().enumerate() {
            plan.validate().map_err(|e| what(format!("plan {k}: {e}")))?;
            if plan.dtype() != self.dtype {
                return Err(what(format!("plan {k} moves {}, the program {}", plan.dtype(), self.dtype)));
            }
            if k > 0 {
                let prev = mv.steps[k - 1].output_shape();
                if plan.input_shape() != Some(prev) {
                    return Err(what(format!(
                        "plan {k} reads {:?}, plan {} writes {prev:?}",
                        plan.input_shape(),
                        k - 1
                    )));
                }
            }
        }
        match (mv.input, first.input_shape()) {
            (Some(i), Some(shape)) => {
                let input = self
                    .inputs
                    .get(i)
                    .ok_or_else(|| what(format!("it reads input {i}, the program has {}", self.inputs.len())))?;
                if input.as_slice() != shape {
                    return Err(what(format!("it reads input {i} as {shape:?}, the input is {input:?}")));
                }
            }
            (None, None) => {}
            (Some(i), None) => return Err(what(format!("it names input {i} but starts with a fill"))),
            (None, Some(_)) => return Err(what("it reads an input but names none".into())),
        }
        let out = self
            .outputs
            .get(mv.output)
            .ok_or_else(|| what(format!("it writes output {}, the program has {}", mv.output, self.outputs.len())))?;
        let shape = mv.shape();
        if mv.at.len() != out.len() || shape.len() != out.len() {
            return Err(what(format!(
                "its box (at {:?}, shape {shape:?}) is not of the rank of output {} {out:?}",
                mv.at, mv.output
            )));
        }
        for d in 0..out.len() {
            if mv.at[d].checked_add(shape[d]).is_none_or(|end| end > out[d]) {
                return Err(what(format!(
                    "its box (at {:?}, shape {shape:?}) leaves output {} {out:?} on axis {d}",
                    mv.at, mv.output
                )));
            }
        }
        Ok(())
    }

    /// The flat element offset of each move's box in its output and the output's
    /// row-major strides (in elements): the output view a backend writes the move through.
    pub fn box_view(&self, mv: &Move) -> (u64, Vec<u64>) {
        let strides = row_major_strides(&self.outputs[mv.output]);
        let offset = mv.at.iter().zip(&strides).map(|(a, s)| a * s).sum();
        (offset, strides)
    }
}

/// The reference: run each move's plans one by one with the reference interpreter and
/// place each result into its box. `inputs` are the program's inputs, in order.
pub fn evaluate(program: &Program, inputs: &[TensorView<'_>]) -> Result<Vec<Tensor>, Error> {
    evaluate_moves(program, inputs, &|steps, input| crate::chain::evaluate_unfused(steps, input))
}

/// [`evaluate`] with each move's chain composed into as few maps as it allows
/// ([`crate::map::compose_segments`]), evaluated element by element: the composed form
/// the backends run, on the reference.
pub fn evaluate_composed(program: &Program, inputs: &[TensorView<'_>]) -> Result<Vec<Tensor>, Error> {
    evaluate_moves(program, inputs, &|steps, input| {
        crate::map::evaluate_segments(&crate::map::compose_segments(steps)?, input)
    })
}

/// How a move's chain is run on its input (unfused, or composed).
type RunChain = dyn Fn(&[Plan], Option<TensorView<'_>>) -> Result<Tensor, Error>;

/// Validate, check the inputs, run each move's chain with `run` and place the results.
fn evaluate_moves(program: &Program, inputs: &[TensorView<'_>], run: &RunChain) -> Result<Vec<Tensor>, Error> {
    program.validate()?;
    check_inputs(program, inputs)?;
    let mut results = Vec::with_capacity(program.moves.len());
    for (m, mv) in program.moves.iter().enumerate() {
        let input = mv.input.map(|i| inputs[i]);
        results.push(run(&mv.steps, input).map_err(|e| invalid(format!("move {m}: {e}")))?);
    }
    assemble(program, results)
}

/// The outputs of a (valid) program from its moves' results, one per move in order, each
/// of its move's box shape: each placed into its box (strings as wide as the widest
/// string moved into the output); a move writing a whole output is that output.
pub fn assemble(program: &Program, results: Vec<Tensor>) -> Result<Vec<Tensor>, Error> {
    if results.len() != program.moves.len() {
        return Err(invalid(format!("{} results for {} moves", results.len(), program.moves.len())));
    }
    let mut outputs = Vec::with_capacity(program.outputs.len());
    let mut results: Vec<Option<Tensor>> = results.into_iter().map(Some).collect();
    for (o, shape) in program.outputs.iter().enumerate() {
        // One move writing the whole output: its result is the output.
        let whole = program.moves.iter().position(|mv| mv.output == o && mv.shape() == shape.as_slice());
        if let Some(m) = whole
            && let Some(result) = results[m].take()
        {
            outputs.push(result);
            continue;
        }
        let mut out = if program.dtype.layout() == Layout::Strings {
            // As wide as the widest string moved into it.
            let width = program
                .moves
                .iter()
                .zip(&results)
                .filter(|(mv, _)| mv.output == o)
                .filter_map(|(_, r)| r.as_ref().and_then(Tensor::strings).map(Strings::width))
                .max()
                .unwrap_or(0);
            let n = volume(shape).and_then(|n| usize::try_from(n).ok());
            let strings = n.and_then(|n| Strings::empty(width, n));
            Tensor::from_string_storage(
                shape,
                strings.ok_or_else(|| Error::TooLarge { what: format!("a string tensor of shape {shape:?}") })?,
            )?
        } else {
            Tensor::zeros(program.dtype, shape)?
        };
        for (mv, result) in program.moves.iter().zip(&results).filter(|(mv, _)| mv.output == o) {
            if let Some(result) = result {
                place(result, &mut out, &mv.at)?;
            }
        }
        outputs.push(out);
    }
    Ok(outputs)
}

/// Check `inputs` against the program's: as many, each of its dtype and shape.
pub fn check_inputs(program: &Program, inputs: &[TensorView<'_>]) -> Result<(), Error> {
    if inputs.len() != program.inputs.len() {
        return Err(Error::Mismatch {
            what: "program inputs".into(),
            expected: format!("{} inputs", program.inputs.len()),
            found: format!("{}", inputs.len()),
        });
    }
    for (i, (view, shape)) in inputs.iter().zip(&program.inputs).enumerate() {
        if view.dtype != program.dtype || view.shape != shape.as_slice() {
            return Err(Error::Mismatch {
                what: format!("program input {i}"),
                expected: format!("{} {shape:?}", program.dtype),
                found: format!("{} {:?}", view.dtype, view.shape),
            });
        }
        view.check(&format!("program input {i}"))?;
    }
    Ok(())
}

/// Copy `part` into `out` with its first element at coordinate `at` (a box of `part`'s
/// shape, which must lie inside `out`; same dtype).
pub fn place(part: &Tensor, out: &mut Tensor, at: &[u64]) -> Result<(), Error> {
    let shape = part.shape().to_vec();
    let fits = part.dtype() == out.dtype()
        && at.len() == shape.len()
        && out.shape().len() == shape.len()
        && (0..shape.len()).all(|d| at[d].checked_add(shape[d]).is_some_and(|e| e <= out.shape()[d]));
    if !fits {
        return Err(invalid(format!(
            "a {} {shape:?} box at {at:?} does not fit a {} {:?} tensor",
            part.dtype(),
            out.dtype(),
            out.shape()
        )));
    }
    let strides = row_major_strides(out.shape());
    let base: u64 = at.iter().zip(&strides).map(|(a, s)| a * s).sum();
    let layout = out.dtype().layout();
    let mut y = vec![0u64; shape.len()];
    for i in 0..part.len() {
        crate::reference::unravel(i, &shape, &mut y);
        let to = base + y.iter().zip(&strides).map(|(a, s)| a * s).sum::<u64>();
        match layout {
            Layout::Strings => {
                let src = part.strings().ok_or_else(|| invalid("a string box without strings".into()))?;
                let dst = out.strings_mut().ok_or_else(|| invalid("a string output without strings".into()))?;
                dst.copy_from(to as usize, src, i as usize)?;
            }
            _ => {
                let bits = part.element_bits(i).ok_or_else(|| invalid(format!("box element {i} is missing")))?;
                crate::reference::store_bits(out, layout, to, bits);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::AxisRead;

    /// A move reading the whole `[n]` input `input` into output 0 at `at`.
    fn copy(input: usize, n: u64, at: u64) -> Move {
        let step = crate::frontend::in_bounds_slice(
            DType::I32,
            vec![n],
            vec![AxisRead { extent: n, start: 0, step: 1 }],
            vec![n],
        );
        Move { input: Some(input), steps: vec![step], output: 0, at: vec![at] }
    }

    fn program(moves: Vec<Move>, out: u64) -> Program {
        Program { dtype: DType::I32, inputs: vec![vec![2], vec![3]], outputs: vec![vec![out]], moves }
    }

    #[test]
    fn disjoint_boxes_covering_the_output_are_valid() {
        program(vec![copy(0, 2, 0), copy(1, 3, 2)], 5).validate().unwrap();
    }

    #[test]
    fn overlapping_boxes_are_refused() {
        let e = program(vec![copy(0, 2, 0), copy(1, 3, 1)], 5).validate().unwrap_err().to_string();
        assert!(e.contains("overlap"), "{e}");
    }

    #[test]
    fn an_output_left_partly_unwritten_is_refused() {
        let e = program(vec![copy(0, 2, 0), copy(1, 3, 2)], 6).validate().unwrap_err().to_string();
        assert!(e.contains("write 5 of its 6 elements"), "{e}");
    }

    #[test]
    fn a_box_leaving_its_output_or_a_wrong_input_is_refused() {
        let e = program(vec![copy(0, 2, 0), copy(1, 3, 3)], 5).validate().unwrap_err().to_string();
        assert!(e.contains("leaves output 0"), "{e}");
        let e = program(vec![copy(1, 2, 0), copy(1, 3, 2)], 5).validate().unwrap_err().to_string();
        assert!(e.contains("reads input 1 as [2]"), "{e}");
        let e = program(vec![copy(0, 2, 0), copy(7, 3, 2)], 5).validate().unwrap_err().to_string();
        assert!(e.contains("reads input 7"), "{e}");
    }

    #[test]
    fn the_reference_places_each_move_into_its_box() {
        let p = program(vec![copy(1, 3, 0), copy(0, 2, 3)], 5);
        let a = Tensor::from_bytes(DType::I32, &[2], &[1, 0, 0, 0, 2, 0, 0, 0]).unwrap();
        let b = Tensor::from_bytes(DType::I32, &[3], &[3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0]).unwrap();
        let out = evaluate(&p, &[a.view(), b.view()]).unwrap();
        let values: Vec<u128> = (0..5).map(|i| out[0].element_bits(i).unwrap()).collect();
        assert_eq!(values, [3, 4, 5, 1, 2]);
    }
}
