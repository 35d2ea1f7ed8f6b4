//! The bench's figures as a Markdown table, for the terminal, the README and the book.

use super::{Bench, Figures};

pub(super) fn table(bench: &Bench) -> String {
    let mut out = format!(
        "{}; device-to-device copy {:.0} GB/s (read + write), measured in this run; CPU: {} threads\n\n",
        bench.device, bench.copy_bandwidth_gb_s, bench.cpu_threads
    );
    let mut kernels = vec!["reference", "tuned"];
    if bench.rows.iter().any(|r| r.yours.is_some()) {
        kernels.push("yours");
    }
    out.push_str("| id | exercise |");
    for kernel in &kernels {
        out.push_str(&format!(" {kernel} | rate | share |"));
    }
    out.push_str(" CPU 1 thread | CPU all cores |\n| --- | --- |");
    out.push_str(&" ---: | ---: | ---: |".repeat(kernels.len()));
    out.push_str(" ---: | ---: |\n");
    for r in &bench.rows {
        out.push_str(&format!("| {} | {} |", r.id, r.title));
        out.push_str(&cells(Some(&r.reference)));
        out.push_str(&cells(r.tuned.as_ref()));
        if kernels.len() > 2 {
            out.push_str(&cells(r.yours.as_ref()));
        }
        out.push_str(&format!(
            " {:.1} ms | {:.1} ms |\n",
            r.cpu_one_thread_ms, r.cpu_all_cores_ms
        ));
    }
    out.push_str(
        "\nrate: effective GB/s (bytes read + written), or GFLOP/s where the work is arithmetic; \
         share: of the copy bandwidth, or of cuBLAS SGEMM on the same shape for matrix multiply.\n",
    );
    out
}

/// Time, rate and share of the ceiling, as three cells of the table; empty cells without figures.
fn cells(figures: Option<&Figures>) -> String {
    let Some(f) = figures else {
        return " | | |".to_string();
    };
    let (rate, share) = match f.gflop_s {
        Some(gflop_s) => (
            format!("{gflop_s:.0} GFLOP/s"),
            f.share_of_sgemm
                .map_or(String::new(), |s| format!("{:.0}%", 100.0 * s)),
        ),
        None => (
            format!("{:.0} GB/s", f.gb_s),
            format!("{:.0}%", 100.0 * f.share_of_copy),
        ),
    };
    format!(" {:.3} ms | {rate} | {share} |", f.ms)
}

#[cfg(test)]
mod tests {
    use super::super::Row;
    use super::*;

    fn figures(ms: f64, gb_s: f64, gflop_s: Option<f64>) -> Figures {
        Figures {
            ms,
            gb_s,
            share_of_copy: gb_s / 4000.0,
            gflop_s,
            share_of_sgemm: gflop_s.map(|g| g / 50_000.0),
        }
    }

    fn row(id: &str, reference: Figures, tuned: Option<Figures>) -> Row {
        Row {
            id: id.into(),
            title: format!("exercise {id}"),
            case: "big".into(),
            reference,
            tuned,
            reference_model: None,
            tuned_model: None,
            yours_model: None,
            launch: "<<<1, 1>>>".into(),
            tuned_launch: None,
            sgemm_ms: None,
            yours: None,
            cpu_one_thread_ms: 100.0,
            cpu_all_cores_ms: 10.0,
        }
    }

    #[test]
    fn table_shows_rates_and_shares_of_the_right_ceiling() {
        let bench = Bench {
            device: "GPU".into(),
            model: None,
            scale: 8,
            copy_bandwidth_gb_s: 4000.0,
            cpu_threads: 16,
            rows: vec![
                row(
                    "02",
                    figures(0.25, 3200.0, None),
                    Some(figures(0.2, 4000.0, None)),
                ),
                row("17", figures(17.0, 0.0, Some(8000.0)), None),
            ],
        };
        let text = table(&bench);
        assert!(
            text.contains(
                "| 02 | exercise 02 | 0.250 ms | 3200 GB/s | 80% | 0.200 ms | 4000 GB/s | 100% |"
            ),
            "{text}"
        );
        assert!(
            text.contains("| 17 | exercise 17 | 17.000 ms | 8000 GFLOP/s | 16% | | | | 100.0 ms |"),
            "{text}"
        );
        assert!(!text.contains("yours"), "no column for a file not given");
    }
}
