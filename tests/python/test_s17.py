"""The Python module against the command line on the same input.

Runs the release binary ``target/release/s17`` (built here with cargo if
missing; ``$S17_BIN`` names another) and the installed module ``s17``
(``pip install .``), both on one band table file: ``$S17_TABLES``, else
``target/tmp/bands.s17t`` (where ``cargo test --release`` builds it).
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import s17

ROOT = Path(__file__).resolve().parents[2]
# The grid with 29 known 17s (its 17 search takes about 18 s: only canon here).
GRID29 = "123456789456789123798231564234675918815943276967812435379164852582397641641528397"
# Lines 7 and 8 of data/sample-grids.txt: grids with one and two known 17s.
SAMPLE = (ROOT / "data" / "sample-grids.txt").read_text().splitlines()
ONE17, TWO17 = SAMPLE[6], SAMPLE[7]


@pytest.fixture(scope="session")
def tables() -> str:
    path = os.environ.get("S17_TABLES") or str(ROOT / "target" / "tmp" / "bands.s17t")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def cli(tables):
    """``cli(*args, stdin=None)``: the binary's CompletedProcess."""
    binary = os.environ.get("S17_BIN") or str(ROOT / "target" / "release" / "s17")
    if not Path(binary).exists():
        subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    env = dict(os.environ, S17_TABLES=tables)
    env.pop("RUST_LOG", None)

    def run(*args, stdin=None):
        return subprocess.run(
            [binary, *args], input=stdin, capture_output=True, text=True, env=env
        )

    return run


def random_grid(cli, k: int) -> str:
    """Grid k (1-based) of ``s17 generate -n 12 --seed 36``."""
    return cli("generate", "-n", "12", "--seed", "36").stdout.splitlines()[k - 1]


def puzzles_of_known() -> list[str]:
    lines = (ROOT / "data" / "known17.txt").read_text().splitlines()
    return [l.split()[0] for l in lines[:40] if l and not l.startswith("#")]


def test_solve_and_count_as_the_cli(cli):
    puzzles = puzzles_of_known()[:20]
    # One clue fewer: not unique; and the cases of data/solver_cases.txt
    # (some with no solution).
    puzzles.append(puzzles[0].replace(next(c for c in puzzles[0] if c not in ".0"), ".", 1))
    cases = (ROOT / "data" / "solver_cases.txt").read_text().splitlines()
    no_solution = [c.split(":")[0] for c in cases if c.split(":")[1] == "0"]
    assert no_solution
    puzzles += [c.split(":")[0] for c in cases] + no_solution[:1]
    text = "\n".join(puzzles) + "\n"
    solved = cli("solve", stdin=text).stdout.splitlines()
    counted = cli("solve", "--count", "--limit", "3", stdin=text).stdout.splitlines()
    assert len(solved) == len(counted) == len(puzzles)
    for p, line, count in zip(puzzles, solved, counted):
        assert s17.count_solutions(p, 3) == int(count)
        got = s17.solve(p)
        assert got == (line if len(line) == 81 else None), p
    assert solved[20] == "not unique" and solved[-1] == "no solution"


def test_canon_as_the_cli(cli):
    items = puzzles_of_known()[:20] + SAMPLE[2:5] + [ONE17, TWO17]
    items = [i for i in items if not i.startswith("#")]
    lines = cli("canon", stdin="\n".join(items) + "\n").stdout.splitlines()
    assert [s17.canon(i) for i in items] == lines
    assert s17.canon(GRID29) == GRID29


def test_search_as_the_cli(cli, tables):
    for grid in (ONE17, TWO17):
        assert s17.search(grid, tables=tables) == cli("search", grid).stdout.split()
    assert len(s17.search(TWO17, tables=tables, threads=1)) == 2
    # On one thread: with more, another puzzle may be found first.
    first = s17.search(TWO17, 18, first=True, tables=tables, threads=1)
    cli_first = cli("search", "--clues", "18", "--first", "--threads", "1", TWO17)
    assert first == cli_first.stdout.split()
    assert len(first) == 1
    assert s17.search(ONE17, 16, tables=tables) == []


def lowest_line(answer: "s17.Lowest") -> list[str]:
    count = str(answer.count) if answer.count is not None else ">21"
    return [count, answer.witness or "-", answer.how]


def test_lowest_as_the_cli(cli, tables):
    grids = [ONE17, TWO17, random_grid(cli, 12)]
    for grid in grids:
        answer = s17.lowest(grid, tables=tables, threads=1)
        line = cli("lowest", "--threads", "1", grid).stdout.rstrip("\n").split("\t")
        assert line[1:] == lowest_line(answer), grid
        assert s17.count_solutions(answer.witness) == 1
    assert answer.count == 19 and answer.proven_none == [17, 18]
    assert s17.lowest(TWO17, tables=tables).seventeens == 2


