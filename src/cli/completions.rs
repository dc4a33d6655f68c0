//! `s17 completions SHELL` and `s17 man [COMMAND...]`: shell completion
//! scripts and roff man pages, both generated from the clap definitions of
//! [`super::Cli`] (`clap_complete`, `clap_mangen`), so they can never
//! disagree with the flags.
//!
//! Both are rendered into memory first and written to stdout in one go:
//! the generators' own writers panic on a failed write, and a closed stdout
//! (`s17 man | head -1`) must end the run quietly like any other command's
//! (the `BrokenPipe` error is mapped to exit 0 in [`super::main`]).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::CommandFactory;

use super::{Cli, Outcome};

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// The subcommand whose page to print (e.g. `exhaust`, `campaign plan`);
    /// none for the page of `s17` itself.
    #[arg(value_parser = CommandNames, hide_possible_values = true)]
    pub command: Vec<String>,
    /// Write every page (s17.1, s17-search.1, s17-campaign-plan.1, ...) into
    /// this existing directory instead of printing one.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
    /// Print the options of every command as Markdown instead: COMMANDS.md's
    /// generated reference (a test keeps the two equal).
    #[arg(long, hide = true, conflicts_with_all = ["command", "dir"])]
    pub markdown: bool,
}

/// The names of the subcommands at every level (`campaign`, `plan`), for
/// the completions of `s17 man`; any word is taken (and a wrong one
/// refused by `run_man`, naming the subcommands there are).
#[derive(Clone, Copy, Debug)]
struct CommandNames;

/// The subcommands of `s17`, `s17 campaign`, `s17 catalogue` and `s17 tables`
/// (checked against the tree by a test).
const COMMAND_NAMES: &[&str] = &[
    "search",
    "scan",
    "solve",
    "canon",
    "generate",
    "tune",
    "validate",
    "lowest",
    "tables",
    "enumerate",
    "exhaust",
    "campaign",
    "catalogue",
    "completions",
    "man",
    "plan",
    "run",
    "status",
    "merge",
    "flags",
    "work",
    "report",
    "number",
    "grid",
    "has",
    "bitmap",
    "build",
    "install",
    "verify",
    "stats",
];

impl clap::builder::TypedValueParser for CommandNames {
    type Value = String;

    fn parse_ref(
        &self,
        _: &clap::Command,
        _: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            COMMAND_NAMES.iter().map(clap::builder::PossibleValue::new),
        ))
    }
}

/// The whole command tree, built (so subcommands carry their full names,
/// `s17-exhaust`), without clap's `help` subcommand.
fn command_tree() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

pub fn run_completions(args: CompletionsArgs) -> Outcome {
    let mut cmd = without_hidden(Cli::command());
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "s17", &mut script);
    print(&script)?;
    Ok(true)
}

/// `cmd` without its hidden options, at every level: `clap_complete`
/// offers hidden options too (it offered `man --markdown` in every shell),
/// while the scripts must offer exactly what `--help` shows. A command
/// with a hidden option is made anew from its visible options, its
/// subcommands and its about line (what the generators read).
fn without_hidden(cmd: clap::Command) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect();
    let cmd = names
        .iter()
        .fold(cmd, |cmd, name| cmd.mut_subcommand(name, without_hidden));
    if !cmd.get_arguments().any(clap::Arg::is_hide_set) {
        return cmd;
    }
    let visible: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .cloned()
        .collect();
    let subcommands: Vec<clap::Command> = cmd.get_subcommands().cloned().collect();
    // clap takes a static name here (no `string` feature): one small leak
    // per command rebuilt, in a process that prints one script and ends.
    let name: &'static str = Box::leak(cmd.get_name().to_string().into_boxed_str());
    let mut bare = clap::Command::new(name)
        .args(visible)
        .subcommands(subcommands);
    if let Some(about) = cmd.get_about() {
        bare = bare.about(about.clone());
    }
    bare
}

