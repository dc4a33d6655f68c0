//! What a search looks for ([`Goal`]): puzzles of how many clues, minimal
//! ones only or every valid one, all of them or the first; and every form
//! the goal takes outside the search, in one place:
//!
//! - the words of a checkpoint or plan header ([`Goal`]'s `Display` and
//!   `FromStr`: ` clues=18 first non-minimal`, nothing for every 17, so
//!   the headers written before goals existed still read);
//! - the description for people ([`Goal::description`]: "18s (minimal),
//!   first per visit");
//! - the command-line flags that ask for it ([`Goal::flags`]);
//! - the key of its cost table ([`Goal::cost_key`]: which goals share one);
//! - the goals by name: every minimal N ([`Goal::all`]), the first one
//!   ([`Goal::first_of`]), the 17 search of a first look
//!   ([`Goal::first_look`]);
//! - its special cases: the 17s ([`Goal::seeks_17s`]), the first look ([`Goal::takes_first_look`]), the
//!   row left for last ([`Goal::deferred_row`]), the minimality check
//!   ([`Goal::checks_minimality`]);
//! - the clue range in text ([`clue_range_text`]), for messages and help.

use std::fmt;
use std::str::FromStr;

use super::plan::{self, CLUE_RANGE, CLUES, Counts};

/// What a search looks for: puzzles of how many clues, minimal ones only
/// or every valid one, all of them or the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    /// The clue total N, in [`plan::CLUE_RANGE`].
    pub clues: usize,
    /// Keep the valid puzzles a clue can be removed from too (for N = 18,
    /// a 17 of the grid plus one cell).
    pub non_minimal: bool,
    /// Stop at the first puzzle kept: the result holds it, or nothing.
    pub first: bool,
}

impl Default for Goal {
    /// Every 17.
    fn default() -> Self {
        Goal {
            clues: CLUES,
            non_minimal: false,
            first: false,
        }
    }
}

/// The clue range for people, "LOW to HIGH" ([`plan::CLUE_RANGE`]).
pub fn clue_range_text() -> String {
    format!("{} to {}", CLUE_RANGE.start(), CLUE_RANGE.end())
}

/// Words that do not name a goal ([`Goal`]'s `FromStr`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoalError {
    #[error("clues={0}: not a number")]
    NotANumber(String),
    #[error("clues={clues}: the clue count must be {range}", range = clue_range_text())]
    OutOfRange { clues: usize },
}

impl Goal {
    /// Every minimal puzzle of `clues` clues (`search --clues N`).
    pub fn all(clues: usize) -> Goal {
        Goal {
            clues,
            ..Goal::default()
        }
    }

    /// The first minimal puzzle of `clues` clues, or none
    /// (`search --clues N --first`).
    pub fn first_of(clues: usize) -> Goal {
        Goal {
            first: true,
            ..Goal::all(clues)
        }
    }

    /// The 17 search a first look runs first ([`Self::takes_first_look`]:
    /// an 18 `--first` search): the first 17 of the grid, minimal or not
    /// alike (every 17 is minimal), whose clues the look then extends.
    pub fn first_look() -> Goal {
        Goal::first_of(CLUES)
    }

    /// Whether the goal's puzzles are 17s, the fewest clues a sudoku has
    /// (the known list holds them; `search --clues` defaults to them).
    pub fn seeks_17s(&self) -> bool {
        self.clues == CLUES
    }

    /// Whether a valid puzzle found needs the minimality check: below 18
    /// clues every valid puzzle is minimal (no 16 exists, so no 17 holds
    /// a smaller one).
    pub fn checks_minimality(&self) -> bool {
        self.clues > CLUES && !self.non_minimal
    }

    /// Whether a search for the goal first looks around a 17 of the grid
    /// (`search::look`): the first 18.
    pub fn takes_first_look(&self) -> bool {
        self.clues == CLUES + 1 && self.first
    }

    /// The row a search for the first puzzle leaves for last, after every
    /// other row of every choice: 6-6-6, more than half of an 18 search,
    /// where a puzzle of the other rows ends the search without it (a plan
    /// without that row defers nothing). `None` for a search of them all.
    pub fn deferred_row(&self) -> Option<Counts> {
        self.first.then_some(Counts { x: 6, y: 6, z: 6 })
    }

    /// The goal for people: "17s, all", "18s (minimal), first per visit",
    /// "18s (minimal or not), all".
    pub fn description(&self) -> String {
        let mut text = format!("{}s", self.clues);
        if self.clues != CLUES || self.non_minimal {
            text += if self.non_minimal {
                " (minimal or not)"
            } else {
                " (minimal)"
            };
        }
        text += if self.first {
            ", first per visit"
        } else {
            ", all"
        };
        text
    }

    /// What a flag of this goal says of a grid, for people: "has a minimal
    /// 18 (first per visit)", "has a valid 18" (flag files, bitmaps).
    pub fn flag_text(&self) -> String {
        let what = if self.non_minimal {
            "a valid"
        } else {
            "a minimal"
        };
        let first = if self.first { " (first per visit)" } else { "" };
        format!("has {what} {}{first}", self.clues)
    }

    /// The flags that ask for the goal: `--clues N`, then `--first` and
    /// `--non-minimal` when set.
    pub fn flags(&self) -> String {
        let mut flags = format!("--clues {}", self.clues);
        if self.first {
            flags += " --first";
        }
        if self.non_minimal {
            flags += " --non-minimal";
        }
        flags
    }

