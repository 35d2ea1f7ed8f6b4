//! The oldest GNU C library the packed runner starts with, read from its ELF version needs
//! (the highest `GLIBC_x.y` it asks for), so the instructor learns at zip time which
//! Gradescope image it runs on, and `setup.sh` can stop the image's build where it does not.
//!
//! A static musl build, which would run anywhere, cannot grade: a static musl program cannot
//! `dlopen` at all ("Dynamic loading not supported"), and a dynamic one cannot load NVRTC's
//! glibc-linked library, which the runner needs to compile every kernel. A portable runner is
//! instead a glibc build against an old glibc (scripts/build-portable-runner).

use anyhow::Context;
use object::elf::FileHeader64;
use object::read::elf::FileHeader;
use object::Endianness;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Version {
    pub major: u32,
    pub minor: u32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

fn parse(name: &[u8]) -> Option<Version> {
    let text = std::str::from_utf8(name).ok()?.strip_prefix("GLIBC_")?;
    let (major, minor) = text.split_once('.').unwrap_or((text, "0"));
    let minor = minor.split('.').next()?;
    Some(Version {
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
    })
}

/// The highest glibc version a 64-bit ELF program needs; None for one that needs none (a
/// static program).
pub(crate) fn needed(program: &[u8]) -> anyhow::Result<Option<Version>> {
    let header = FileHeader64::<Endianness>::parse(program).context("not a 64-bit ELF program")?;
    let endian = header.endian()?;
    let sections = header.sections(endian, program)?;
    let Some((mut needs, link)) = sections.gnu_verneed(endian, program)? else {
        return Ok(None);
    };
    let strings = sections.strings(endian, program, link)?;
    let mut highest = None;
    while let Some((_, mut aux)) = needs.next()? {
        while let Some(entry) = aux.next()? {
            highest = highest.max(parse(entry.name(endian, strings)?));
        }
    }
    Ok(highest)
}

/// The first Ubuntu release (Gradescope's base images are Ubuntu) whose glibc is `version` or
/// newer. Each LTS release's glibc, as its libc6 package gives it (packages.ubuntu.com):
/// xenial 2.23-0ubuntu3, bionic 2.27-3ubuntu1, focal 2.31-0ubuntu9, jammy 2.35-0ubuntu3, noble
/// 2.39-0ubuntu8.
pub(crate) fn first_ubuntu(version: Version) -> Option<&'static str> {
    const RELEASES: [(u32, &str); 5] = [
        (23, "16.04"),
        (27, "18.04"),
        (31, "20.04"),
        (35, "22.04"),
        (39, "24.04"),
    ];
    RELEASES
        .iter()
        .find(|(minor, _)| version.major == 2 && version.minor <= *minor)
        .map(|(_, release)| *release)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_built_here_needs_a_glibc_and_the_ubuntu_that_has_it_is_named() {
        let program = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let floor = needed(&program).unwrap().expect("a glibc program");
        // Every version the program names is in its bytes; the highest is the one it needs.
        let named = program
            .windows(12)
            .filter_map(|w| w.strip_prefix(b"GLIBC_2."))
            .filter_map(|rest| {
                let digits: String = rest
                    .iter()
                    .map(|b| *b as char)
                    .take_while(char::is_ascii_digit)
                    .collect();
                Some(Version {
                    major: 2,
                    minor: digits.parse().ok()?,
                })
            })
            .max();
        assert_eq!(Some(floor), named);
        let v = |minor| Version { major: 2, minor };
        assert_eq!(first_ubuntu(v(17)), Some("16.04"));
        assert_eq!(first_ubuntu(v(23)), Some("16.04"), "xenial has 2.23");
        assert_eq!(first_ubuntu(v(24)), Some("18.04"));
        assert_eq!(first_ubuntu(v(34)), Some("22.04"));
        assert_eq!(first_ubuntu(v(35)), Some("22.04"));
        assert_eq!(first_ubuntu(v(40)), None);
        assert_eq!(parse(b"GLIBC_2.2.5"), Some(v(2)));
        assert_eq!(parse(b"GLIBC_PRIVATE"), None);
        assert!(needed(b"#!/bin/sh\n").is_err());
    }
}
