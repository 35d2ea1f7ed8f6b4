//! `runner sim` as a profiler for a student's own code: include folders and macros, inputs from
//! .npy and raw files, outputs as .npy, every buffer and scalar type, variables set by name, a
//! plan chaining launches over named buffers, and the per-line table sorted by cost.

mod common;

use common::{repo_root, Run, TestCourse};
use npyz::WriterBuilder;
use std::path::Path;

/// A course copy with the fixture folder at `p/`, where the commands run from.
fn course() -> TestCourse {
    let course = TestCourse::new();
    let from = repo_root().join("runner/tests/fixtures/sim_profiler");
    std::fs::create_dir_all(course.path("p/include")).unwrap();
    for file in ["kernels.cu", "chain.toml", "include/factor.h"] {
        std::fs::copy(from.join(file), course.path(&format!("p/{file}"))).unwrap();
    }
    course
}

/// `runner sim` with `args` (split at spaces; no value here has one), run in `p/`.
fn sim(course: &TestCourse, args: &str) -> Run {
    let mut all = vec!["sim"];
    all.extend(args.split_whitespace());
    let mut command = course.command(&all);
    command.current_dir(course.path("p"));
    let output = command.output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs and expects success.
fn sim_ok(course: &TestCourse, args: &str) -> Run {
    let run = sim(course, args);
    assert_eq!(run.code, 0, "runner sim {args}: {}", run.all());
    run
}

/// Runs and expects the usage error (exit 2) whose message has every one of `parts`.
fn sim_fails_saying(course: &TestCourse, args: &str, parts: &[&str]) {
    let run = sim(course, args);
    assert_eq!(run.code, 2, "runner sim {args}: {}", run.all());
    for part in parts {
        assert!(
            run.stderr.contains(part),
            "{part:?} missing: {}",
            run.stderr
        );
    }
}

fn npy<T: npyz::Deserialize>(path: &Path) -> (Vec<u64>, Vec<T>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = npyz::NpyFile::new(&bytes[..]).unwrap();
    (file.shape().to_vec(), file.into_vec().unwrap())
}

fn write_npy<T: npyz::Serialize + npyz::AutoSerialize + Copy>(
    path: &Path,
    shape: &[u64],
    data: &[T],
) {
    let mut out = Vec::new();
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(&mut out)
        .begin_nd()
        .unwrap();
    writer.extend(data.iter().copied()).unwrap();
    writer.finish().unwrap();
    std::fs::write(path, out).unwrap();
}

/// y[i] = scale * coeffs[i % 4] * x[i] * FACTOR + OFFSET over x = 0..8.
const SCALE_BY: &str = "kernels.cu --kernel scale_by --grid 1 --block 32 \
    --arg f32[8]=iota --arg f32[8]=zeros --arg i32=8 --out o";

#[test]
fn include_folders_and_macros_reach_the_compile_and_its_cache_key() {
    let course = course();
    let with = |extra: &str| format!("{SCALE_BY} --set coeffs=f32[]=1 --set scale=f32=1 {extra}");
    sim_fails_saying(&course, &with(""), &["factor.h", "-I DIR"]);
    sim_ok(&course, &with("-I include -D OFFSET=100"));
    let (_, y) = npy::<f32>(&course.path("p/o/arg1.npy"));
    assert_eq!(y, [100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0]);
    // A header found through -I changes the result, so it must change the cache key too.
    std::fs::write(course.path("p/include/factor.h"), "#define FACTOR 3\n").unwrap();
    sim_ok(&course, &with("-I include -D OFFSET=100"));
    let (_, y) = npy::<f32>(&course.path("p/o/arg1.npy"));
    assert_eq!(y[1], 103.0, "the edited header was not compiled: {y:?}");
}

#[test]
fn inputs_from_npy_and_raw_files_come_back_as_npy_for_bytes_halves_and_float4() {
    let course = course();
    let p = |f: &str| course.path(&format!("p/{f}"));
    let launch = |kernel: &str, args: &str| {
        sim_ok(
            &course,
            &format!("kernels.cu -I include --kernel {kernel} --grid 1 --block 32 {args} --out o"),
        )
    };
    write_npy::<u8>(&p("bytes.npy"), &[4], &[1, 2, 200, 255]);
    launch(
        "widen",
        "--arg u8[]=@bytes.npy --arg i16[4]=zeros --arg i32=4",
    );
    assert_eq!(
        npy::<i16>(&p("o/arg1.npy")),
        (vec![4], vec![2, 4, 400, 510])
    );
    assert_eq!(
        npy::<u8>(&p("o/arg0.npy")).1,
        [1, 2, 200, 255],
        "inputs are written too"
    );

    // Halves as raw little-endian bytes: 1.0, -2.0, 0.5.
    let halves: Vec<u8> = [0x3c00u16, 0xc000, 0x3800]
        .iter()
        .flat_map(|h| h.to_le_bytes())
        .collect();
    std::fs::write(p("halves.bin"), halves).unwrap();
    launch(
        "negate_halves",
        "--arg f16[3]=@halves.bin --arg f16[3]=zeros --arg i32=3",
    );
    let bytes = std::fs::read(p("o/arg1.npy")).unwrap();
    let header = String::from_utf8_lossy(&bytes[10..bytes.len() - 6]);
    assert!(
        header.contains("'descr': '<f2'") && header.contains("(3,)"),
        "{header}"
    );
    assert_eq!(
        bytes[bytes.len() - 6..],
        [0x00, 0xbc, 0x00, 0x40, 0x00, 0xb8]
    );

    let quads = [1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0];
    write_npy::<f32>(&p("quads.npy"), &[2, 4], &quads);
    launch(
        "sum4",
        "--arg float4[2]=@quads.npy --arg f32[2]=zeros --arg i32=2",
    );
    assert_eq!(npy::<f32>(&p("o/arg1.npy")).1, [10.0, 100.0]);
    assert_eq!(
        npy::<f32>(&p("o/arg0.npy")).0,
        [2, 4],
        "float4 is written as (n, 4)"
    );
}

#[test]
fn a_file_of_the_wrong_length_or_type_is_an_error_that_says_what_to_do() {
    let course = course();
    write_npy::<f32>(&course.path("p/eight.npy"), &[8], &[0.0; 8]);
    write_npy::<i64>(&course.path("p/ints.npy"), &[8], &[0; 8]);
    let with = |spec: &str| {
        format!("kernels.cu -I include --kernel add_one --grid 1 --block 32 --arg {spec} --arg f32[8] --arg i32=8")
    };
    let short = "eight.npy holds 8 elements of f32; the buffer needs 10";
    sim_fails_saying(&course, &with("f32[10]=@eight.npy"), &[short]);
    let ints = ["holds <i8 values, not <f4", ".astype(np.float32)"];
    sim_fails_saying(&course, &with("f32[]=@ints.npy"), &ints);
    sim_fails_saying(&course, &with("f32[]=@no.npy"), &["cannot read no.npy"]);
}

#[test]
fn scalars_of_every_width_reach_the_kernel() {
    let course = course();
    let launch = "kernels.cu -I include --kernel scalars --grid 1 --block 1 --arg f64[6]=zeros";
    sim_ok(
        &course,
        &format!(
            "{launch} --arg i8=-3 --arg u16=65535 --arg i64=-5000000000 \
             --arg u64=18446744073709551615 --arg f64=0.25 --arg float2=1.5,2 --out o"
        ),
    );
    let (_, out) = npy::<f64>(&course.path("p/o/arg0.npy"));
    assert_eq!(
        out,
        [-3.0, 65535.0, -5e9, 18446744073709551615.0, 0.25, 3.5]
    );
    let too_big = "300 does not fit in i8 (-128 to 127)";
    sim_fails_saying(&course, &format!("{launch} --arg i8=300"), &[too_big]);
}

#[test]
fn variables_are_set_by_name_and_a_wrong_name_or_size_is_named() {
    let course = course();
    write_npy::<f32>(&course.path("p/c.npy"), &[4], &[1.0, 2.0, 3.0, 4.0]);
    let with = |set: &str| format!("{SCALE_BY} -I include {set}");
    sim_ok(
        &course,
        &with("--set coeffs=f32[]=@c.npy --set scale=f32=0.5"),
    );
    let (_, y) = npy::<f32>(&course.path("p/o/arg1.npy"));
    assert_eq!(y, [0.0, 1.0, 3.0, 6.0, 2.0, 5.0, 9.0, 14.0]);
    assert_eq!(
        npy::<f32>(&course.path("p/o/scale.npy")).1,
        [0.5],
        "set variables are written"
    );
    let unknown = "no __device__ or __constant__ variable `coef`; it has: coeffs, scale, calls";
    sim_fails_saying(&course, &with("--set coef=f32[]=1"), &[unknown]);
    let wide = "holds 4 elements of f32, not 5";
    sim_fails_saying(&course, &with("--set coeffs=f32[5]=1"), &[wide]);
    let scalar = "`scale` holds 4 bytes; the value has 8";
    sim_fails_saying(&course, &with("--set scale=f64=1"), &[scalar]);
}

#[test]
fn a_plan_chains_launches_over_aliased_buffers_and_reports_each_and_the_total() {
    let course = course();
    let text = sim_ok(&course, "--plan chain.toml --out o");
    let parts = [
        "launch 1 of 2: add_one <<<1, 32>>>",
        "launch 2 of 2",
        "total of 2 launches",
        "wrote o/a.npy",
    ];
    for part in parts {
        assert!(text.stdout.contains(part), "{part}: {}", text.stdout);
    }
    // The second launch reads a[0..4] and writes a[4..8] through the same buffer.
    let a = npy::<f32>(&course.path("p/o/a.npy")).1;
    assert_eq!(a, [0.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 4.0]);
    let b = npy::<f32>(&course.path("p/o/b.npy")).1;
    assert_eq!(b, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let json = sim_ok(&course, "--plan chain.toml --json");
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["launches"].as_array().unwrap().len(), 2);
    let stores = |f: &serde_json::Value| f["global_store_requests"].as_u64().unwrap();
    assert_eq!(
        stores(&v["total"]["figures"]),
        stores(&v["launches"][0]["figures"]) + stores(&v["launches"][1]["figures"])
    );
    // Instructions by kind, per launch and in total, add up to the warp instructions.
    let kinds = ["memory", "arithmetic", "control", "warp", "synchronisation"];
    let by_kind =
        |i: &serde_json::Value| -> u64 { kinds.iter().map(|k| i[k].as_u64().unwrap()).sum() };
    for launch in [&v["launches"][0], &v["launches"][1], &v["total"]] {
        let all = launch["warp_instructions"].as_u64().unwrap();
        assert!(
            all > 0 && by_kind(&launch["instructions"]) == all,
            "{launch}"
        );
    }
    assert!(v["total"]["instructions"]["memory"].as_u64().unwrap() >= 2 * 2);
    let plan = std::fs::read_to_string(course.path("p/chain.toml")).unwrap();
    std::fs::write(
        course.path("p/chain.toml"),
        plan.replace("\"a+4\"", "\"c\""),
    )
    .unwrap();
    sim_fails_saying(
        &course,
        "--plan chain.toml",
        &["launch 2 (`add_one`)", "it has: a, b"],
    );
}

#[test]
fn the_line_table_is_sorted_by_the_chosen_cost_and_shows_the_source() {
    let course = course();
    let strided = "kernels.cu -I include --kernel strided --grid 2 --block 32 \
        --arg f32[64]=iota --arg f32[64]=zeros --arg i32=64";
    let rows = |run: Run| -> Vec<(u32, String)> {
        run.stdout
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("kernels.cu:"))
            .map(|r| {
                (
                    r.split_whitespace().next().unwrap().parse().unwrap(),
                    r.to_string(),
                )
            })
            .collect()
    };
    let by_cost = rows(sim_ok(&course, strided));
    assert_eq!(by_cost[0].0, 66, "{by_cost:?}");
    assert!(
        by_cost[0].1.ends_with("s += in[(i * 32 + k) % n];"),
        "{by_cost:?}"
    );
    let by_line = rows(sim_ok(&course, &format!("{strided} --sort line --lines 0")));
    let numbers: Vec<u32> = by_line.iter().map(|(n, _)| *n).collect();
    assert!(
        numbers.len() > 2 && numbers.windows(2).all(|w| w[0] < w[1]),
        "{numbers:?}"
    );
    let json = sim_ok(&course, &format!("{strided} --json"));
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let line = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["line"] == 66)
        .unwrap();
    assert_eq!(line["text"], "s += in[(i * 32 + k) % n];");
    assert_eq!(line["figures"]["global_load_sectors"], 32);
}

#[test]
fn the_help_names_every_new_option_and_shows_a_plan() {
    let help = sim_ok(&course(), "--help").stdout;
    for part in [
        "-I, --include",
        "-D, --define",
        "--set",
        "--out",
        "--plan",
        "--sort",
        "f16",
        "float4",
        "[[launch]]",
    ] {
        assert!(help.contains(part), "{part} missing from:\n{help}");
    }
}
