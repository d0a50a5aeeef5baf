//! Shapes as line segments in world space: how the Query tool draws a cast or placed shape over
//! the view (projected by egui's painter, so no GPU buffer is needed for a handful of lines).

use atoll_physics::{Shape, Transform, Vec3};
use std::f32::consts::TAU;

/// Segments per full circle of a round shape's outline.
const CIRCLE_SEGMENTS: usize = 32;

/// The outline of `shape` placed at `pose`: a box's twelve edges; a sphere's three great
/// circles; a capsule's two end rings, four side lines and two arcs over each end; a hull's
/// edges.
pub fn shape_wireframe(shape: &Shape, pose: &Transform) -> Vec<[Vec3; 2]> {
    let mut local = Vec::new();
    match shape {
        Shape::Sphere { radius } => {
            for (u, v) in [(Vec3::X, Vec3::Y), (Vec3::Y, Vec3::Z), (Vec3::Z, Vec3::X)] {
                arc(&mut local, Vec3::ZERO, u * *radius, v * *radius, 0.0, TAU);
            }
        }
        Shape::Capsule { half_height, radius } => {
            let (r, h) = (*radius, *half_height);
            for y in [-h, h] {
                arc(&mut local, Vec3::Y * y, Vec3::X * r, Vec3::Z * r, 0.0, TAU);
            }
            for side in [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z] {
                local.push([side * r - Vec3::Y * h, side * r + Vec3::Y * h]);
            }
            for across in [Vec3::X, Vec3::Z] {
                arc(&mut local, Vec3::Y * h, across * r, Vec3::Y * r, 0.0, TAU / 2.0);
                arc(&mut local, Vec3::Y * -h, across * r, Vec3::Y * -r, 0.0, TAU / 2.0);
            }
        }
        Shape::Cuboid { half_extents } => local = box_edges(-*half_extents, *half_extents),
        Shape::Hull(h) => {
            for e in h.edges() {
                local.push([h.vertices()[e.vertices[0] as usize], h.vertices()[e.vertices[1] as usize]]);
            }
        }
    }
    local.into_iter().map(|[a, b]| [pose.transform_point(a), pose.transform_point(b)]).collect()
}

/// The twelve edges of the box from `min` to `max`.
pub fn box_edges(min: Vec3, max: Vec3) -> Vec<[Vec3; 2]> {
    let corner = |i: usize| Vec3::select(glam::BVec3::new(i & 1 != 0, i & 2 != 0, i & 4 != 0), max, min);
    let mut edges = Vec::with_capacity(12);
    for i in 0..8 {
        for bit in [1, 2, 4] {
            if i & bit == 0 {
                edges.push([corner(i), corner(i | bit)]);
            }
        }
    }
    edges
}

/// The arc `center + u cos θ + v sin θ` for θ from `from` to `to`, as segments.
fn arc(out: &mut Vec<[Vec3; 2]>, center: Vec3, u: Vec3, v: Vec3, from: f32, to: f32) {
    let steps = ((to - from) / TAU * CIRCLE_SEGMENTS as f32).ceil().max(1.0) as usize;
    let at = |k: usize| {
        let a = from + (to - from) * k as f32 / steps as f32;
        center + u * a.cos() + v * a.sin()
    };
    out.extend((0..steps).map(|k| [at(k), at(k + 1)]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_outline_point_lies_on_its_shape() {
        let pose = Transform::new(Vec3::new(1.0, 2.0, 3.0), atoll_physics::Quat::from_rotation_x(0.7));
        let shapes = [
            Shape::sphere(0.5).unwrap(),
            Shape::capsule(0.4, 0.3).unwrap(),
            Shape::cuboid(Vec3::new(0.5, 0.2, 0.3)).unwrap(),
            Shape::hull(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]).unwrap(),
        ];
        for shape in &shapes {
            let lines = shape_wireframe(shape, &pose);
            assert!(lines.len() >= 6, "{shape:?}");
            for p in lines.iter().flatten() {
                let grown = match shape {
                    Shape::Sphere { radius } => Shape::sphere(radius + 1e-3).unwrap(),
                    Shape::Capsule { half_height, radius } => {
                        Shape::capsule(*half_height, radius + 1e-3).unwrap()
                    }
                    Shape::Cuboid { half_extents } => Shape::cuboid(half_extents + 1e-3).unwrap(),
                    hull => hull.clone(),
                };
                let local = pose.inverse_transform_point(*p);
                assert!(
                    grown.contains_local_point(local) || matches!(shape, Shape::Hull(_)),
                    "{shape:?}: {p}"
                );
            }
        }
    }
}
