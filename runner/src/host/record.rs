//! The driver's record of a program's run ([`contract::DriverRecord`], which `libsimcuda`
//! writes at the program's exit), read back: refused with a message that says what to do when
//! another build of the driver wrote it, never misread.

use contract::DRIVER_RECORD_VERSION;
pub use contract::{Direction, DriverRecord as Record, Launch};
use serde::Deserialize;

/// Why a record could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The record's JSON is broken or of another shape.
    #[error("the driver's record is not a record: {0}")]
    Malformed(#[from] serde_json::Error),
    #[error(
        "the driver's record is of version {found}, and this runner reads version \
         {DRIVER_RECORD_VERSION}: libsimcuda.so comes from another build of the course; rebuild \
         both with `cargo build --release -p runner -p simdriver`"
    )]
    /// The record is of another version than this runner reads.
    OtherVersion {
        /// The version the record says it is.
        found: u32,
    },
}

/// The version alone, read first: a record of another shape still says which it is.
#[derive(Deserialize)]
struct Version {
    #[serde(default)]
    version: u32,
}

/// Reads a record the driver wrote.
pub fn parse(text: &str) -> Result<Record, ReadError> {
    let Version { version } = serde_json::from_str(text)?;
    if version != DRIVER_RECORD_VERSION {
        return Err(ReadError::OtherVersion { found: version });
    }
    Ok(serde_json::from_str(text)?)
}

/// Which kernels of some records are the exercise's entries: those named after an entry
/// ([`super::kernel_named`]), and, where entries have none, the kernels named after no entry,
/// which stand for them under the program's own names (`vectorize(...)(half_hypot)` launches
/// `__vectorized_half_hypot` for py01's `scaled_hypot`), if there are at least as many. A kernel
/// of another name beside every entry's is the program's own helper (one that zeroes an array).
pub struct EntryKernels<'e> {
    entries: &'e [String],
    /// The entries a kernel of their name ran for.
    named: Vec<&'e str>,
    /// Launched kernels named after no entry that stand for the entries without one.
    renamed: Vec<String>,
}

impl<'e> EntryKernels<'e> {
    /// The entries' kernels among every kernel `records` launched, alone or in a graph.
    pub fn of(entries: &'e [String], records: &[&Record]) -> EntryKernels<'e> {
        let mut launched: Vec<&str> = Vec::new();
        for record in records {
            let graphs = record.graphs.iter().filter(|g| g.launches > 0);
            let names = record.launches.iter().map(|l| l.kernel.as_str());
            let names = names.chain(graphs.flat_map(|g| g.kernels.iter().map(String::as_str)));
            for name in names {
                if !launched.contains(&name) {
                    launched.push(name);
                }
            }
        }
        let after = |entry: &str| launched.iter().any(|name| super::kernel_named(name, entry));
        let named: Vec<&str> = entries
            .iter()
            .map(String::as_str)
            .filter(|e| after(e))
            .collect();
        let others: Vec<String> = launched
            .iter()
            .filter(|name| !entries.iter().any(|e| super::kernel_named(name, e)))
            .map(|name| name.to_string())
            .collect();
        let unnamed = entries.len() - named.len();
        let renamed = if unnamed > 0 && others.len() >= unnamed {
            others
        } else {
            Vec::new()
        };
        EntryKernels {
            entries,
            named,
            renamed,
        }
    }

    /// Whether the launched kernel `name` is one of the entries'.
    pub fn holds(&self, name: &str) -> bool {
        self.entries.iter().any(|e| super::kernel_named(name, e))
            || self.renamed.iter().any(|r| r == name)
    }

    /// Whether `entry` ran: a kernel of its name, or one under another name standing for it.
    pub fn launched(&self, entry: &str) -> bool {
        self.named.contains(&entry) || !self.renamed.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of launches of `kernels`, in order.
    fn launched(kernels: &[&str]) -> Record {
        let launches = kernels.iter().map(|k| Launch {
            kernel: k.to_string(),
            ..Launch::default()
        });
        Record {
            launches: launches.collect(),
            ..Record::default()
        }
    }

    fn entries(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_kernel_under_the_programs_own_name_stands_for_the_entry() {
        // py01 written as scaled_hypot = vectorize(...)(half_hypot): a correct program.
        let py01 = entries(&["scaled_hypot"]);
        let record = launched(&["__main__::__vectorized_half_hypot"]);
        let theirs = EntryKernels::of(&py01, &[&record]);
        assert!(theirs.launched("scaled_hypot"));
        assert!(theirs.holds("__main__::__vectorized_half_hypot"));
    }

    #[test]
    fn a_helper_beside_the_entrys_kernel_is_the_programs_own() {
        let py05 = entries(&["count_hits"]);
        let record = launched(&["__main__::zero", "__main__::count_hits"]);
        let theirs = EntryKernels::of(&py05, &[&record]);
        assert!(theirs.launched("count_hits"));
        assert!(theirs.holds("__main__::count_hits"));
        assert!(!theirs.holds("__main__::zero"));
    }

    #[test]
    fn an_entry_is_unlaunched_where_no_other_kernel_can_stand_for_it() {
        // py14 without its second kernel: the scan's kernel is the scan's, not add_offsets'.
        let py14 = entries(&["block_scan", "add_offsets"]);
        let record = launched(&["__main__::block_scan"]);
        let theirs = EntryKernels::of(&py14, &[&record]);
        assert!(theirs.launched("block_scan"));
        assert!(!theirs.launched("add_offsets"));
        // A CPU ufunc leaves no launch at all.
        let none = EntryKernels::of(&py14, &[]);
        assert!(!none.launched("block_scan"));
    }

    #[test]
    fn a_record_of_another_version_is_refused_with_what_to_do() {
        let mut record = Record {
            version: DRIVER_RECORD_VERSION,
            ..Record::default()
        };
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(parse(&text).unwrap().version, DRIVER_RECORD_VERSION);
        record.version = DRIVER_RECORD_VERSION + 1;
        let text = serde_json::to_string(&record).unwrap();
        let err = parse(&text).unwrap_err().to_string();
        assert!(
            err.contains("cargo build --release -p runner -p simdriver"),
            "{err}"
        );
        let err = parse("{\"calls\": {}}").unwrap_err();
        assert!(matches!(err, ReadError::OtherVersion { found: 0 }), "{err}");
    }
}