pub fn run_man(args: ManArgs) -> Outcome {
    let root = command_tree();
    if args.markdown {
        let mut text = String::new();
        markdown(&root, &mut Vec::new(), &mut text);
        print(text.as_bytes())?;
        return Ok(true);
    }
    if let Some(dir) = args.dir {
        s17::output::make_dir("--dir", &dir, false).map_err(super::resumable::into_error)?;
        write_pages(&root, &dir)
            .with_context(|| format!("cannot write the man pages to {}", dir.display()))?;
        return Ok(true);
    }
    let mut cmd = &root;
    for name in &args.command {
        cmd = cmd.find_subcommand(name).with_context(|| {
            let known: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
            format!(
                "`{}` has no subcommand `{name}` (it has: {})",
                cmd.get_display_name().unwrap_or(cmd.get_name()),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )
        })?;
    }
    print(&page(cmd)?)?;
    Ok(true)
}

/// The page of `cmd`, its footer naming s17 and its version on every page
/// (clap_mangen's default names the subcommand alone).
fn man(cmd: &clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd.clone()).source(format!("s17 {}", env!("CARGO_PKG_VERSION")))
}

/// The whole page of `cmd`: clap_mangen's, with a synopsis that names each
/// option's value (`[--band <K>]`, where clap_mangen writes `[--band]`)
/// and the sections EXAMPLES (the README's tasks), EXIT STATUS,
/// ENVIRONMENT and FILES before VERSION.
fn page(cmd: &clap::Command) -> std::io::Result<Vec<u8>> {
    let mut text = Vec::new();
    man(cmd).render(&mut text)?;
    let text = String::from_utf8(text).expect("clap_mangen writes UTF-8");
    let start = text.find("\n.SH SYNOPSIS\n").expect("a SYNOPSIS section") + 1;
    let end = start
        + 1
        + text[start + 1..]
            .find("\n.SH ")
            .expect("a section after SYNOPSIS")
        + 1;
    let tail = &text[end..];
    let version = tail.find(".SH VERSION\n").unwrap_or(tail.len());
    let mut page = String::with_capacity(text.len() + 4096);
    page.push_str(&text[..start]);
    page.push_str(&without_preamble(&synopsis(cmd)));
    page.push_str(&tail[..version]);
    page.push_str(&without_preamble(&sections(cmd)));
    page.push_str(&tail[version..]);
    Ok(page.into_bytes())
}

/// A rendering of `roff` without the preamble every rendering starts
/// with (the page has it once, at its top).
fn without_preamble(roff: &roff::Roff) -> String {
    let text = roff.render();
    let body = text.find(".SH ").unwrap_or(0);
    text[body..].to_string()
}

/// The SYNOPSIS section: `s17 scan [--part <K/N>] ... -o <FILE> [GRID_FILE]`,
/// options in the order of `--help`, a required group as `<A|B>`.
fn synopsis(cmd: &clap::Command) -> roff::Roff {
    use roff::{bold, italic, roman};
    let mut line = vec![
        bold(cmd.get_bin_name().unwrap_or(cmd.get_name())),
        roman(" "),
    ];
    let groups: Vec<Vec<&clap::Arg>> = cmd
        .get_groups()
        .filter(|g| g.is_required_set())
        .map(|g| {
            g.get_args()
                .filter_map(|id| cmd.get_arguments().find(|a| a.get_id() == id))
                .collect::<Vec<_>>()
        })
        .collect();
    let in_group = |arg: &clap::Arg| groups.iter().flatten().any(|g| g.get_id() == arg.get_id());
    let mut options: Vec<&clap::Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional() && !in_group(a))
        .collect();
    options.sort_by_key(|a| a.get_display_order());
    for arg in options {
        let (open, close) = if arg.is_required_set() {
            ("", "")
        } else {
            ("[", "]")
        };
        line.push(roman(open));
        line.extend(synopsis_arg(arg));
        line.push(roman(close));
        line.push(roman(" "));
    }
    for group in &groups {
        line.push(roman("<"));
        for (i, arg) in group.iter().enumerate() {
            if i > 0 {
                line.push(roman("|"));
            }
            line.extend(synopsis_arg(arg));
        }
        line.push(roman("> "));
    }
    for arg in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let many = matches!(arg.get_num_args(), Some(n) if n.max_values() > 1);
        let (open, close) = if arg.is_required_set() {
            ("", "")
        } else {
            ("[", "]")
        };
        line.push(roman(open));
        line.push(italic(value_name(arg)));
        line.push(roman(if many { "..." } else { "" }));
        line.push(roman(close));
        line.push(roman(" "));
    }
    if cmd.has_subcommands() {
        line.push(roman("<"));
        line.push(italic("subcommand"));
        line.push(roman(">"));
    }
    let mut roff = roff::Roff::new();
    roff.control("SH", ["SYNOPSIS"]);
    roff.text(line);
    roff
}

