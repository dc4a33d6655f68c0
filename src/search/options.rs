//! The tuning options of the search: [`SearchConfig`], and the one table
//! that declares each option once ([`TUNING_OPTIONS`]: flag name, default,
//! range, help). Everything else is built from the table: the defaults,
//! the range check ([`SearchConfig::validate`]), the command-line flags of
//! the searching commands and of `s17 tune` (`cli::common`, `cli::tune`)
//! and the README's table of options (kept equal by `tests/it/options.rs`).
//!
//! No option changes the 17s found: the search only ever uses genuine
//! unavoidable sets, and an option only decides how many are harvested or
//! how many filter early, so it changes the time alone.
//!
//! Each option is one `TuningOption { name, default, min, max, help, get, set
//! }`, `name` being the flag without its dashes (`ua-limit`; the field is the
//! same name with `_`). Built from the table: `SearchConfig::default()` and
//! `SearchConfig::validate()` (a value out of range is
//! `ConfigError::OutOfRange`); the flags of the searching commands
//! (`cli::common::TuningArgs`; it and `tune`'s lists are `TuningGroup`s,
//! whose clap traits the `tuning_group!` macro writes from the table's help,
//! range and default, so a value out of range is a usage error, exit 2,
//! before any file is read); `s17 tune`'s lists (`cli::tune::TuningLists`:
//! one comma-separated list per option, the combinations in table order, one
//! column per option; each value parsed against the range too, exit 2); and
//! README's table of options, a copy that `tests/it/options.rs` compares row by
//! row with the table (it prints the table to paste when they differ) and
//! that also checks every searching command offers every option.
//!
//! Adding an option is one field of `SearchConfig` (with its default), one
//! entry of `TUNING_OPTIONS` and one README row; the unit tests check that
//! each entry's `get` and `set` touch exactly its own field, that defaults
//! lie in their ranges and that names are distinct. The `Debug` form of
//! `SearchConfig` is part of `s17 exhaust`'s checkpoint fingerprint: keep the
//! fields, their names and their order (a unit test pins it). The options
//! decide how many genuine UAs are harvested (`ua12-digits`, `gua-digits`,
//! `fillings`) or get bits in the vectors (`ua-limit` per 2X2Y step;
//! `gua-limit` per X slice and band 3, `exhaust` keeping 8 times as many for
//! the mini-row sockets, shared by an entry's bands 3), and how the XY loop
//! is blocked (`chunk`). Tests: `tests/it/options.rs`, `tests/it/settings.rs`
//! `fillings_from_the_command_line_reach_the_search`, `tests/it/cli.rs`
//! `tuning_values_out_of_range_exit_two`, `tests/it/tune.rs`
//! `fillings_get_a_list_and_a_column`.

use super::harvest::HarvestLimits;

/// Tunable parameters of the search; what each does, its default and its
/// range are in [`TUNING_OPTIONS`].
///
/// The `Debug` form is part of `s17 exhaust`'s checkpoint fingerprint:
/// keep the fields, their names and their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// `--ua-limit`.
    pub ua_limit: usize,
    /// `--gua-limit`.
    pub gua_limit: usize,
    /// `--chunk`.
    pub chunk: usize,
    /// `--ua12-digits`.
    pub ua12_digits: usize,
    /// `--gua-digits`.
    pub gua_digits: usize,
    /// `--fillings`.
    pub fillings: usize,
}

/// One tuning option: a field of [`SearchConfig`] with its flag name,
/// default, range and help.
#[derive(Clone, Copy, Debug)]
pub struct TuningOption {
    /// The command-line flag, without the dashes (`ua-limit` for
    /// `--ua-limit`); the field's name with `_` for `-`.
    pub name: &'static str,
    pub default: usize,
    /// Smallest value allowed.
    pub min: usize,
    /// Largest value allowed.
    pub max: usize,
    /// What the option does (one sentence, no final full stop).
    pub help: &'static str,
    /// Reads the option's field.
    pub get: fn(&SearchConfig) -> usize,
    /// Writes the option's field.
    pub set: fn(&mut SearchConfig, usize),
}

/// A [`TuningOption`] for the field `field` of [`SearchConfig`], read and
/// written by its `get` and `set`.
macro_rules! field_option {
    (field: $field:ident, name: $name:literal, default: $default:expr, min: $min:expr,
     max: $max:expr, help: $help:literal) => {
        TuningOption {
            name: $name,
            default: $default,
            min: $min,
            max: $max,
            help: $help,
            get: |c| c.$field,
            set: |c, v| c.$field = v,
        }
    };
}

