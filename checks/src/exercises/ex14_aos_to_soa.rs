//! 14: a particle step on a struct of arrays. The kernel file keeps the array-of-structs version
//! beside it for comparison; the check launches only `advance_soa`, whose loads and stores are
//! held to 4 sectors per request (the AoS version takes 32).

use super::{size_label, sizes_1d, timing_elements};
use crate::case::{Case, CaseOptions, HostData, Launch, Scalar};
use crate::random::Rng;

const BLOCK: u32 = 256;

pub const GRAVITY: f32 = 9.81;

/// One step of one particle: position and velocity in, the same out, as the kernel computes it
/// (the compiler fuses each multiply and add).
pub fn advance(position: [f32; 3], velocity: [f32; 3], dt: f32) -> ([f32; 3], f32) {
    let vz = (-GRAVITY).mul_add(dt, velocity[2]);
    let moved = [
        velocity[0].mul_add(dt, position[0]),
        velocity[1].mul_add(dt, position[1]),
        vz.mul_add(dt, position[2]),
    ];
    (moved, vz)
}

const FIELDS: [&str; 6] = ["x", "y", "z", "vx", "vy", "vz"];

pub fn cases(options: &CaseOptions) -> Vec<Case> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_acts_before_the_position_moves() {
        let (moved, vz) = advance([0.0, 0.0, 10.0], [1.0, 2.0, 0.0], 0.5);
        assert_eq!(vz, -GRAVITY * 0.5);
        assert_eq!(moved, [0.5, 1.0, 10.0 - GRAVITY * 0.25]);
    }
}