/// An option in the synopsis: `-o|--output <FILE>`, `--first`, `-v...`.
fn synopsis_arg(arg: &clap::Arg) -> Vec<roff::Inline> {
    use roff::{bold, italic, roman};
    let mut inline = Vec::new();
    if let Some(short) = arg.get_short() {
        inline.push(bold(format!("-{short}")));
    }
    if let Some(long) = arg.get_long() {
        if !inline.is_empty() {
            inline.push(roman("|"));
        }
        inline.push(bold(format!("--{long}")));
    }
    if arg.get_action().takes_values() {
        inline.push(roman(" <"));
        inline.push(italic(value_name(arg)));
        inline.push(roman(">"));
    } else if matches!(arg.get_action(), clap::ArgAction::Count) {
        inline.push(roman("..."));
    }
    inline
}

/// An argument's value name (`FILE`), or its id in capitals.
fn value_name(arg: &clap::Arg) -> String {
    match arg.get_value_names() {
        Some(names) => names
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        None => arg.get_id().as_str().to_uppercase(),
    }
}

/// The tasks of the README's "Common tasks" as examples, by command
/// (`campaign plan`), then for the commands no task shows, the example of
/// the README's table of commands; each line is in the README verbatim
/// (a test checks).
const EXAMPLES: &[(&str, &str, &str)] = &[
    (
        "search",
        "The 17s of a grid (this one holds 29 known 17s), one per line:",
        "s17 search 123456789456789123798231564234675918815943276967812435379164852582397641641528397",
    ),
    (
        "search",
        "Is there an 18? One minimal 18-clue puzzle of the grid, or nothing:",
        "s17 search --clues 18 --first 836491752724835961591672438982314576653789124417256893245167389178923645369548217",
    ),
    (
        "scan",
        "Scan a file of grids, the 17s not in the known list kept apart (found.txt.new), resumable after any stop:",
        "s17 scan data/sample-grids.txt --output found.txt --known data/known17.txt --resume",
    ),
    (
        "scan",
        "Which grids of a grid file have an 18 (a grid not in the output has none):",
        "s17 scan slice0.txt -o has18.txt --clues 18 --first",
    ),
    (
        "enumerate",
        "The first two ED grids of slice 0, as a grid file:",
        "s17 enumerate --band 0 | head -2 > slice0.txt",
    ),
    (
        "validate",
        "A sample of the known list's grids, each searched in a random orientation:",
        "s17 validate data/known17.txt --sample 3 --seed 1",
    ),
    (
        "validate",
        "The whole list (about 15 CPU hours), resumable:",
        "s17 validate data/known17.txt --checkpoint validate.ckpt",
    ),
    (
        "campaign plan",
        "Plan one entry that holds a 17:",
        "s17 campaign plan --slices 331:1683769..1683770 --unit-hours 12 -o demo",
    ),
    (
        "campaign plan",
        "Plan the whole catalogue:",
        "s17 campaign plan --slices all --unit-hours 12 -o cat",
    ),
    (
        "campaign plan",
        "Plan the 18 flag of the whole catalogue:",
        "s17 campaign plan --slices all --clues 18 --first --unit-hours 12 -o is18-all",
    ),
    (
        "campaign run",
        "Run unit 0 of a plan:",
        "s17 campaign run demo 0 --threads 1",
    ),
    (
        "campaign status",
        "How far a campaign is (exit 0 once complete):",
        "s17 campaign status demo",
    ),
    (
        "campaign merge",
        "Merge a finished campaign's 17s:",
        "s17 campaign merge demo -o 17s.txt --known data/known17.txt",
    ),
    (
        "campaign merge",
        "Merge an 18 flag campaign into a flag file per slice:",
        "s17 campaign merge is18 -o is18-flags",
    ),
    (
        "campaign flags",
        "The flagged grids of a slice (minlex grid, an 18):",
        "s17 campaign flags is18-flags/slice-324.s17f",
    ),
    (
        "catalogue number",
        "The catalogue number of a grid (any image of it):",
        "echo 123456789456789123789123456214365897365897214897214365531642978642978531978531642 | s17 catalogue number",
    ),
    (
        "catalogue grid",
        "The grids of numbers 1 to 3:",
        "s17 catalogue grid 1..3",
    ),
    (
        "campaign flags",
        "The flagged grids of every slice by catalogue number:",
        "s17 campaign flags is18-flags --numbers",
    ),
    (
        "campaign bitmap",
        "One bit per ED grid, by catalogue number, from a campaign that does not cover every grid:",
        "s17 campaign bitmap is18-flags -o is18.bits --partial",
    ),
    (
        "catalogue has",
        "Has this grid (any image of it) an 18, by the bitmap:",
        "echo 123456789456789123798132564237594618569813247841627395314278956675941832982365471 | tr 12 21 | s17 catalogue has --bitmap is18.bits",
    ),
    (
        "exhaust",
        "Every 17 of one entry of slice 331 (it holds one), resumable:",
        "s17 exhaust --band 331 --entries 1683769..1683770 -o e.txt",
    ),
    (
        "lowest",
        "The lowest clue count of each grid of a file, with a witness, resumable:",
        "s17 lowest --input grids.txt -o low.txt --resume",
    ),
    (
        "solve",
        "Count the solutions of each puzzle, up to 1000:",
        "s17 solve --count --limit 1000 data/solver_cases.txt",
    ),
    (
        "canon",
        "The minlex form of each grid, with its automorphisms:",
        "s17 canon --automorphisms grids.txt",
    ),
    (
        "generate",
        "50 random grids, seeded:",
        "s17 generate -n 50 --seed 1 > random50.txt",
    ),
    (
        "tables verify",
        "Check every band's checksum of the band tables:",
        "s17 tables verify",
    ),
    (
        "tune",
        "Time 20 random grids under three --chunk values:",
        "s17 tune --random 20 --seed 1 --chunk 128,256,512",
    ),
    (
        "completions",
        "Completions in the running bash:",
        "source <(s17 completions bash)",
    ),
    (
        "man",
        "Read the page of exhaust:",
        "s17 man exhaust | man -l -",
    ),
];