# Published grids of lowest count 20 (G. McGuire) and 21 (no 20; "blue",
# enjoysudoku.com forum, 2019), settled by programs other than s17.
TWENTY = "145726983837495261926381574293874156581269347674153892318547629459632718762918435"
TWENTY_ONE = "123456789456789123789123456214897365365214897897365214541632978632978541978541632"


def test_lowest_20_and_21_as_the_cli(cli, tables):
    for grid, count in ((TWENTY, 20), (TWENTY_ONE, 21)):
        answer = s17.lowest(grid, tables=tables, threads=1)
        line = cli("lowest", "--threads", "1", grid).stdout.rstrip("\n").split("\t")
        assert line[1:] == lowest_line(answer), grid
        assert answer.count == count
        assert answer.proven_none == list(range(17, count))
        assert s17.count_solutions(answer.witness) == 1
        first = s17.search(grid, count, first=True, tables=tables, threads=1)
        assert first == [answer.witness]


def test_tables_path_is_the_cli_s(cli, tables, monkeypatch):
    monkeypatch.setenv("S17_TABLES", tables)
    assert s17.tables_path() == tables
    stats = cli("tables", "stats")
    assert tables in stats.stdout + stats.stderr


def write_grids(tmp_path: Path) -> Path:
    path = tmp_path / "grids.txt"
    third = s17.solve(puzzles_of_known()[0])
    path.write_text(f"# three grids\n{third}\n\n{ONE17}\n{TWO17}\n")
    return path


def test_scan_iterator_as_the_cli(cli, tables, tmp_path):
    path = write_grids(tmp_path)
    got = list(s17.scan(path, tables=tables))
    assert [line for line, _ in got] == [2, 4, 5]
    out = tmp_path / "out.txt"
    assert cli("scan", str(path), "-o", str(out)).returncode == 0
    expected = sorted(tuple(l.split("\t")) for l in out.read_text().splitlines())
    assert sorted((str(line), p) for line, ps in got for p in ps) == expected
    assert [len(ps) for _, ps in got][1:] == [1, 2]
    first = list(s17.scan(str(path), 18, first=True, tables=tables, threads=2))
    assert all(len(ps) == 1 for _, ps in first)


def test_scan_lowest_as_the_cli(cli, tables, tmp_path):
    path = write_grids(tmp_path)
    got = list(s17.scan_lowest(path, tables=tables))
    out = tmp_path / "low.txt"
    run = cli("lowest", "-i", str(path), "-o", str(out))
    assert run.returncode == 0, run.stderr
    printed = sorted(l.split("\t") for l in run.stdout.splitlines())
    assert [[str(line), *lowest_line(a)] for line, a in got] == printed
    written = sorted(l.split("\t") for l in out.read_text().splitlines())
    assert [[str(line), a.witness] for line, a in got] == written


def test_bad_input_raises_value_error_with_the_cli_s_words(cli, tables, tmp_path):
    bad = "12345"
    cases = [
        (lambda: s17.search(bad, tables=tables), cli("search", bad).stderr),
        (lambda: s17.lowest(bad, tables=tables), cli("lowest", bad).stderr),
        (lambda: s17.solve(bad), cli("solve", stdin=bad + "\n").stderr),
        (lambda: s17.count_solutions(bad), cli("solve", "--count", stdin=bad + "\n").stderr),
        (lambda: s17.canon(bad), cli("canon", stdin=bad + "\n").stderr),
    ]
    for call, stderr in cases:
        with pytest.raises(ValueError) as raised:
            call()
        assert str(raised.value) in stderr
        assert str(raised.value) == "expected 81 cells, found 5"
    path = tmp_path / "bad.txt"
    path.write_text(f"{ONE17}\nnot a grid\n")
    with pytest.raises(ValueError) as raised:
        s17.scan(path, tables=tables)
    stderr = cli("scan", str(path), "-o", str(tmp_path / "o.txt")).stderr
    assert f"{path}: line 2: " in str(raised.value)
    assert str(raised.value) in stderr
    with pytest.raises(ValueError, match="range 16 to 21"):
        s17.search(ONE17, 22, tables=tables)


# The Ctrl-C tests wait on conditions, never on a guess of the machine's
# speed: the child says when its tables are open and it is alone on its
# thread; the signal goes once the child's long search has started its
# threads and its main thread waits in Rust (where the wait loop checks for
# signals), and "at once" is counted in the child's CPU seconds after the
# signal, which load does not inflate. A loaded machine only makes them
# slower. On a system without /proc they fall back to a two-second wait.

