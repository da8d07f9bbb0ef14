# nnefkit.pyi - type stubs of the Python module nnefkit (python/*.c).
from os import PathLike
from typing import Any, Iterable, Mapping, NamedTuple, Optional, Union

import numpy
import numpy.typing

__version__: str

_Path = Union[str, bytes, PathLike]

class Error(Exception):
    """A failure the library reports that is not a file's (out of memory, a limit, a malformed tensor file)."""
    diagnostics: list[Diagnostic]

class Note(NamedTuple):
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]

class Diagnostic:
    """An error, warning or note; str() is the text nnef-check prints."""
    code: str
    severity: str  # 'error', 'warning' or 'note'
    summary: str
    message: str
    hint: Optional[str]
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    end_line: Optional[int]
    end_column: Optional[int]
    notes: tuple[Note, ...]

class Operation(NamedTuple):
    name: str
    inputs: dict[str, Union[str, list[Any]]]
    outputs: dict[str, Union[str, list[Any]]]
    attributes: dict[str, Any]
    compound: Optional[str]

class Portability(NamedTuple):
    target: str
    title: str
    failed: bool
    operations: int
    portable: int
    mappings: list[dict[str, Any]]
    problems: list[dict[str, Any]]
    text: str

class Model:
    """A model read and checked by load()."""
    @property
    def valid(self) -> bool: ...
    @property
    def status(self) -> str: ...  # 'valid' or 'invalid'
    @property
    def path(self) -> str: ...
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def errors(self) -> int: ...
    @property
    def graph_name(self) -> Optional[str]: ...
    @property
    def inputs(self) -> tuple[str, ...]: ...
    @property
    def outputs(self) -> tuple[str, ...]: ...
    @property
    def shapes(self) -> dict[str, Optional[tuple[Optional[int], ...]]]: ...
    @property
    def dtypes(self) -> dict[str, str]: ...
    @property
    def operations(self) -> list[Operation]: ...
    def flatten(self, *, annotate_shapes: bool = False) -> str: ...
    def portability(self, target: str) -> Portability: ...
    def run(
        self,
        inputs: Optional[Mapping[str, numpy.typing.ArrayLike]] = None,
        *,
        precision: str = "single",
        quantize: bool = True,
        cycles: int = 1,
        random: Optional[str] = None,
        seed: Optional[int] = None,
        threads: int = 0,
        random_weights: bool = False,
    ) -> dict[str, numpy.ndarray]: ...

def load(
    path: _Path,
    *,
    dialect: Optional[str] = None,
    lenient: bool = False,
    declarations: Iterable[_Path] = (),
    input_shapes: Optional[Mapping[str, Iterable[int]]] = None,
    check_data: bool = True,
    max_errors: int = 20,
    max_depth: int = 0,
    max_nesting: int = 0,
    max_operations: int = 0,
    max_value_bytes: int = 0,
    max_archive_bytes: int = 0,
    max_member_bytes: int = 0,
    max_members: int = 0,
    keep: Iterable[str] = (),
    keep_standard: bool = False,
) -> Model: ...
def read_tensor(path: _Path, *, lenient: bool = False) -> numpy.ndarray: ...
def read_tensor_info(path: _Path, *, lenient: bool = False) -> dict[str, Any]: ...
def write_tensor(path: _Path, array: numpy.typing.ArrayLike, *, format: Optional[str] = None) -> None: ...