/// The examples of the page of `path` (`campaign plan`); the page of `s17`
/// itself has them all, a command's page those of it and below it.
fn examples(
    path: &str,
) -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    EXAMPLES.iter().filter(move |(command, _, _)| {
        path.is_empty() || *command == path || command.starts_with(&format!("{path} "))
    })
}

/// EXAMPLES (if the command has some), EXIT STATUS, ENVIRONMENT, FILES.
fn sections(cmd: &clap::Command) -> roff::Roff {
    use roff::{bold, italic, roman};
    let bin = cmd.get_bin_name().unwrap_or(cmd.get_name());
    let path = bin.strip_prefix("s17").unwrap_or(bin).trim();
    let mut roff = roff::Roff::new();
    let mut any = examples(path).peekable();
    if any.peek().is_some() {
        roff.control("SH", ["EXAMPLES"]);
        for (_, what, line) in any {
            roff.control("TP", []);
            roff.text([roman(*what)]);
            roff.text([bold(*line)]);
        }
    }
    let item = |roff: &mut roff::Roff, term: roff::Inline, text: &str| {
        roff.control("TP", []);
        roff.text([term]);
        roff.text([roman(text)]);
    };
    roff.control("SH", ["EXIT STATUS"]);
    for (code, text) in EXIT_CODES {
        item(&mut roff, bold(*code), text);
    }
    roff.control("SH", ["ENVIRONMENT"]);
    for (name, text) in ENVIRONMENT {
        item(&mut roff, bold(*name), text);
    }
    roff.control("SH", ["FILES"]);
    for (name, text) in FILES {
        item(&mut roff, italic(*name), text);
    }
    roff
}

