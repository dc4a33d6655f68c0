"""Type stubs of the native module (re-exported by ``s17``)."""

from os import PathLike
from typing import Iterator, Optional, Union

_Path = Union[str, "PathLike[str]"]

class Lowest:
    """The lowest clue count of a grid, as ``s17 lowest`` answers it."""

    count: Optional[int]
    """The lowest clue count, or None when no count searched (17 to 21) has a puzzle."""
    witness: Optional[str]
    """A puzzle of the lowest count (unique and minimal), or None."""
    proven_none: list[int]
    """The counts proven to have no puzzle by a complete search."""
    seventeens: int
    """The 17s the complete 17 search found."""
    how: str
    """How the count was settled, in the words of ``s17 lowest``."""
    cpu_seconds: float
    """CPU seconds of the grid's searches."""

class ScanIter(Iterator[tuple[int, object]]):
    """Results of a grid file in file order: ``(line, answer)``."""

    def __iter__(self) -> "ScanIter": ...
    def __next__(self) -> tuple[int, object]: ...

def solve(puzzle: str) -> Optional[str]:
    """The unique solution of ``puzzle``, or None (no solution, or not unique)."""

def count_solutions(puzzle: str, limit: int = 2) -> int:
    """The number of solutions of ``puzzle``, counted up to ``limit``."""

def canon(text: str) -> str:
    """The minlex canonical form of a grid or a puzzle."""

def search(
    grid: str,
    clues: int = 17,
    *,
    first: bool = False,
    non_minimal: bool = False,
    threads: int = 0,
    tables: Optional[_Path] = None,
) -> list[str]:
    """Every minimal puzzle of ``clues`` clues (16 to 21) of ``grid``, sorted."""

def lowest(grid: str, *, threads: int = 0, tables: Optional[_Path] = None) -> Lowest:
    """The lowest clue count of ``grid``, a witness, and what was proven below it."""

def tables_path() -> str:
    """Where the band tables are by default ($S17_TABLES, else the user's cache)."""

def catalogue_number(grid: str) -> int:
    """The number of ``grid`` (any image) in the minlex catalogue, 1 to 5472730538."""

def catalogue_grid(number: int) -> str:
    """The minlex grid of catalogue number ``number``."""

def scan(
    path: _Path,
    clues: int = 17,
    *,
    first: bool = False,
    non_minimal: bool = False,
    threads: int = 0,
    tables: Optional[_Path] = None,
) -> Iterator[tuple[int, list[str]]]:
    """``(line, puzzles)`` for each grid of the grid file, in file order."""

def scan_lowest(
    path: _Path, *, threads: int = 0, tables: Optional[_Path] = None
) -> Iterator[tuple[int, Lowest]]:
    """``(line, Lowest)`` for each grid of the grid file, in file order."""
