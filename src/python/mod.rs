//! The Python module `s17` (cargo feature `python`, built by maturin from
//! `pyproject.toml`: `pip install .`). The default build has none of it
//! and needs no Python.
//!
//! Every function takes and returns text in the command line's forms (81
//! characters a grid or puzzle, `.` or `0` for an empty cell) and gives
//! the same answers as the matching subcommand. Bad input raises
//! `ValueError` with the command line's words (`argument 1: ...` there is
//! the message here).
//!
//! **Long searches.** A search runs on a thread of its own while the
//! calling thread waits without the GIL, checking every 50 ms for a
//! signal (`Python::check_signals`): Ctrl-C raises `KeyboardInterrupt` at
//! once. The grids not yet started are then not searched; a grid whose
//! search is under way runs to its end on its thread (the search has no
//! stop inside a grid) and its result is dropped.
//!
//! The band tables are opened (built, the first time: about 126 MiB) once
//! per path and kept for the life of the process. The Python side of the
//! package (`__init__.py`, type stubs, `py.typed`) is in `src/python/s17/`.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::band::BandCatalogue;
use crate::canon::{minlex_grid, minlex_puzzle};
use crate::catalogue::{Catalogue, CatalogueError, default_dirs as catalogue_dirs};
use crate::grid::{Grid, Puzzle};
use crate::lowest::{Lowest as Answer, LowestSearch};
use crate::scan::{GridFile, Part};
use crate::search::{Goal, SearchConfig, Searcher};
use crate::tables::{BandTables, default_table_path};

/// How often a waiting call looks for a signal.
const POLL: Duration = Duration::from_millis(50);

/// The catalogue and the tables of one path, open for the process.
type Tables = (BandCatalogue, BandTables<memmap2::Mmap>);

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn parse_grid(text: &str) -> PyResult<Grid> {
    Grid::parse(text).map_err(value_error)
}

fn parse_puzzle(text: &str) -> PyResult<Puzzle> {
    Puzzle::parse(text).map_err(value_error)
}

/// The tables at `path` (default: [`default_table_path`]), opened or built
/// once.
fn tables(path: Option<PathBuf>) -> PyResult<&'static Tables> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, &'static Tables>>> = OnceLock::new();
    let path = match path {
        Some(p) => p,
        None => default_table_path().map_err(|e| PyOSError::new_err(e.to_string()))?,
    };
    let mut open = OPEN
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| PyRuntimeError::new_err("the table cache is poisoned"))?;
    if let Some(t) = open.get(&path) {
        return Ok(t);
    }
    let built = BandTables::open_or_build(&path)
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
    let t: &'static Tables = Box::leak(Box::new((BandCatalogue::new(), built)));
    open.insert(path, t);
    Ok(t)
}

/// A worker pool of `threads` threads (0: one per core).
fn pool(threads: usize) -> PyResult<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the worker threads: {e}")))
}

/// Runs `work` on a thread of its own, waiting for it without the GIL and
/// raising the signal's exception (Ctrl-C: `KeyboardInterrupt`) as soon as
/// one comes, `stop` then set for the work to see between grids.
fn run_detached<T: Send + 'static>(
    py: Python<'_>,
    stop: Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    // Only this thread reads; the lock makes the receiver shareable.
    let rx = Mutex::new(rx);
    loop {
        match py.detach(|| rx.lock().expect("one reader").recv_timeout(POLL)) {
            Ok(value) => return Ok(value),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("the search thread failed"));
            }
        }
    }
}

/// A search error (corrupt band tables) as Python's `OSError`.
fn table_error(e: impl std::fmt::Display) -> PyErr {
    PyOSError::new_err(e.to_string())
}

/// The unique solution of `puzzle` (81 characters, `.` or `0` empty), or
/// `None` when it has no solution or more than one (`s17 solve` prints
/// `no solution` and `not unique`).
#[pyfunction]
fn solve(py: Python<'_>, puzzle: &str) -> PyResult<Option<String>> {
    let p = parse_puzzle(puzzle)?;
    let s = py.detach(|| crate::solver::solve(&p, 2));
    Ok(match (s.count, s.first) {
        (1, Some(grid)) => Some(grid.to_string()),
        _ => None,
    })
}