/// The exit codes of every command (`super::main`, `interrupt::exit_code`,
/// `campaign work`'s time-up code).
const EXIT_CODES: &[(&str, &str)] = &[
    (
        "0",
        "Success: all input was good (campaign status: the campaign is complete).",
    ),
    (
        "1",
        "Some input was bad (reported with file, line and reason; the run went on), or the run failed (a missing file, a lock held by another run, a campaign not complete).",
    ),
    (
        "2",
        "Usage error: an unknown flag or subcommand, a value out of range, an output the output rule refuses.",
    ),
    (
        "75",
        "campaign work stopped for time (--stop-after) with units left; its job script requeues itself.",
    ),
    (
        "130, 143, 129",
        "Stopped by SIGINT (Ctrl-C), SIGTERM or SIGHUP (128 + the signal), after one line saying what was done and how to go on; what was done is kept.",
    ),
];

/// The environment variables s17 reads.
const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "S17_TABLES",
        "The band table file, unless --tables names one (default: s17/bands.s17t in the cache directory).",
    ),
    (
        "XDG_CACHE_HOME",
        "The cache directory on Linux (default ~/.cache): the band tables and the catalogue tables live under s17/ in it.",
    ),
    (
        "S17_CATALOGUE",
        "A directory searched first for the catalogue's count tables (NNN.cnt; NNN.tsv, the older text format, when a directory has no NNN.cnt).",
    ),
    (
        "RUST_LOG",
        "Log filter (tracing's syntax, e.g. debug or s17=trace); overrides -v and -q.",
    ),
    (
        "S17_PORTABLE",
        "1: use the portable kernels, not the CPU's vector instructions (same results, slower).",
    ),
    (
        "S17_PROGRESS_SECS",
        "Seconds between progress lines when stderr is not a terminal (default 60).",
    ),
    ("NO_COLOR", "Set and not empty: no colour in the output."),
    (
        "SLURM_JOB_ID, SLURM_ARRAY_TASK_ID, SLURM_RESTART_COUNT, HOSTNAME",
        "campaign work: who holds a claim (a requeued job retakes its own).",
    ),
];

/// The files s17 reads and writes beside its outputs.
const FILES: &[(&str, &str)] = &[
    (
        "$XDG_CACHE_HOME/s17/bands.s17t",
        "The band tables (~/.cache/s17/bands.s17t; $S17_TABLES or --tables elsewhere), built by s17 tables build.",
    ),
    (
        "$XDG_CACHE_HOME/s17/catalogue/NNN.cnt",
        "Catalogue count table of first band NNN, built by s17 catalogue build (NNN.tsv, the older text format, is read when there is no NNN.cnt).",
    ),
    (
        "FILE.lock",
        "Held while a run writes FILE (its process id inside); another run refuses FILE while it is held.",
    ),
    (
        "FILE.done",
        "The checkpoint of a resumable run writing FILE (scan, exhaust, campaign run): --resume goes on from it.",
    ),
    (
        "FILE.new",
        "scan --known: the 17s found that are not in the known list.",
    ),
    (
        "FILE.times",
        "validate --checkpoint FILE: each finished grid's search time.",
    ),
    (
        "FILE.cost",
        "exhaust and campaign run: each entry's ED grids and CPU seconds.",
    ),
];

/// The options of `cmd` and of every command below it in Markdown, one
/// section a command (`### s17 campaign plan`): its one-line description,
/// its arguments, then each option with its help, default and values, in
/// the order of `--help`. The global options are listed under `s17` only,
/// an option already listed word for word (`seen`: its text and where) by
/// name only.
fn markdown(cmd: &clap::Command, seen: &mut Vec<(String, String)>, out: &mut String) {
    use std::fmt::Write as _;
    let bin = cmd.get_bin_name().unwrap_or(cmd.get_name());
    let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
    let _ = write!(out, "\n### `{bin}`\n\n{}\n", one_line(&about));
    let is_root = bin == "s17";
    let mut args: Vec<&clap::Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && (is_root || !a.is_global_set()))
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
        .collect();
    args.sort_by_key(|a| (!a.is_positional(), a.get_display_order()));
    if !args.is_empty() {
        out.push('\n');
    }
    let mut again: Vec<(String, String)> = Vec::new();
    for arg in args {
        let (name, line) = markdown_item(arg);
        match seen.iter().find(|(text, _)| *text == line) {
            Some((_, first)) => again.push((name, first.clone())),
            None => {
                out.push_str(&line);
                out.push('\n');
                seen.push((line, bin.to_string()));
            }
        }
    }
    let mut firsts: Vec<&String> = again.iter().map(|(_, first)| first).collect();
    firsts.dedup();
    for first in firsts {
        let names: Vec<String> = again
            .iter()
            .filter(|(_, f)| f == first)
            .map(|(name, _)| format!("`{name}`"))
            .collect();
        let _ = writeln!(out, "- As under `{first}`: {}.", names.join(", "));
    }
    for sub in cmd.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        markdown(sub, seen, out);
    }
}

