"""s17 from Python: every minimal 17- to 21-clue puzzle of a sudoku grid,
the lowest clue count of a grid, the solver and minlex canonical forms.

Grids and puzzles are 81-character strings (``.`` or ``0`` for an empty
cell), as on the command line; answers are the command line's. Bad input
raises ``ValueError`` with the command line's words. Long searches release
the GIL and stop at Ctrl-C (``KeyboardInterrupt``).

    >>> import s17
    >>> s17.lowest(grid).count          # 17 to 21, or None (above 21)
    >>> s17.search(grid, 18, first=True)
    >>> for line, puzzles in s17.scan("grids.txt"): ...
"""

from ._s17 import (
    Lowest,
    ScanIter,
    canon,
    catalogue_grid,
    catalogue_number,
    count_solutions,
    lowest,
    scan,
    scan_lowest,
    search,
    solve,
    tables_path,
)

__all__ = [
    "Lowest",
    "ScanIter",
    "canon",
    "catalogue_grid",
    "catalogue_number",
    "count_solutions",
    "lowest",
    "scan",
    "scan_lowest",
    "search",
    "solve",
    "tables_path",
]