/// The number of solutions of `puzzle`, counted up to `limit` (at least 1;
/// `s17 solve --count --limit LIMIT`).
#[pyfunction]
#[pyo3(signature = (puzzle, limit = 2))]
fn count_solutions(py: Python<'_>, puzzle: &str, limit: usize) -> PyResult<usize> {
    if limit == 0 {
        return Err(value_error("limit must be at least 1"));
    }
    let p = parse_puzzle(puzzle)?;
    Ok(py.detach(|| crate::solver::count_solutions(&p, limit)))
}

/// The minlex canonical form of a grid (81 digits) or of a puzzle (`s17
/// canon`).
#[pyfunction]
fn canon(text: &str) -> PyResult<String> {
    let puzzle = parse_puzzle(text)?;
    if puzzle.clue_count() == 81 {
        let grid = Grid::from_digits(*puzzle.digits()).map_err(value_error)?;
        return Ok(minlex_grid(&grid).0.to_string());
    }
    Ok(minlex_puzzle(&puzzle).0.to_string())
}

/// The goal of `search` and `scan`, its clue count checked as the
/// command line's `--clues` is.
fn goal(clues: usize, first: bool, non_minimal: bool) -> PyResult<Goal> {
    let range = crate::search::plan::CLUE_RANGE;
    if !range.contains(&clues) {
        return Err(value_error(format!(
            "clues {clues} is not in the range {} to {}",
            range.start(),
            range.end()
        )));
    }
    Ok(Goal {
        clues,
        non_minimal,
        first,
    })
}

/// Every minimal puzzle of `clues` clues (17 to 21; 16 finds none) whose
/// unique solution is `grid`, sorted (`s17 search --clues CLUES`). `first`:
/// stop at the first found (a list of one or none); `non_minimal`: also the
/// valid puzzles a clue can be removed from; `threads`: worker threads (0:
/// one per core); `tables`: the band table file (default: `tables_path()`).
#[pyfunction]
#[pyo3(signature = (grid, clues = 17, *, first = false, non_minimal = false, threads = 0, tables = None))]
fn search(
    py: Python<'_>,
    grid: &str,
    clues: usize,
    first: bool,
    non_minimal: bool,
    threads: usize,
    tables: Option<PathBuf>,
) -> PyResult<Vec<String>> {
    let grid = parse_grid(grid)?;
    let goal = goal(clues, first, non_minimal)?;
    let (catalogue, tables) = self::tables(tables)?;
    let pool = pool(threads)?;
    let result = run_detached(py, Arc::default(), move || {
        pool.install(|| {
            Searcher::new(catalogue, tables, SearchConfig::default())
                .with_goal(goal)
                .with_split_rows(true)
                .search(&grid)
        })
    })?
    .map_err(table_error)?;
    Ok(result.puzzles.iter().map(|p| p.to_string()).collect())
}

/// The lowest clue count of a grid, as `s17 lowest` answers it.
#[pyclass(frozen, get_all, module = "s17")]
#[derive(Clone)]
struct Lowest {
    /// The lowest clue count, or `None` when no count searched (17 to 21)
    /// has a puzzle.
    count: Option<usize>,
    /// A puzzle of the lowest count (unique and minimal), or `None`.
    witness: Option<String>,
    /// The counts proven to have no puzzle by a complete search.
    proven_none: Vec<usize>,
    /// The 17s the complete 17 search found.
    seventeens: usize,
    /// How the count was settled, in the words of `s17 lowest`'s last
    /// column.
    how: String,
    /// CPU seconds of the grid's searches.
    cpu_seconds: f64,
}

impl From<&Answer> for Lowest {
    fn from(a: &Answer) -> Lowest {
        Lowest {
            count: a.clues(),
            witness: a.witness.map(|p| p.to_string()),
            proven_none: a.proven_none().collect(),
            seventeens: a.seventeens,
            how: a.describe(),
            cpu_seconds: a.cpu_time.as_secs_f64(),
        }
    }
}

#[pymethods]
impl Lowest {
    fn __repr__(&self) -> String {
        format!(
            "Lowest(count={}, witness={}, how={:?})",
            self.count.map_or("None".to_string(), |n| n.to_string()),
            self.witness
                .as_ref()
                .map_or("None".to_string(), |w| format!("{w:?}")),
            self.how
        )
    }
}

