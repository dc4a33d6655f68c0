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
    "build",
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
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "s17", &mut script);
    print(&script)?;
    Ok(true)
}

pub fn run_man(args: ManArgs) -> Outcome {
    let root = command_tree();
    if let Some(dir) = args.dir {
        crate::output::make_dir("--dir", &dir, false).map_err(super::resumable::into_error)?;
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
    let mut page = Vec::new();
    man(cmd).render(&mut page)?;
    print(&page)?;
    Ok(true)
}

/// The page of `cmd`, its footer naming s17 and its version on every page
/// (clap_mangen's default names the subcommand alone).
fn man(cmd: &clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd.clone()).source(format!("s17 {}", env!("CARGO_PKG_VERSION")))
}

/// The pages of `cmd` and of every subcommand below it, one file each
/// (`s17-campaign-plan.1`).
fn write_pages(cmd: &clap::Command, dir: &std::path::Path) -> std::io::Result<()> {
    man(cmd).generate_to(dir)?;
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
}
