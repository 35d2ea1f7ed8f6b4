//! The bench's modelled times (`--model`): each kernel's time on the simulator's model of the GPU,
//! beside the measured one, with their ratio and whether the model orders the kernels of an
//! exercise as the GPU does.

use super::{Bench, Row};
use serde::Serialize;
use std::time::Duration;

/// One kernel's modelled time, and how it compares with the measured one.
#[derive(Serialize, Clone)]
pub(super) struct Modelled {
    pub us: f64,
    pub bound_by: sim::Resource,
    /// The model's one-line explanation.
    pub explain: String,
    /// Modelled over measured time (None without a GPU).
    pub ratio: Option<f64>,
    /// Every resource's time alone, and the occupancy behind them.
    pub detail: sim::ModelledTime,
    /// Wall time the simulator took for the launch.
    pub sim_seconds: f64,
}

impl Modelled {
    pub(super) fn new(modelled: sim::ModelledTime, measured_us: f64, sim: Duration) -> Modelled {
        Modelled {
            us: modelled.microseconds,
            bound_by: modelled.bound_by,
            explain: modelled.explain(),
            ratio: measured_us
                .is_finite()
                .then(|| modelled.microseconds / measured_us),
            detail: modelled,
            sim_seconds: sim.as_secs_f64(),
        }
    }
}

/// The kernels of a row that have a modelled time: (name, measured µs, modelled).
fn kernels(r: &Row) -> Vec<(&'static str, f64, &Modelled)> {
    let mut out = Vec::new();
    if let Some(m) = &r.reference_model {
        out.push(("reference", r.reference.ms * 1000.0, m));
    }
    if let (Some(t), Some(m)) = (&r.tuned, &r.tuned_model) {
        out.push(("tuned", t.ms * 1000.0, m));
    }
    if let (Some(y), Some(m)) = (&r.yours, &r.yours_model) {
        out.push(("yours", y.ms * 1000.0, m));
    }
    out
}

/// Whether the model puts `other` on the same side of the reference as the GPU does: "yes",
/// "NO", or empty for the reference itself or without a measurement.
fn same_order(reference: (f64, f64), other: (f64, f64)) -> &'static str {
    let (measured, modelled) = (other.0 / reference.0, other.1 / reference.1);
    if !measured.is_finite() {
        return "";
    }
    if (measured < 1.0) == (modelled < 1.0) {
        "yes"
    } else {
        "NO"
    }
}

pub(super) fn model_table(bench: &Bench) -> String {
    let gpu = bench.model.as_ref().map_or("?", |m| m.name);
    let mut out = format!(
        "\nModelled on {gpu} (sim::GpuModel) vs measured on {}, timing cases at scale {}\n\n\
         | id | kernel | measured | modelled | modelled / measured | vs reference: measured, modelled, same order | bound by | sim |\n\
         | --- | --- | ---: | ---: | ---: | --- | --- | ---: |\n",
        bench.device, bench.scale
    );
    let (mut within, mut total, mut agree, mut compared) = (0, 0, 0, 0);
    for r in &bench.rows {
        let ks = kernels(r);
        let reference = ks.first().map(|(_, measured, m)| (*measured, m.us));
        for (name, measured, m) in &ks {
            let versus = match (reference, *name) {
                (Some(reference), n) if n != "reference" => {
                    let order = same_order(reference, (*measured, m.us));
                    if !order.is_empty() {
                        compared += 1;
                        agree += (order == "yes") as usize;
                    }
                    format!(
                        "{:.2}x, {:.2}x, {order}",
                        measured / reference.0,
                        m.us / reference.1
                    )
                }
                _ => String::new(),
            };
            if let Some(ratio) = m.ratio {
                total += 1;
                within += (1.0 / 1.5..=1.5).contains(&ratio) as usize;
            }
            out.push_str(&format!(
                "| {} | {name} | {} | {:.1} µs | {} | {versus} | {} | {:.1} s |\n",
                r.id,
                if measured.is_finite() {
                    format!("{measured:.1} µs")
                } else {
                    String::new()
                },
                m.us,
                m.ratio.map_or(String::new(), |r| format!("{r:.2}")),
                m.bound_by,
                m.sim_seconds
            ));
        }
    }
    if total > 0 {
        out.push_str(&format!(
            "\n{within} of {total} kernels modelled within 1.5x of measured; \
             {agree} of {compared} ordered against their reference as measured.\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_agrees_when_both_say_faster() {
        assert_eq!(same_order((100.0, 80.0), (50.0, 60.0)), "yes");
        assert_eq!(same_order((100.0, 80.0), (150.0, 60.0)), "NO");
        assert_eq!(same_order((f64::NAN, 80.0), (f64::NAN, 60.0)), "");
    }
}
