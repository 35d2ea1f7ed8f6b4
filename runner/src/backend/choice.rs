//! What the user asks for with `--backend` (or `RUNNER_BACKEND`): one backend, or `auto`, the
//! default, which is no backend but a rule: the GPU when one works, else the simulator. Every
//! choice resolves to a `contract::Backend` before anything runs.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use contract::Backend;
use std::str::FromStr;

/// Where the user wants kernels to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    /// The GPU when one works, else the simulator (`auto`, or `--backend` left out).
    #[default]
    Auto,
    /// This backend and no other: `--backend gpu` fails where no GPU can be used.
    Only(Backend),
}

impl BackendChoice {
    /// Whether opening a GPU is worth trying: not when the simulator was asked for.
    pub fn may_use_gpu(self) -> bool {
        self != BackendChoice::Only(Backend::Sim)
    }

    /// The backend this choice comes to, where `gpu_works` says whether a GPU can be used
    /// (asked only for `auto`).
    pub fn resolve(self, gpu_works: impl FnOnce() -> bool) -> Backend {
        match self {
            BackendChoice::Only(backend) => backend,
            BackendChoice::Auto if gpu_works() => Backend::Gpu,
            BackendChoice::Auto => Backend::Sim,
        }
    }

    /// The `--backend` word to hand a child process, none for `auto` (the child then decides
    /// the same way, without a flag a script would have to carry).
    pub fn flag(self) -> Option<&'static str> {
        match self {
            BackendChoice::Auto => None,
            BackendChoice::Only(backend) => Some(backend.name()),
        }
    }
}

impl From<Backend> for BackendChoice {
    fn from(backend: Backend) -> BackendChoice {
        BackendChoice::Only(backend)
    }
}

impl std::fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.flag().unwrap_or("auto"))
    }
}

impl FromStr for BackendChoice {
    type Err = contract::UnknownBackend;

    fn from_str(word: &str) -> Result<BackendChoice, contract::UnknownBackend> {
        match word {
            "auto" => Ok(BackendChoice::Auto),
            _ => word.parse().map(BackendChoice::Only),
        }
    }
}

/// The words `--backend` takes, for clap's help and its error on any other word.
pub(super) fn choice_parser() -> impl TypedValueParser<Value = BackendChoice> {
    let words = ["auto"].into_iter().chain(Backend::ALL.map(Backend::name));
    PossibleValuesParser::new(words).try_map(|word| word.parse::<BackendChoice>())
}

/// The words a backend-only flag takes (`runner run --backend`, where `auto` means nothing).
pub fn backend_parser() -> impl TypedValueParser<Value = Backend> {
    PossibleValuesParser::new(Backend::ALL.map(Backend::name))
        .try_map(|word| word.parse::<Backend>())
}

/// `--backend`, as every verb that runs kernels takes it.
#[derive(clap::Args, Clone)]
pub struct BackendArgs {
    /// Where kernels run: gpu, sim, or auto (the default): the GPU when one works, else the
    /// simulator.
    #[arg(long, env = "RUNNER_BACKEND", value_parser = choice_parser(), default_value = "auto")]
    pub backend: BackendChoice,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        backend: BackendArgs,
    }

    fn parse(args: &[&str]) -> Result<BackendChoice, clap::Error> {
        Cli::try_parse_from(["runner"].iter().chain(args)).map(|cli| cli.backend.backend)
    }

    #[test]
    fn each_word_reads_back_as_the_choice_it_prints() {
        let choices = [
            BackendChoice::Auto,
            BackendChoice::Only(Backend::Sim),
            BackendChoice::Only(Backend::Gpu),
        ];
        for choice in choices {
            assert_eq!(choice.to_string().parse(), Ok(choice));
            assert_eq!(parse(&["--backend", &choice.to_string()]).unwrap(), choice);
        }
        assert_eq!(BackendChoice::Auto.to_string(), "auto");
        assert_eq!(BackendChoice::Only(Backend::Gpu).to_string(), "gpu");
    }

    #[test]
    fn backend_left_out_is_auto_and_another_word_is_refused_with_the_words_it_takes() {
        // RUNNER_BACKEND would stand in for a flag left out; the test sets none.
        if std::env::var_os("RUNNER_BACKEND").is_none() {
            assert_eq!(parse(&[]).unwrap(), BackendChoice::Auto);
        }
        let refused = parse(&["--backend", "cuda"]).unwrap_err().to_string();
        assert!(
            refused.contains("[possible values: auto, sim, gpu]"),
            "{refused}"
        );
        assert!("cuda".parse::<BackendChoice>().is_err());
    }

    #[test]
    fn auto_resolves_by_the_gpu_and_a_named_backend_never_asks() {
        assert_eq!(BackendChoice::Auto.resolve(|| true), Backend::Gpu);
        assert_eq!(BackendChoice::Auto.resolve(|| false), Backend::Sim);
        let named = BackendChoice::Only(Backend::Sim);
        assert_eq!(
            named.resolve(|| panic!("a named backend asks nothing")),
            Backend::Sim
        );
        assert!(!named.may_use_gpu());
        assert!(BackendChoice::Auto.may_use_gpu());
        assert_eq!(BackendChoice::Auto.flag(), None);
        assert_eq!(BackendChoice::Only(Backend::Gpu).flag(), Some("gpu"));
    }
}
