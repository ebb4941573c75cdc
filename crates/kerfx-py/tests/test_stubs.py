"""The type stubs (kerfx/__init__.pyi) and py.typed ship with the package, and the stub
declares every public name of `kerfx` with the parameters the module really takes."""

import ast
import inspect
import pathlib
import types

import numpy as np
import pytest

import kerfx

PACKAGE = pathlib.Path(kerfx.__file__).parent
STUB = ast.parse((PACKAGE / "__init__.pyi").read_text())


def declared():
    """Top-level public names of the stub (private helpers such as `_SupportsDLPack` are
    the stub's own): {name: its ast node}."""
    names = {}
    for node in STUB.body:
        if getattr(node, "name", "").startswith("_"):
            continue
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return names


def test_stub_and_marker_are_installed():
    assert (PACKAGE / "py.typed").is_file()
    assert (PACKAGE / "__init__.pyi").is_file()


def test_stub_names_every_public_name():
    stub = declared()
    public = {n for n in dir(kerfx) if not n.startswith("_") and not isinstance(getattr(kerfx, n), types.ModuleType)}
    assert public <= set(stub), f"not in the stub: {sorted(public - set(stub))}"
    assert set(kerfx.__all__) == set(stub), "the stub declares what __all__ exports, no more"
    stub_all = next(n for n in STUB.body if isinstance(n, ast.Assign) and n.targets[0].id == "__all__")
    assert ast.literal_eval(stub_all.value) == kerfx.__all__


def parameters(fn: ast.FunctionDef):
    a = fn.args
    out = [(p.arg, inspect.Parameter.POSITIONAL_ONLY) for p in a.posonlyargs]
    out += [(p.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in a.args if p.arg != "self"]
    if a.vararg:
        out.append((a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    out += [(p.arg, inspect.Parameter.KEYWORD_ONLY) for p in a.kwonlyargs]
    if a.kwarg:
        out.append((a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return out


def test_functions_take_the_stubs_parameters():
    stub = declared()
    functions = [n for n in kerfx.__all__ if isinstance(stub[n], ast.FunctionDef)]
    assert sorted(functions) == ["compile", "meta", "ops", "raw", "run", "spec"]
    for name in functions:
        real = inspect.signature(getattr(kerfx, name))
        got = [(p.name, p.kind) for p in real.parameters.values()]
        assert got == parameters(stub[name]), name


def test_classes_declare_every_public_attribute():
    stub = declared()
    for name in ["Kernel", "Meta", "Program", "Raw"]:
        members = {n.name for n in stub[name].body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
        real = {n for n in dir(getattr(kerfx, name)) if not n.startswith("_")}
        assert members == real, name
    # A slot's signature is not introspectable: the stub's `(self, input=None, /, *, out=None)`
    # is checked by calling the kernel so.
    call = next(n for n in stub["Kernel"].body if isinstance(n, ast.FunctionDef) and n.name == "__call__")
    positional, keyword = inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.KEYWORD_ONLY
    assert parameters(call) == [("self", positional), ("input", positional), ("out", keyword)]
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    k = kerfx.compile("onnx.transpose", data=kerfx.meta(np.int32, (2, 3)))
    out = np.empty((3, 2), np.int32)
    assert k(x, out=out) is out and (out == x.T).all()
    with pytest.raises(TypeError):
        k(input=x)
    fields = {n.target.id for n in stub["KerfError"].body if isinstance(n, ast.AnnAssign)}
    try:
        kerfx.run("no.such_op")
    except kerfx.KerfError as e:
        assert fields <= set(vars(e)), sorted(fields - set(vars(e)))
