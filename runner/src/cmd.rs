//! One module per verb; this one dispatches.

pub mod bench;
pub mod check;
pub mod dev;
pub mod doctor;
pub mod grade;
pub mod hint;
pub mod list;
pub mod quiz;
pub mod reset;
pub mod run;
pub mod serve;
pub mod sim;
pub mod watch;

use crate::cli::{Command, DevCommand};
use std::process::ExitCode;

pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::List { json } => list::run(json),
        Command::Check(args) => check::run(args),
        Command::Hint { id } => hint::run(&id),
        Command::Reset { id } => reset::run(&id),
        Command::Quiz { chapter } => quiz::run(chapter.as_deref()),
        Command::Watch {
            id,
            bench: Some(times),
            backend,
            ..
        } => watch::bench(id, times, backend.backend),
        Command::Watch {
            id,
            manual_run,
            bench: None,
            backend,
        } => watch::run(id, manual_run, backend.backend),
        Command::Serve { backend, announce } => serve::run(backend.backend, announce),
        Command::Doctor => doctor::run(),
        Command::Bench(args) => bench::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Run(args) => run::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Dev(DevCommand::Check { ids, backend }) => dev::check(&ids, backend.backend),
    }
}