/// An argument's name (`-o, --output <FILE>`, `<GRIDS>...`) and its list
/// item: help, default, values.
fn markdown_item(arg: &clap::Arg) -> (String, String) {
    use std::fmt::Write as _;
    let mut name = String::new();
    if arg.is_positional() {
        name = format!("<{}>", value_name(arg));
        if matches!(arg.get_num_args(), Some(n) if n.max_values() > 1) {
            name += "...";
        }
    } else {
        if let Some(short) = arg.get_short() {
            name = format!("-{short}, ");
        }
        if let Some(long) = arg.get_long() {
            name += &format!("--{long}");
        }
        if arg.get_action().takes_values() {
            name += &format!(" <{}>", value_name(arg));
        }
    }
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| one_line(&h.to_string()))
        .unwrap_or_default();
    let mut line = format!("- `{name}`: {}.", help.trim_end_matches('.'));
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        let _ = write!(line, " Default: `{}`.", defaults.join(" "));
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| format!("`{}`", v.get_name()))
        .collect();
    if !values.is_empty() && !arg.is_hide_possible_values_set() && arg.get_action().takes_values() {
        let _ = write!(line, " Values: {}.", values.join(", "));
    }
    (name, line)
}

/// `text` with its line breaks and runs of spaces as single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The pages of `cmd` and of every subcommand below it, one file each
/// (`s17-campaign-plan.1`).
fn write_pages(cmd: &clap::Command, dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::write(dir.join(man(cmd).get_filename()), page(cmd)?)?;
    for sub in cmd.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        write_pages(sub, dir)?;
    }
    Ok(())
}

/// All of `bytes` on stdout; a closed stdout comes back as `BrokenPipe`.
fn print(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand name of the tree (but `help`) is offered, and no
    /// other word.
    #[test]
    fn man_offers_every_command_name() {
        fn names(cmd: &clap::Command, into: &mut Vec<String>) {
            for sub in cmd.get_subcommands() {
                into.push(sub.get_name().to_string());
                names(sub, into);
            }
        }
        let mut tree = Vec::new();
        names(&command_tree(), &mut tree);
        tree.sort();
        tree.dedup();
        let mut offered: Vec<String> = COMMAND_NAMES.iter().map(|s| s.to_string()).collect();
        offered.sort();
        assert_eq!(offered, tree);
    }

    /// No hidden option of the tree is in any shell's script (clap_complete
    /// offered `man --markdown`, h56), and the visible ones stay.
    #[test]
    fn completions_offer_no_hidden_option() {
        fn hidden(cmd: &clap::Command, into: &mut Vec<String>) {
            let longs = cmd.get_arguments().filter(|a| a.is_hide_set());
            // The bare name: fish writes `-l markdown`, the others `--markdown`.
            into.extend(longs.filter_map(|a| a.get_long()).map(str::to_string));
            for sub in cmd.get_subcommands() {
                hidden(sub, into);
            }
        }
        let mut names = Vec::new();
        hidden(&command_tree(), &mut names);
        assert!(names.contains(&"markdown".to_string()), "{names:?}");
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
            clap_complete::Shell::Elvish,
            clap_complete::Shell::PowerShell,
        ] {
            let mut script = Vec::new();
            clap_complete::generate(
                shell,
                &mut without_hidden(Cli::command()),
                "s17",
                &mut script,
            );
            let script = String::from_utf8(script).unwrap();
            for name in &names {
                assert!(!script.contains(name.as_str()), "{shell}: {name}");
            }
            for visible in ["dir", "clues", "costs", "quiet"] {
                assert!(script.contains(visible), "{shell}: {visible}");
            }
        }
    }
}
