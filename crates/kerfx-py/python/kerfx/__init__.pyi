# Type stubs of the package `kerfx` (its native module `kerfx._kerf`, re-exported):
# what type checkers and editors see. tests/test_stubs.py checks that every public name
# of the package is declared here, with the same parameters.

from typing import Any, Protocol, Sequence, final

import numpy as np
import numpy.typing as npt

__version__: str

class _SupportsDLPack(Protocol):
    """A tensor offered through DLPack (a torch tensor, a JAX or CuPy-on-host array)."""

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

class KerfError(ValueError):
    """A request kerf refuses; str(e) is the message the `kerf` command prints."""

    op: str | None
    rule: str | None
    name: str | None
    axis: int | None
    errors: list[KerfError]

@final
class Meta:
    """An input known by dtype and shape only (`kerfx.meta`)."""

    @property
    def dtype(self) -> str: ...
    @property
    def shape(self) -> tuple[int, ...]: ...

@final
class Raw:
    """An array of a dtype numpy lacks, in kerf's raw-bits convention (`kerfx.raw`)."""

    @property
    def array(self) -> npt.NDArray[Any]: ...
    @property
    def dtype(self) -> str: ...

@final
class Kernel:
    """A compiled op (`kerfx.compile`): `k(x)`, `k(x, out=out)`, `k()` for fills."""

    # A DLPack `out` (a torch tensor) is returned as given; else the numpy array.
    def __call__(
        self,
        input: npt.ArrayLike | Raw | _SupportsDLPack | None = None,
        /,
        *,
        out: npt.NDArray[Any] | _SupportsDLPack | None = None,
    ) -> Any: ...
    @property
    def output_shape(self) -> tuple[int, ...]: ...
    @property
    def input_shape(self) -> tuple[int, ...] | None: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def kerfx_dtype(self) -> str: ...
    @property
    def clif(self) -> str: ...
    @property
    def plan(self) -> str: ...
    @property
    def dynamic(self) -> bool: ...

@final
class Program:
    """A compiled op over several inputs or outputs (`kerfx.compile` of Concat or Split):
    `p(a, b)`, `p(x)`, `p(x, out=(o1, o2))`; a tuple of arrays for a Split."""

    def __call__(self, *inputs: npt.ArrayLike | Raw, out: Any = None) -> Any: ...
    @property
    def input_shapes(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def output_shapes(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def kerfx_dtype(self) -> str: ...
    @property
    def clif(self) -> str: ...

# Any: an ndarray, or a tuple of them for an op of a variadic output (Split), which the op
# id decides at run time (a union would make every caller narrow it).
def run(
    op: str, /, *, version: int | None = None, out: npt.NDArray[Any] | _SupportsDLPack | None = None, **params: Any
) -> Any:
    """Run an op on numpy arrays or DLPack tensors: one array, or a tuple for a variadic
    output (Split)."""

def compile(
    op: str, /, *, version: int | None = None, dynamic: bool | None = None, **params: Any
) -> Kernel | Program:
    """Compile an op into a Kernel (static, or with dynamic=True the kernel of its kind)."""

def meta(dtype: str | npt.DTypeLike, shape: Sequence[int]) -> Meta:
    """An input known by dtype and shape only, to compile before the data exists."""

def raw(array: npt.NDArray[Any], dtype: str) -> Raw:
    """An array of bf16, fp8 or int4 bits in kerf's raw-bits convention."""

def ops() -> list[str]:
    """The ids of the ops kerf knows."""

def spec(op: str) -> dict[str, Any]:
    """An op's spec as a dict (what `kerf spec ID` prints)."""

__all__ = [
    "KerfError",
    "Kernel",
    "Meta",
    "Program",
    "Raw",
    "__version__",
    "compile",
    "meta",
    "ops",
    "raw",
    "run",
    "spec",
]