/// Every tuning option, once. The order is the order of `--help`, of the
/// README's table and of `s17 tune`'s columns.
pub const TUNING_OPTIONS: [TuningOption; 6] = [
    field_option! {
        field: chunk, name: "chunk", default: 256, min: 16, max: 4096,
        help: "Y vectors per block of the XY inner loop, so that a block stays in cache \
               while every X of the step passes over it (the AVX-512 loop rounds it down \
               to a multiple of 8, at most 256)"
    },
    field_option! {
        field: ua_limit, name: "ua-limit", default: 256, min: 1, max: 256,
        help: "UAs of bands 1+2 kept in the bit vectors of one 2X2Y step (a pair of X and \
               Y slices); the others are checked on each survivor of the inner loop"
    },
    field_option! {
        field: gua_limit, name: "gua-limit", default: 512, min: 0, max: 512,
        help: "gangster UAs kept in the bit vectors of one X slice, per band 3; the others \
               are checked on each survivor (`exhaust`: 8 times as many, for the mini-row \
               sockets only, shared by the bands 3 of an entry)"
    },
    field_option! {
        field: ua12_digits, name: "ua12-digits", default: 4, min: 2, max: 6,
        help: "largest digit subset freed when harvesting UAs of bands 1+2 (every subset \
               of 2 up to this many digits is freed in turn)"
    },
    field_option! {
        field: gua_digits, name: "gua-digits", default: 4, min: 2, max: 6,
        help: "largest digit subset freed when harvesting gangster UAs (raised to the \
               digits of the socket's changed cells when they are more)"
    },
    field_option! {
        field: fillings, name: "fillings", default: 2000, min: 1, max: 1_000_000,
        help: "most fillings of bands 1+2 enumerated per harvest subproblem (one digit \
               subset, of one socket for gangster UAs)"
    },
];

/// The tuning option named `name` (its flag without the dashes).
pub fn tuning_option(name: &str) -> Option<&'static TuningOption> {
    TUNING_OPTIONS.iter().find(|o| o.name == name)
}

/// A tuning value outside its option's range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{name} must be in {min}..={max}, got {got}")]
    OutOfRange {
        name: &'static str,
        min: usize,
        max: usize,
        got: usize,
    },
}

impl Default for SearchConfig {
    /// Every option at its default of [`TUNING_OPTIONS`].
    fn default() -> Self {
        let mut config = SearchConfig {
            ua_limit: 0,
            gua_limit: 0,
            chunk: 0,
            ua12_digits: 0,
            gua_digits: 0,
            fillings: 0,
        };
        for option in &TUNING_OPTIONS {
            (option.set)(&mut config, option.default);
        }
        config
    }
}

impl SearchConfig {
    /// Checks every option against its range in [`TUNING_OPTIONS`]; the
    /// error names the first one out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for option in &TUNING_OPTIONS {
            let got = (option.get)(self);
            if !(option.min..=option.max).contains(&got) {
                return Err(ConfigError::OutOfRange {
                    name: option.name,
                    min: option.min,
                    max: option.max,
                    got,
                });
            }
        }
        Ok(())
    }

    pub(crate) fn harvest_limits(&self) -> HarvestLimits {
        HarvestLimits {
            ua12_digits: self.ua12_digits,
            gua_digits: self.gua_digits,
            fillings: self.fillings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults of before the table, field by field.
    #[test]
    fn the_defaults_are_the_table_s() {
        assert_eq!(
            SearchConfig::default(),
            SearchConfig {
                ua_limit: 256,
                gua_limit: 512,
                chunk: 256,
                ua12_digits: 4,
                gua_digits: 4,
                fillings: 2000,
            }
        );
        SearchConfig::default().validate().unwrap();
        assert_eq!(
            format!("{:?}", SearchConfig::default()),
            "SearchConfig { ua_limit: 256, gua_limit: 512, chunk: 256, ua12_digits: 4, \
             gua_digits: 4, fillings: 2000 }",
            "the Debug form is in exhaust's checkpoint fingerprint"
        );
    }

    /// Each option reads and writes its own field, named like its flag,
    /// and no other; names are distinct; defaults lie in their ranges.
    #[test]
    fn each_option_owns_one_field() {
        let debug = format!("{:?}", SearchConfig::default());
        for (k, option) in TUNING_OPTIONS.iter().enumerate() {
            assert!(option.min <= option.default && option.default <= option.max);
            assert!(!option.help.ends_with('.'), "{}", option.name);
            let field = option.name.replace('-', "_");
            assert!(debug.contains(&format!(" {field}: ")), "{}", option.name);
            assert_eq!(tuning_option(option.name).unwrap().name, option.name);
            let mut config = SearchConfig::default();
            (option.set)(&mut config, 7);
            assert_eq!((option.get)(&config), 7);
            assert!(format!("{config:?}").contains(&format!(" {field}: 7")));
            for (j, other) in TUNING_OPTIONS.iter().enumerate() {
                if j != k {
                    assert_eq!((other.get)(&config), other.default, "{}", option.name);
                }
            }
        }
        assert_eq!(tuning_option("bogus").map(|o| o.name), None);
    }

    #[test]
    fn out_of_range_values_name_the_option() {
        for option in &TUNING_OPTIONS {
            let mut config = SearchConfig::default();
            (option.set)(&mut config, option.max);
            config.validate().unwrap();
            (option.set)(&mut config, option.min);
            config.validate().unwrap();
            (option.set)(&mut config, option.max + 1);
            let err = config.validate().unwrap_err();
            assert_eq!(
                err,
                ConfigError::OutOfRange {
                    name: option.name,
                    min: option.min,
                    max: option.max,
                    got: option.max + 1,
                }
            );
            if option.min > 0 {
                (option.set)(&mut config, option.min - 1);
                assert!(config.validate().is_err());
            }
        }
        let config = SearchConfig {
            chunk: 1,
            ..SearchConfig::default()
        };
        assert_eq!(
            config.validate().unwrap_err().to_string(),
            "chunk must be in 16..=4096, got 1"
        );
    }
}