/// The lowest clue count of `grid` with a witness puzzle and what was
/// proven below it (`s17 lowest`): the complete 17 search, then the first
/// 18, then the first 19, 20 and 21. `threads` and `tables` as for
/// `search`.
#[pyfunction]
#[pyo3(signature = (grid, *, threads = 0, tables = None))]
fn lowest(py: Python<'_>, grid: &str, threads: usize, tables: Option<PathBuf>) -> PyResult<Lowest> {
    let grid = parse_grid(grid)?;
    let (catalogue, tables) = self::tables(tables)?;
    let pool = pool(threads)?;
    let answer = run_detached(py, Arc::default(), move || {
        pool.install(|| {
            LowestSearch::new(catalogue, tables, SearchConfig::default())
                .with_split_rows_after(1)
                .lowest(&grid)
        })
    })?
    .map_err(table_error)?;
    Ok(Lowest::from(&answer))
}

/// Where the band tables are by default: `$S17_TABLES`, else
/// `s17/bands.s17t` in the user's cache directory (built on first use).
#[pyfunction]
fn tables_path() -> PyResult<String> {
    default_table_path()
        .map(|p| p.display().to_string())
        .map_err(|e| PyOSError::new_err(e.to_string()))
}

/// One grid's answer in a scan.
enum Item {
    Puzzles(Vec<Puzzle>),
    Lowest(Box<Answer>),
}

/// The results of a grid file, grid by grid in file order, as
/// `(line, answer)` (the grid's line number in the file); the grids are
/// searched in parallel on threads of their own. Dropping the iterator
/// (or Ctrl-C while it waits) stops the grids not yet started.
#[pyclass(module = "s17")]
struct ScanIter {
    rx: Mutex<Receiver<(usize, Result<Item, String>)>>,
    /// Line numbers not yet yielded, in file order.
    order: VecDeque<usize>,
    /// Answers come in any order; they wait here for their turn.
    pending: BTreeMap<usize, Result<Item, String>>,
    stop: Arc<AtomicBool>,
}

impl Drop for ScanIter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[pymethods]
impl ScanIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<(usize, Py<PyAny>)>> {
        let Some(&line) = self.order.front() else {
            return Ok(None);
        };
        loop {
            if let Some(item) = self.pending.remove(&line) {
                self.order.pop_front();
                let value = match item.map_err(PyOSError::new_err)? {
                    Item::Puzzles(ps) => ps
                        .iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                        .into_pyobject(py)?
                        .into_any()
                        .unbind(),
                    Item::Lowest(a) => Py::new(py, Lowest::from(&*a))?.into_any(),
                };
                return Ok(Some((line, value)));
            }
            let rx = &self.rx;
            let got = py.detach(|| rx.lock().expect("one reader").recv_timeout(POLL));
            match got {
                Ok((l, item)) => {
                    self.pending.insert(l, item);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        self.stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.order.clear();
                    return Err(PyRuntimeError::new_err("the scan stopped early"));
                }
            }
        }
    }
}

/// The grids of the file at `path` (`s17 scan`'s grid file: one grid a
/// line, blank and `#` lines skipped), or `ValueError` naming its first
/// bad line as `s17 scan` does.
fn grid_file(path: &Path) -> PyResult<Vec<(usize, Grid)>> {
    let file = GridFile::read(path, Part::WHOLE)
        .map_err(|e| PyOSError::new_err(format!("cannot read the grid file: {e}")))?;
    if let Some((line, err)) = file.bad_lines().next() {
        return Err(value_error(format!(
            "{}: line {line}: {err}",
            path.display()
        )));
    }
    Ok(file.grids().collect())
}

/// Starts the parallel work of a [`ScanIter`]: `job` on every grid.
fn start_scan(
    grids: Vec<(usize, Grid)>,
    threads: usize,
    job: impl Fn(&Grid) -> Result<Item, String> + Send + Sync + 'static,
) -> PyResult<ScanIter> {
    let pool = pool(threads)?;
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = channel();
    let order = grids.iter().map(|(line, _)| *line).collect();
    let seen = Arc::clone(&stop);
    std::thread::spawn(move || {
        use rayon::prelude::*;
        pool.install(|| {
            grids.par_iter().for_each(|(line, grid)| {
                if !seen.load(Ordering::Relaxed) {
                    let _ = tx.send((*line, job(grid)));
                }
            })
        })
    });
    Ok(ScanIter {
        rx: Mutex::new(rx),
        order,
        pending: BTreeMap::new(),
        stop,
    })
}

