"""Every example of every spec through the Python API: kerfx.run, and a compiled kernel
called on the data (the way request files and `kerf demo` run them)."""

import numpy as np
import pytest
from conftest import NUMPY, same

import kerfx


def flat(values, complex_):
    """Nested lists flattened row-major; for complex dtypes [re, im] is one element."""
    out = []
    for v in values:
        if isinstance(v, list) and not (complex_ and len(v) == 2 and all(isinstance(x, (int, float)) for x in v)):
            out.extend(flat(v, complex_))
        elif complex_ and isinstance(v, list):
            out.append(complex(v[0], v[1]))
        else:
            out.append(v)
    return out


def tensor(literal):
    """An inline tensor {dtype, shape, values} of a spec as a numpy array."""
    dtype = NUMPY[literal["dtype"]]
    values = flat(literal["values"], dtype.kind == "c")
    if dtype == object:
        array = np.array(values, dtype=object)
    elif dtype.kind in "biu" or literal["dtype"] in ("i4", "u4"):
        array = np.array(values, dtype=np.int64).astype(dtype)
    else:
        array = np.array(values, dtype=np.complex128 if dtype.kind == "c" else np.float64).astype(dtype)
    return array.reshape(literal.get("shape", [len(values)]))


def example_input(value):
    """An example's input as request files read it: a number is an i64/f64/bool scalar,
    a list of ints a 1-D i64 tensor, a table an inline tensor (or dtype and shape only)."""
    if isinstance(value, dict):
        if "values" not in value:
            return kerfx.meta(value["dtype"], value["shape"])
        return tensor(value)
    return np.asarray(value, dtype=np.int64 if value == [] else None)


EXAMPLES = [(op, ex) for op in kerfx.ops() for ex in kerfx.spec(op)["examples"]]


@pytest.mark.parametrize("op, example", EXAMPLES, ids=[f"{op}:{ex['name']}" for op, ex in EXAMPLES])
def test_spec_example(op, example):
    spec = kerfx.spec(op)
    variadic = {i["name"] for i in spec["inputs"] if i["variadic"]}
    args = dict(example["attributes"])
    for name, v in example["inputs"].items():
        args[name] = [example_input(e) for e in v] if name in variadic else example_input(v)
    if example["error"] is not None:
        with pytest.raises(kerfx.KerfError) as e:
            kerfx.run(op, version=example["version"], **args)
        assert example["error"] in str(e.value)
        return
    if example["expected_outputs"] is not None:
        # Several outputs: a tuple, one array each (no kerfx.compile of programs yet).
        got = kerfx.run(op, version=example["version"], **args)
        wants = [tensor(t) for t in example["expected_outputs"]]
        assert isinstance(got, tuple) and len(got) == len(wants)
        for g, w in zip(got, wants):
            same(g, w)
        return
    want = tensor(example["expected"])
    same(kerfx.run(op, version=example["version"], **args), want)
    if variadic:
        return  # a program over several inputs runs through kerfx.run only
    if want.dtype == object:
        return  # string slices run through kerfx.run only (the JIT moves bytes)
    kernel = kerfx.compile(op, version=example["version"], **args)
    data = [i["name"] for i in kerfx.spec(op)["inputs"] if i["rank"] == "any"]
    got = kernel(args[data[0]]) if data else kernel()
    same(got, want)


def test_examples_cover_every_op():
    assert {op for op, _ in EXAMPLES} == set(kerfx.ops())
