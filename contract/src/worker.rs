//! The worker protocol: what `runner watch` and `runner-grade` say to `runner __serve`, a worker
//! that checks kernel after kernel with NVRTC loaded and the backend open, and what it answers.
//!
//! - Requests: one JSON [`Request`] a line on the worker's stdin.
//! - Answers: one JSON [`Message`] a line on a descriptor the starting program hands the worker
//!   for its answers alone (`runner __serve --reply-fd N`, or the grader's sandbox's report
//!   descriptor), closed to every process the worker starts. The worker's stdout is left to what
//!   the kernels print (a GPU prints a kernel's `printf` there), so nothing a student's code
//!   prints can pass for an answer.

use crate::CheckReport;
use serde::{Deserialize, Serialize};

/// The protocol's version, raised whenever [`Request`], [`Message`] or [`Reply`] changes. 3:
/// answers on a descriptor of their own as [`Message`]s (2 wrote them on stdout behind a marker).
pub const PROTOCOL: u32 = 3;

/// One check to make.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The [`PROTOCOL`] the asker speaks; a worker answers another with an error.
    pub protocol: u32,
    /// The exercise's id, e.g. `02`.
    pub exercise: String,
    /// A file to check instead of the exercise's own (as `runner check --file`).
    #[serde(default)]
    pub file: Option<std::path::PathBuf>,
    /// The seed of the random inputs (as `runner check --seed`).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Problem sizes to test beyond the exercise's own (as `runner check --sizes`).
    #[serde(default)]
    pub sizes: Vec<usize>,
}

impl Request {
    /// A check of `exercise` in this protocol, of its own file, with its own inputs.
    pub fn check(exercise: &str) -> Request {
        Request {
            protocol: PROTOCOL,
            exercise: exercise.to_string(),
            file: None,
            seed: None,
            sizes: Vec::new(),
        }
    }
}

/// One line a worker writes on its answers' descriptor.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "message", rename_all = "snake_case")]
pub enum Message {
    /// NVRTC is loaded and the backend open (`--announce`): the first request's time limit
    /// need not count the start.
    Ready {
        /// The [`PROTOCOL`] the worker speaks.
        protocol: u32,
    },
    /// The answer to the oldest request not yet answered.
    Reply(Reply),
}

/// The answer to one [`Request`]: the report, or why no check could be made.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply {
    /// The [`PROTOCOL`] the worker speaks.
    pub protocol: u32,
    /// The check's report, where a check could be made.
    pub report: Option<Box<CheckReport>>,
    /// Why no check could be made.
    pub error: Option<String>,
    /// The worker ends after this reply: its GPU context may be unusable.
    pub ending: bool,
}

impl Reply {
    /// A reply saying no check could be made, and why; the worker goes on.
    pub fn error(error: String) -> Reply {
        Reply {
            protocol: PROTOCOL,
            report: None,
            error: Some(error),
            ending: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_says_what_it_is() {
        let ready = serde_json::to_string(&Message::Ready { protocol: PROTOCOL }).unwrap();
        assert_eq!(ready, r#"{"message":"ready","protocol":3}"#);
        let reply = Message::Reply(Reply::error("no k.cu".into()));
        let read: Message = serde_json::from_str(&serde_json::to_string(&reply).unwrap()).unwrap();
        let Message::Reply(reply) = read else {
            panic!("a reply read back as something else")
        };
        assert_eq!(
            (reply.error.as_deref(), reply.ending),
            (Some("no k.cu"), false)
        );
    }

    #[test]
    fn a_request_names_what_to_check_and_leaves_the_rest_to_defaults() {
        let read: Request = serde_json::from_str(r#"{"protocol": 3, "exercise": "02"}"#).unwrap();
        assert_eq!(read, Request::check("02"));
    }
}
