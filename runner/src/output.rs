//! Writing a command's output to stdout when the reader may go away (`runner list | head`): a
//! closed pipe ends the command quietly and successfully, as it ends `ls` or `cat`, instead of a
//! panic in `println!`.

use std::io::Write;
use std::process::ExitCode;

/// Writes `text` to stdout and flushes it.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// The command's result, with a write to a closed pipe turned into a quiet success.
pub fn quiet_when_closed(result: anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    match result {
        Err(err)
            if err
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(ExitCode::SUCCESS)
        }
        other => other,
    }
}