    /// The key of the cost table that plans a campaign for the goal: `N`
    /// or `N-first` (the GOAL argument of `tools/ed-costs.sh`); minimal or
    /// not share a table. `None` for 17s, first or not: they share the 17
    /// table (the full search bounds the first).
    pub fn cost_key(&self) -> Option<String> {
        (self.clues != CLUES)
            .then(|| format!("{}{}", self.clues, if self.first { "-first" } else { "" }))
    }
}

impl fmt::Display for Goal {
    /// The goal as the words of a checkpoint header or a campaign's plan:
    /// nothing for the default (every 17), else ` clues=N`, then ` first`
    /// and ` non-minimal` when set (each word after a space).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self != Goal::default() {
            write!(f, " clues={}", self.clues)?;
            if self.first {
                f.write_str(" first")?;
            }
            if self.non_minimal {
                f.write_str(" non-minimal")?;
            }
        }
        Ok(())
    }
}

impl FromStr for Goal {
    type Err = GoalError;

    /// The goal named by the words of a header as `Display` writes them,
    /// among other words (skipped): `clues=N` (default 17), `first`,
    /// `non-minimal`. An error when `clues=` is not a number of
    /// [`plan::CLUE_RANGE`].
    fn from_str(words: &str) -> Result<Goal, GoalError> {
        let mut goal = Goal::default();
        for word in words.split_whitespace() {
            if let Some(n) = word.strip_prefix("clues=") {
                goal.clues = n.parse().map_err(|_| GoalError::NotANumber(n.into()))?;
                if !plan::CLUE_RANGE.contains(&goal.clues) {
                    return Err(GoalError::OutOfRange { clues: goal.clues });
                }
            } else if word == "first" {
                goal.first = true;
            } else if word == "non-minimal" {
                goal.non_minimal = true;
            }
        }
        Ok(goal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_goal() -> impl Iterator<Item = Goal> {
        CLUE_RANGE.flat_map(|clues| {
            [(false, false), (false, true), (true, false), (true, true)].map(
                |(first, non_minimal)| Goal {
                    clues,
                    first,
                    non_minimal,
                },
            )
        })
    }

    #[test]
    fn display_words_round_trip_and_every_17_has_none() {
        assert_eq!(Goal::default().to_string(), "");
        assert_eq!("".parse(), Ok(Goal::default()));
        let goal = Goal {
            clues: 18,
            first: true,
            non_minimal: true,
        };
        assert_eq!(goal.to_string(), " clues=18 first non-minimal");
        for goal in every_goal() {
            let header = format!("# s17 exhaust checkpoint v1 band=3 entries=0..5{goal}");
            assert_eq!(header.parse(), Ok(goal), "{header}");
        }
    }

    #[test]
    fn bad_clue_words_are_refused() {
        assert_eq!(
            "clues=x".parse::<Goal>(),
            Err(GoalError::NotANumber("x".into()))
        );
        let above = CLUE_RANGE.end() + 1;
        assert_eq!(
            format!("clues={above}").parse::<Goal>(),
            Err(GoalError::OutOfRange { clues: above })
        );
    }

    #[test]
    fn descriptions_flags_and_cost_keys() {
        let goal = |clues, first, non_minimal| Goal {
            clues,
            first,
            non_minimal,
        };
        assert_eq!(Goal::default().description(), "17s, all");
        assert_eq!(
            goal(18, true, false).description(),
            "18s (minimal), first per visit"
        );
        assert_eq!(
            goal(18, false, true).description(),
            "18s (minimal or not), all"
        );
        assert_eq!(
            goal(17, false, true).description(),
            "17s (minimal or not), all"
        );
        assert_eq!(Goal::default().flags(), "--clues 17");
        assert_eq!(
            goal(19, true, true).flags(),
            "--clues 19 --first --non-minimal"
        );
        assert_eq!(goal(17, true, false).cost_key(), None);
        assert_eq!(goal(18, false, true).cost_key().as_deref(), Some("18"));
        assert_eq!(goal(18, true, true).cost_key().as_deref(), Some("18-first"));
    }

    #[test]
    fn special_cases() {
        for goal in every_goal() {
            assert_eq!(
                goal.takes_first_look(),
                matches!((goal.clues, goal.first), (18, true))
            );
            assert_eq!(goal.deferred_row().is_some(), goal.first);
            assert_eq!(
                goal.checks_minimality(),
                goal.clues > 17 && !goal.non_minimal
            );
        }
        assert_eq!(clue_range_text(), format!("{} to {}", 16, CLUE_RANGE.end()));
    }

    #[test]
    fn named_goals() {
        for clues in CLUE_RANGE {
            let all = Goal::all(clues);
            assert_eq!(
                all,
                Goal {
                    clues,
                    first: false,
                    non_minimal: false,
                }
            );
            assert_eq!(all.flags(), format!("--clues {clues}"));
            assert_eq!(
                Goal::first_of(clues),
                Goal {
                    clues,
                    first: true,
                    non_minimal: false,
                }
            );
            assert_eq!(
                Goal::first_of(clues).flags(),
                format!("--clues {clues} --first")
            );
        }
        assert_eq!(Goal::all(17), Goal::default());
        // The first look's own search is the first 17, which takes no
        // first look itself and is what an 18 `--first` search looks from.
        let look = Goal::first_look();
        assert_eq!(look, Goal::first_of(17));
        assert!(look.seeks_17s() && !look.takes_first_look());
        assert_eq!(look.description(), "17s, first per visit");
        assert_eq!(look.to_string(), " clues=17 first");
        assert!(Goal::first_of(18).takes_first_look());
    }
}