/// Iterates over the results of the grid file at `path` in file order:
/// `(line, puzzles)` for each grid, `puzzles` as `search` returns them for
/// the same `clues`, `first` and `non_minimal` (the lines `s17 scan`
/// writes). Grids are searched in parallel (`threads`, 0: one per core).
#[pyfunction]
#[pyo3(signature = (path, clues = 17, *, first = false, non_minimal = false, threads = 0, tables = None))]
fn scan(
    path: PathBuf,
    clues: usize,
    first: bool,
    non_minimal: bool,
    threads: usize,
    tables: Option<PathBuf>,
) -> PyResult<ScanIter> {
    let goal = goal(clues, first, non_minimal)?;
    let grids = grid_file(&path)?;
    let (catalogue, tables) = self::tables(tables)?;
    let searcher = Searcher::new(catalogue, tables, SearchConfig::default())
        .with_goal(goal)
        .with_split_rows_after(grids.len());
    start_scan(grids, threads, move |grid| {
        searcher
            .search(grid)
            .map(|r| Item::Puzzles(r.puzzles))
            .map_err(|e| e.to_string())
    })
}

/// Iterates over the lowest counts of the grids of the file at `path`, in
/// file order: `(line, Lowest)` for each grid (`s17 lowest -i PATH`).
#[pyfunction]
#[pyo3(signature = (path, *, threads = 0, tables = None))]
fn scan_lowest(path: PathBuf, threads: usize, tables: Option<PathBuf>) -> PyResult<ScanIter> {
    let grids = grid_file(&path)?;
    let (catalogue, tables) = self::tables(tables)?;
    let search = LowestSearch::new(catalogue, tables, SearchConfig::default())
        .with_split_rows_after(grids.len());
    start_scan(grids, threads, move |grid| {
        search
            .lowest(grid)
            .map(|a| Item::Lowest(Box::new(a)))
            .map_err(|e| e.to_string())
    })
}

/// The minlex catalogue's tables (`catalogue::default_dirs`), opened once.
fn catalogue() -> PyResult<&'static Catalogue> {
    static OPEN: OnceLock<Catalogue> = OnceLock::new();
    if let Some(c) = OPEN.get() {
        return Ok(c);
    }
    let c = Catalogue::open(&catalogue_dirs()).map_err(catalogue_error)?;
    Ok(OPEN.get_or_init(|| c))
}

fn catalogue_error(e: CatalogueError) -> PyErr {
    match e {
        CatalogueError::Io { .. } => table_error(e),
        _ => value_error(e),
    }
}

/// The number of `grid` (any image of it) in the field's minlex catalogue,
/// 1 to 5,472,730,538 (`s17 catalogue number`); `ValueError` when its
/// first band's table is not built.
#[pyfunction]
fn catalogue_number(py: Python<'_>, grid: &str) -> PyResult<u64> {
    let grid = parse_grid(grid)?;
    let c = catalogue()?;
    py.detach(|| c.number(&grid)).map_err(catalogue_error)
}

/// The minlex grid of catalogue number `number` (`s17 catalogue grid`).
#[pyfunction]
fn catalogue_grid(py: Python<'_>, number: u64) -> PyResult<String> {
    let c = catalogue()?;
    py.detach(|| c.grid(number))
        .map(|g| g.to_string())
        .map_err(catalogue_error)
}

/// The native module, re-exported by the package `s17`.
#[pymodule]
#[pyo3(name = "_s17")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(count_solutions, m)?)?;
    m.add_function(wrap_pyfunction!(canon, m)?)?;
    m.add_function(wrap_pyfunction!(search, m)?)?;
    m.add_function(wrap_pyfunction!(lowest, m)?)?;
    m.add_function(wrap_pyfunction!(tables_path, m)?)?;
    m.add_function(wrap_pyfunction!(catalogue_number, m)?)?;
    m.add_function(wrap_pyfunction!(catalogue_grid, m)?)?;
    m.add_function(wrap_pyfunction!(scan, m)?)?;
    m.add_function(wrap_pyfunction!(scan_lowest, m)?)?;
    m.add_class::<Lowest>()?;
    m.add_class::<ScanIter>()?;
    Ok(())
}
