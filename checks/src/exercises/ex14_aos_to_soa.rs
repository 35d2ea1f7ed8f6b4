//! 14: a particle step on a struct of arrays. The kernel file keeps the array-of-structs version
//! beside it for comparison; the check launches only `advance_soa`, whose loads and stores are
//! held to 4 sectors per request (the AoS version takes 32).

use super::{size_label, sizes_1d, timing_elements};
use crate::case::Evidence;
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::compare::Predicted;
use crate::random::Rng;

const BLOCK: u32 = 256;

pub(super) const GRAVITY: f32 = 9.81;

/// One step of one particle: position and velocity in, the same out, as the kernel computes it
/// (the compiler fuses each multiply and add).
pub(super) fn advance(position: [f32; 3], velocity: [f32; 3], dt: f32) -> ([f32; 3], f32) {
    let vz = (-GRAVITY).mul_add(dt, velocity[2]);
    let moved = [
        velocity[0].mul_add(dt, position[0]),
        velocity[1].mul_add(dt, position[1]),
        vz.mul_add(dt, position[2]),
    ];
    (moved, vz)
}

const FIELDS: [&str; 6] = ["x", "y", "z", "vx", "vy", "vz"];

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    let mut rng = Rng::new(options.seed);
    sizes_1d(options, &[256 * 3 + 1, 65_539])
        .into_iter()
        .map(|n| {
            let dt = rng.range_f32(0.001, 0.02);
            let mut case = Case::new(
                size_label(n, BLOCK as usize),
                "advance_soa",
                Launch::covering(n, BLOCK),
            );
            for field in FIELDS {
                let (lo, hi) = if field.starts_with('v') {
                    (-10.0, 10.0)
                } else {
                    (-100.0, 100.0)
                };
                let data = HostData::F32(rng.vec_f32(n, lo, hi));
                case = if field == "vx" || field == "vy" {
                    case.input(field, data)
                } else {
                    case.in_out(field, data)
                };
            }
            case.scalar("dt", Scalar::F32(dt))
                .scalar("n", Scalar::I32(n as i32))
                .diagnose(diagnose)
                .inputs_of(inputs_of)
                .reference(move |case| {
                    let [x, y, z, vx, vy, vz] = FIELDS.map(|name| case.f32s(name));
                    let mut out = [(); 4].map(|_| Vec::with_capacity(n));
                    for i in 0..n {
                        let (moved, new_vz) =
                            advance([x[i], y[i], z[i]], [vx[i], vy[i], vz[i]], dt);
                        for (column, value) in
                            out.iter_mut().zip([moved[0], moved[1], moved[2], new_vz])
                        {
                            column.push(value);
                        }
                    }
                    ["x", "y", "z", "vz"]
                        .into_iter()
                        .zip(out)
                        .map(|(name, data)| (name.to_string(), HostData::F32(data)))
                        .collect()
                })
                // Reads six fields, writes four, per particle.
                .bytes_moved(40 * n as u64)
                .for_timing(n == timing_elements(options))
        })
        .collect()
}

fn dt_of(case: &Case) -> f32 {
    match case.scalar_value("dt") {
        Scalar::F32(dt) => dt,
        _ => 0.0,
    }
}

/// The position and velocity an output element comes from.
fn inputs_of(case: &Case, buffer: &str, i: usize) -> Option<String> {
    let velocity = match buffer {
        "x" | "y" | "z" => format!("v{buffer}"),
        "vz" => return Some(format!("vz = {}, dt = {}", case.f32s("vz")[i], dt_of(case))),
        _ => return None,
    };
    Some(format!(
        "{buffer} = {}, {velocity} = {}, dt = {}",
        case.f32s(buffer)[i],
        case.f32s(&velocity)[i],
        dt_of(case)
    ))
}

/// Names the typical mistakes of 14 from a wrong field.
fn diagnose(ev: &Evidence) -> Option<String> {
    let dt = dt_of(ev.case);
    // The case holds the fields as they were before the launch.
    let before = |name: &str, i: usize| ev.case.f32s(name)[i];
    match ev.buffer {
        "z" => {
            let old_vz =
                |i: usize| Predicted::Value(before("vz", i).mul_add(dt, before("z", i)) as f64);
            ev.explained_by(old_vz).then(|| {
                "z is off by 9.81 dt²: it moved with the old vz. Compute the new vz \
                 (vz - 9.81 dt) first, then move z with it"
                    .to_string()
            })
        }
        "vz" => {
            let unchanged = |i: usize| Predicted::Value(before("vz", i) as f64);
            ev.explained_by(unchanged).then(|| {
                "vz still holds its old value: the new vz is computed but not written back to \
                 vz[i]"
                    .to_string()
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnosis(case: &Case, buffer: &str, actual: Vec<f32>) -> Option<String> {
        Evidence::with_actual(case, buffer, &HostData::F32(actual), |ev| {
            (case.diagnose.as_ref().unwrap())(ev)
        })
    }

    #[test]
    fn old_vz_and_unstored_vz_are_named_apart() {
        let case = cases(&CaseOptions::default()).swap_remove(2);
        let n = case.f32s("z").len();
        let dt = dt_of(&case);
        let (z, vz) = (case.f32s("z").to_vec(), case.f32s("vz").to_vec());
        let old: Vec<f32> = (0..n).map(|i| vz[i].mul_add(dt, z[i])).collect();
        assert!(diagnosis(&case, "z", old).unwrap().contains("old vz"));
        assert!(diagnosis(&case, "vz", vz.clone())
            .unwrap()
            .contains("not written back"));
        // An unchanged z is not the old-vz mistake, nor a z moved twice.
        assert_eq!(diagnosis(&case, "z", z.clone()), None);
        let twice: Vec<f32> = (0..n).map(|i| vz[i].mul_add(2.0 * dt, z[i])).collect();
        assert_eq!(diagnosis(&case, "z", twice), None);
        assert!(inputs_of(&case, "z", 0).unwrap().starts_with("z = "));
    }

    #[test]
    fn gravity_acts_before_the_position_moves() {
        let (moved, vz) = advance([0.0, 0.0, 10.0], [1.0, 2.0, 0.0], 0.5);
        assert_eq!(vz, -GRAVITY * 0.5);
        assert_eq!(moved, [0.5, 1.0, 10.0 - GRAVITY * 0.25]);
    }
}
