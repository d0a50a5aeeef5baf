//! Scene generators: the built-in scenes of `scenes/` and the benchmark scenes, each built from
//! a few parameters. The app writes the built-in ones to files (`atoll generate-scenes`); the
//! Rapier benchmark (`bench/`) builds its scenes here so both engines start from one
//! description.

mod furniture;
mod joints;
mod moving;
mod rain;
mod sorting;
mod stacks;
mod terrain;

pub use furniture::{TABLE_HEIGHT, chair, furniture_room, shelf, table, table_pile};
pub use joints::{
    add_bridge, add_ragdoll, add_vehicle, bridge, chain_bridge, compound_car, joint_grid, motor_door,
    newtons_cradle, ragdoll_pile, ragdoll_rain, vehicle,
};
pub use moving::{TUMBLER_HALF_WIDTH, TUMBLER_PIVOT, TUMBLER_SPIN, ramp, tumbler};
pub use rain::{FREE_FALL_HALF_WIDTH, RAIN_BIN_HALF_WIDTH, free_fall, rain, rain_boxes_balls};
pub use sorting::{SORTED_BINS, SORTED_KINDS, sorting_machine};
pub use stacks::{dominoes, plane_pyramid, pyramid_3d, pyramid_field, resting_stacks, tower};
pub use terrain::{LAKE_LEVEL, TERRAIN_VOXEL, boats, hills_terrain, slide, terrain_hills, terrain_rain};

use crate::body::BodyType;
use crate::math::Vec3;
use crate::scene::{Scene, SceneBody, SceneShape};

/// The built-in scenes committed under `scenes/`, each with its file name.
pub fn committed() -> Vec<(&'static str, Scene)> {
    vec![
        ("plane_pyramid.ron", plane_pyramid(20)),
        ("pyramid_3d.ron", pyramid_3d(10)),
        ("tower.ron", tower(20)),
        ("rain.ron", rain(500)),
        ("dominoes.ron", dominoes(40)),
        ("ramp.ron", ramp()),
        ("pyramids_182.ron", pyramid_field(14, 13, 10)),
        ("stacks_500.ron", resting_stacks()),
        ("tumbler.ron", tumbler(2000)),
        ("terrain.ron", terrain_hills()),
        ("terrain_rain.ron", terrain_rain(1000)),
        ("slide.ron", slide()),
        ("boats.ron", boats()),
        ("bridge.ron", bridge()),
        ("ragdoll_pile.ron", ragdoll_pile(12)),
        ("door.ron", motor_door()),
        ("vehicle.ron", vehicle()),
        ("newtons_cradle.ron", newtons_cradle()),
        ("sorting.ron", sorting_machine(90)),
        ("furniture.ron", furniture_room()),
        ("car.ron", compound_car()),
    ]
}

/// Half the size of the unit boxes that stacks and pyramids are made of.
pub const BOX_HALF: f32 = 0.5;
/// Gap between neighbouring boxes in a row, so rows rest on the row below rather than
/// leaning on their neighbours.
const GAP: f32 = 0.02;

/// Adds the common floor: a static slab whose top face is at y = 0.
fn ground(scene: &mut Scene) {
    ground_slab(scene, 0.5);
}

/// A static box named "ground", 120 m square, `half_height` thick on each side of its middle,
/// its top at y = 0.
fn ground_slab(scene: &mut Scene, half_height: f32) {
    let mut floor = SceneBody::new(
        BodyType::Static,
        SceneShape::Box { half_extents: Vec3::new(60.0, half_height, 60.0) },
        Vec3::new(0.0, -half_height, 0.0),
    );
    floor.name = "ground".into();
    scene.bodies.push(floor);
}

/// A dynamic unit box (half size [`BOX_HALF`]) with default material.
fn unit_box(name: String, position: Vec3) -> SceneBody {
    let mut b =
        SceneBody::new(BodyType::Dynamic, SceneShape::Box { half_extents: Vec3::splat(BOX_HALF) }, position);
    b.name = name;
    b
}

/// A static box wall.
fn static_wall(name: &str, half_extents: Vec3, position: Vec3) -> SceneBody {
    let mut wall = SceneBody::new(BodyType::Static, SceneShape::Box { half_extents }, position);
    wall.name = name.into();
    wall
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scene_sizes() {
        assert_eq!(plane_pyramid(20).bodies.len(), 1 + 210);
        assert_eq!(plane_pyramid(40).bodies.len(), 1 + 820);
        assert_eq!(pyramid_3d(10).bodies.len(), 1 + 385);
        assert_eq!(pyramid_3d(20).bodies.len(), 1 + 2870);
        assert_eq!(tower(20).bodies.len(), 21);
        assert_eq!(rain(500).bodies.len(), 505);
        assert_eq!(pyramid_field(14, 13, 10).bodies.len(), 1 + 10_010);
        assert_eq!(pyramid_field(14, 14, 10).bodies.len(), 1 + 10_780);
        assert_eq!(resting_stacks().bodies.len(), 1 + 500);
        assert_eq!(tumbler(2000).bodies.len(), 1 + 6 + 2000);
        assert_eq!(rain_boxes_balls(2000).bodies.len(), 5 + 2000);
        let grid = joint_grid(100);
        assert_eq!((grid.bodies.len(), grid.joints.len()), (10_000, 19_800));
        let rain = ragdoll_rain(100);
        assert_eq!((rain.bodies.len(), rain.joints.len()), (1 + 1000, 900));
        let bridge = chain_bridge(400);
        assert_eq!((bridge.bodies.len(), bridge.joints.len()), (1 + 400, 401));
    }

    #[test]
    fn generated_scenes_build_worlds() {
        let jointed = [
            joint_grid(6),
            chain_bridge(10),
            ragdoll_rain(4),
            ragdoll_pile(2),
            motor_door(),
            vehicle(),
            compound_car(),
            newtons_cradle(),
        ];
        for scene in [dominoes(5), ramp(), rain(8), rain_boxes_balls(8), tumbler(8), resting_stacks()]
            .into_iter()
            .chain(jointed)
        {
            scene.build_world().unwrap_or_else(|e| panic!("{}: {e}", scene.name));
        }
    }
}