# The child's lines before its long call: the tables opened (a 16 search,
# half a second), then a wait until the threads of that search are gone.
CHILD_READY = """
import os, re, s17, signal, sys, time
# Python leaves SIGINT ignored when it starts ignored (a job started in the
# background by a script, as CI may run us): Ctrl-C's own handler, always.
signal.signal(signal.SIGINT, signal.default_int_handler)
s17.search({grid!r}, 16, tables={tables!r})

def threads():
    status = open("/proc/self/status").read()
    return int(re.search(r"Threads:\\s+(\\d+)", status)[1])

while os.path.exists("/proc/self/status") and threads() > 1:
    time.sleep(0.01)
print("started", flush=True)
"""

# The safety net of every wait below (a hang fails the test, it does not
# wait forever); reached only if something is broken.
LIMIT = 600


def child_in_rust_wait(pid: int) -> bool:
    """Whether the child runs threads besides its main one (its long
    call's: it was alone when it said "started") and its main thread
    waits on a futex (the receive in the Rust wait loop, GIL released)."""
    task = Path(f"/proc/{pid}/task")
    try:
        others = [t for t in os.listdir(task) if t != str(pid)]
        wchan = (task / str(pid) / "wchan").read_text()
    except OSError:
        return False
    return bool(others) and "futex" in wchan


def signal_in_long_call(child: subprocess.Popen) -> float:
    """Waits until ``child`` said "started" and is inside its long call,
    sends SIGINT and returns the child's CPU seconds at that moment."""
    assert child.stdout.readline().strip() == "started"
    if Path("/proc/self/status").exists():
        deadline = time.monotonic() + LIMIT
        # Two looks in a row: the main thread is in the wait, not passing by.
        while not (child_in_rust_wait(child.pid) and child_in_rust_wait(child.pid)):
            assert child.poll() is None, "the child ended before its long call"
            assert time.monotonic() < deadline, "the long call never started"
            time.sleep(0.01)
        fields = Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    else:
        time.sleep(2.0)
        cpu = 0.0
    child.send_signal(signal.SIGINT)
    return cpu


def wait_with_cpu(child: subprocess.Popen) -> tuple[int, float]:
    """The child's exit code and CPU seconds (user + system, all its
    threads), waiting at most LIMIT seconds."""
    deadline = time.monotonic() + LIMIT
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            child.returncode = os.waitstatus_to_exitcode(status)
            return child.returncode, usage.ru_utime + usage.ru_stime
        assert time.monotonic() < deadline, f"no exit {LIMIT} s after SIGINT"
        time.sleep(0.01)


def test_ctrl_c_stops_a_long_search(tables):
    """SIGINT to a script in a long search (every 19 of a random grid,
    minutes): KeyboardInterrupt at once (within a few CPU seconds)."""
    script = CHILD_READY.format(grid=ONE17, tables=tables) + textwrap.dedent(
        f"""
        try:
            s17.search({SAMPLE[2]!r}, 19, tables={tables!r})
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True
    )
    cpu_at_signal = signal_in_long_call(child)
    code, cpu = wait_with_cpu(child)
    assert code == 3
    assert cpu - cpu_at_signal < 5
    assert child.stdout.read().strip() == "interrupted"


def test_ctrl_c_stops_the_iterator(tables, tmp_path):
    grids = tmp_path / "grids.txt"
    grids.write_text("\n".join(SAMPLE[2:5]) + "\n")
    script = CHILD_READY.format(grid=ONE17, tables=tables) + textwrap.dedent(
        f"""
        try:
            for item in s17.scan({str(grids)!r}, 19, tables={tables!r}):
                pass
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True
    )
    cpu_at_signal = signal_in_long_call(child)
    code, cpu = wait_with_cpu(child)
    assert code == 3
    assert cpu - cpu_at_signal < 5
    assert child.stdout.read().strip() == "interrupted"


def test_catalogue_number_and_grid_as_the_cli(cli):
    # Images of grids inside the committed tables (the README's grid 3 and
    # catalogue grids 1, 2, 7): their numbers as `s17 catalogue number`
    # gives them, and back as `s17 catalogue grid`.
    grids = [SAMPLE[2]] + [s17.catalogue_grid(k) for k in (1, 2, 7)]
    out = cli("catalogue", "number", stdin="\n".join(grids) + "\n").stdout
    numbers = [int(line.split("\t")[1]) for line in out.splitlines()]
    assert [s17.catalogue_number(g) for g in grids] == numbers
    assert numbers[1:] == [1, 2, 7]
    for k in numbers:
        grid = cli("catalogue", "grid", str(k)).stdout.split("\t")[1].strip()
        assert s17.catalogue_grid(k) == grid == s17.canon(grid)
    with pytest.raises(ValueError) as raised:
        s17.catalogue_grid(0)
    assert str(raised.value) in cli("catalogue", "grid", "0").stderr
