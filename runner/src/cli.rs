//! The command line: the global options and the verbs ([`crate::cmd`] holds each verb's own
//! arguments, with their doc comments as the help text, and dispatches them).

use crate::style::ColorChoice;
use clap::Parser;

/// The verbs and the backend flags, by the names another binary of the course uses
/// (`runner-grade` parses a check's command line and runs it in its own process).
pub use crate::backend::{BackendArgs, BackendChoice};
pub use crate::cmd::check::CheckArgs;
pub use crate::cmd::{Command, DevCommand};

#[derive(Parser)]
#[command(
    name = "runner",
    version,
    about = "Check, time and explain the course's CUDA exercises, on a GPU or in the simulator"
)]
/// `runner`'s command line.
pub struct Cli {
    /// Colour the output: auto (when a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, global = true, value_enum, default_value_t)]
    pub color: ColorChoice,
    /// The verb.
    #[command(subcommand)]
    pub command: Command,
}
