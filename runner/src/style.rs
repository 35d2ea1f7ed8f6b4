//! Whether output is coloured, decided once: off under NO_COLOR, TERM=dumb, or when stdout is
//! not a terminal, unless `--color` says otherwise.

use clap::ValueEnum;
use std::io::IsTerminal;

/// `--color`: whether output is coloured.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum ColorChoice {
    /// Coloured on a terminal, unless NO_COLOR or TERM=dumb says not.
    #[default]
    Auto,
    /// Coloured even into a pipe or a file.
    Always,
    /// Never coloured.
    Never,
}

/// Turns colour on or off for the whole process, as `choice` and the environment decide.
pub fn apply(choice: ColorChoice) {
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var("TERM").map_or(true, |t| t != "dumb")
                && std::io::stdout().is_terminal()
        }
    };
    colored::control::set_override(on);
}
