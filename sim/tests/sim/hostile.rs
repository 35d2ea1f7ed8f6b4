//! Hostile PTX: declared sizes past what a GPU takes are refused with the line that declares them,
//! before anything is allocated from them, and a kernel the simulator cannot run costs only itself.

use super::common::*;
use sim::{Launch, Machine, Module, SimError};

/// A module with one kernel `k(int* out)` whose body starts with `decl`; it stores 7 to out[0].
fn kernel_with(decl: &str) -> String {
    format!(
        ".version 8.8\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 k_param_0)\n{{\n{decl}\n\
         .reg .b32 %x<2>;\n.reg .b64 %p<3>;\n\
         ld.param.u64 %p1, [k_param_0];\ncvta.to.global.u64 %p2, %p1;\n\
         mov.u32 %x1, 7;\nst.global.u32 [%p2], %x1;\nret;\n}}\n"
    )
}

fn parse_error(ptx: &str) -> String {
    match Module::parse(ptx) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("the module loaded:\n{ptx}"),
    }
}

fn stores_seven(ptx: &str) {
    let module = Module::parse(ptx).unwrap_or_else(|e| panic!("{e}"));
    let mut m = Machine::new();
    let out = upload(&mut m, &[0u32]);
    launch(
        &mut m,
        &module,
        "k",
        [1, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(out)],
    );
    assert_eq!(download_u32(&m, out, 1), [7]);
}

#[test]
fn a_register_declaration_past_the_bound_is_refused_naming_its_line() {
    for n in ["20000000", "4294967297", "99999999999999"] {
        let text = parse_error(&kernel_with(&format!(".reg .b32 %r<{n}>;")));
        assert!(
            text.contains("line 6") && text.contains(&format!("declares {n} registers")),
            "{text}"
        );
    }
}

#[test]
fn millions_of_declared_registers_cost_only_those_used() {
    // 4 million declared and two used: the launch runs 32 threads as for any small kernel.
    let ptx = kernel_with(".reg .b32 %r<4000000>;\n.reg .pred %q<4000000>;").replace(
        "mov.u32 %x1, 7;",
        "mov.u32 %r3999999, 7;\nmov.u32 %x1, %r3999999;",
    );
    stores_seven(&ptx);
    // A member past the declared count is not a register.
    let past = kernel_with(".reg .b32 %r<4>;").replace("mov.u32 %x1, 7;", "mov.u32 %r4, 7;");
    assert!(Module::parse(&past).is_err());
}

#[test]
fn kernel_parameters_past_32764_bytes_are_refused_at_load_as_ptxas_does() {
    let text = parse_error(&kernel_with("").replace(
        "(.param .u64 k_param_0)",
        "(.param .u64 k_param_0, .param .align 1 .b8 big[4294967296])",
    ));
    assert!(
        text.contains("line 4") && text.contains("past the 4 GiB"),
        "{text}"
    );
    for size in ["4294967295", "32768"] {
        let ptx = kernel_with("").replace(
            "(.param .u64 k_param_0)",
            &format!("(.param .u64 k_param_0, .param .align 1 .b8 big[{size}])"),
        );
        let text = parse_error(&ptx);
        assert!(
            text.contains("uses too much parameter space") && text.contains("0x7ffc max"),
            "{size}: {text}"
        );
    }
    let overflow = kernel_with("").replace(
        "(.param .u64 k_param_0)",
        "(.param .u64 k_param_0, .param .align 8 .b64 big[2305843009213693952])",
    );
    assert!(parse_error(&overflow).contains("past the 4 GiB"));
}

#[test]
fn arrays_past_4_gib_or_whose_size_overflows_are_refused_naming_their_line() {
    for decl in [
        ".local .align 4 .b8 a[5000000000];",
        ".shared .align 4 .b32 a[4294967296][4294967296];",
        ".local .align 8 .b64 a[18446744073709551615];",
    ] {
        let text = parse_error(&kernel_with(decl));
        assert!(
            text.contains("line 6") && text.contains("past the 4 GiB"),
            "{decl}: {text}"
        );
    }
    let text = parse_error(&format!(
        ".version 8.8\n.target sm_80\n.global .align 4 .b32 g[4294967296][16];\n{}",
        kernel_with("").split_once(".address_size 64\n").unwrap().1
    ));
    assert!(
        text.contains("line 3") && text.contains("past the 4 GiB"),
        "{text}"
    );
}

#[test]
fn alignments_must_be_powers_of_two() {
    for align in ["3", "0", "4294967296"] {
        let text = parse_error(&kernel_with(&format!(".local .align {align} .b8 a[4];")));
        assert!(text.contains("not a power of two"), "{align}: {text}");
    }
}

#[test]
fn layouts_past_4_gib_are_refused_at_launch_not_wrapped_around() {
    // Two 3 GiB shared arrays: each fits the parser's bound, together they must not wrap to 2 GiB.
    for space in ["shared", "local"] {
        let ptx = kernel_with(&format!(
            ".{space} .align 4 .b8 a[3221225472];\n.{space} .align 4 .b8 b[3221225472];"
        ));
        let module = Module::parse(&ptx).unwrap();
        let mut m = Machine::new();
        let out = upload(&mut m, &[0u32]);
        let l = Launch::new("k", [1, 1, 1], [1, 1, 1], vec![out.to_le_bytes().to_vec()]);
        let err = m
            .launch(&module, &l)
            .expect_err("no GPU holds 6 GiB per block");
        assert!(
            matches!(err, SimError::TooManyResources { ref ptxas, .. } if ptxas.contains("0xffffffff bytes")),
            "{space}: {err}"
        );
    }
}

#[test]
fn a_body_that_cannot_be_read_costs_only_the_kernels_that_run_it() {
    // `odd` uses a directive the simulator does not read; `k` and the module still load.
    let ptx = kernel_with("").replacen(
        ".visible .entry k",
        ".visible .entry odd()\n{\n.reg .b32 %r<2>;\n.unheard_of %r1;\nret;\n}\n\
         .visible .entry k",
        1,
    );
    let module = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}"));
    let why = module.lowering_error("odd").expect("odd is refused");
    assert!(
        why.contains("line 7") && why.contains("unsupported directive `.unheard_of`"),
        "{why}"
    );
    stores_seven(&ptx);
    // A module whose only kernel cannot be read is refused with the same error.
    let only = ptx.split(".visible .entry k").next().unwrap();
    assert!(parse_error(only).contains("line 7"));
}
