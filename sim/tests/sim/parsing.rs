//! Every fixture parses and lowers; unsupported features are errors that name what and where.

use super::common::*;
use sim::{Module, SimError};

#[test]
fn every_fixture_parses() {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(fixture_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ptx") {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            if name != "recursion" {
                let m = module(&name);
                assert!(!m.kernels().is_empty(), "{name} has kernels");
            }
            names.push(name);
        }
    }
    assert!(names.len() >= 20, "fixtures found: {names:?}");
}

#[test]
fn kernel_parameters_are_listed() {
    let m = module("vector_add");
    let k = m.kernel("vector_add").expect("kernel");
    let sizes: Vec<u32> = k.params.iter().map(|p| p.size_bytes).collect();
    assert_eq!(sizes, vec![8, 8, 8, 4]);
    assert!(m.kernel("nope").is_none());
}

#[test]
fn recursion_is_unsupported_with_its_source_line() {
    let ptx = std::fs::read_to_string(fixture_dir().join("recursion.ptx")).unwrap();
    match Module::parse(&ptx) {
        Err(SimError::Unsupported { what, location, .. }) => {
            assert!(what.contains("recursive"), "{what}");
            let loc = location.expect("a source location");
            assert!(loc.file.ends_with("recursion.cu"));
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn unknown_instruction_is_unsupported() {
    let ptx = std::fs::read_to_string(fixture_dir().join("vector_add.ptx")).unwrap();
    let ptx = ptx.replacen("add.f32", "tex.f32", 1);
    // The module's other kernels still run; this one says what it cannot do, and where.
    let module = Module::parse(&ptx).unwrap();
    let text = module.lowering_error("vector_add").unwrap();
    assert!(
        text.contains("does not support instruction `tex.f32`") && text.contains("vector_add.cu:5"),
        "{text}"
    );
    assert!(module.kernel("vector_add_unguarded").is_some());
    // A module with no kernel left to run is an error in itself.
    let only = ptx
        .split(".visible .entry vector_add_unguarded")
        .next()
        .unwrap();
    let err = Module::parse(only).unwrap_err();
    assert!(matches!(err, SimError::Unsupported { .. }), "{err}");
}

#[test]
fn parse_errors_name_the_ptx_line() {
    let err = Module::parse(".version 8.8\n.target sm_80\n.visible .entry k( {\n").unwrap_err();
    assert!(matches!(err, SimError::Parse { .. }), "{err}");
}
