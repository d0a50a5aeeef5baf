//! The benchmarked scenes: each an `atoll_physics::Scene` from the engine's generators, with
//! the settings both engines run it at and the check its result must pass.

use crate::check::Check;
use atoll_physics::Scene;
use atoll_physics::scene::builtin;

/// Solver substeps per step in both engines (Atoll `substeps`, Rapier `num_solver_iterations`)
/// for the contact scenes.
pub const SUBSTEPS: u32 = 4;
/// Substeps for the joint scenes: long chains of joints (the grid's 100-ball columns) need
/// more iterations than piles to carry their load. At 4, Atoll's grid stretches without
/// bound and then blows up (BENCHMARKS.md, "Joint scenes").
pub const JOINT_SUBSTEPS: u32 = 8;
/// Step length in both engines.
pub const DT: f32 = 1.0 / 60.0;

/// One benchmarked scene.
pub struct BenchScene {
    /// The name given on the command line.
    pub name: &'static str,
    /// What it holds.
    pub description: &'static str,
    /// Builds the scene description (before the benchmark settings are applied).
    generate: fn() -> Scene,
    /// Solver substeps per step in both engines.
    substeps: u32,
    /// What a plausible result looks like.
    pub check: Check,
}

impl BenchScene {
    /// The scene with the benchmark's settings: dt 1/60, the scene's substeps, no sleeping
    /// (every scene here measures the solver, so no body may drop out of the work).
    pub fn build(&self) -> Scene {
        let mut scene = (self.generate)();
        scene.settings.dt = DT;
        scene.settings.substeps = self.substeps;
        scene.settings.sleep_enabled = false;
        scene
    }
}

/// Every scene, in the order a full run goes through them.
pub fn all() -> Vec<BenchScene> {
    // A pyramid that holds keeps its top box where it started, up to the squeeze of soft
    // contacts; one that loses a row drops by a whole box (1 m). Half a box tells them apart.
    let top = Check::TopHeight { tolerance: 0.5 };
    vec![
        BenchScene {
            name: "pyramid",
            description: "plane pyramid, base 40 (820 boxes)",
            generate: || builtin::plane_pyramid(40),
            substeps: SUBSTEPS,
            check: top,
        },
        BenchScene {
            name: "pyramid3d",
            description: "3D pyramid, 20 layers (2870 boxes)",
            generate: || builtin::pyramid_3d(20),
            substeps: SUBSTEPS,
            check: top,
        },
        BenchScene {
            name: "pyramids",
            description: "14 × 14 plane pyramids of base 10 (10 780 boxes)",
            generate: || builtin::pyramid_field(14, 14, 10),
            substeps: SUBSTEPS,
            check: top,
        },
        BenchScene {
            name: "rain",
            description: "2000 boxes and balls in turn, dropped into a walled bin",
            generate: || builtin::rain_boxes_balls(2000),
            substeps: SUBSTEPS,
            check: Check::Bin { half_width: builtin::RAIN_BIN_HALF_WIDTH, max_height: 8.0 },
        },
        BenchScene {
            name: "terrain-rain",
            description: "1000 mixed shapes onto the voxel hills (Rapier: the same triangles as a trimesh)",
            // Rapier has no water: the lake is emptied (no buoyancy, no drag), so both engines
            // drop the bodies on the same bare lake bed.
            generate: || {
                let mut scene = builtin::terrain_rain(1000);
                scene.settings.water_density = 0.0;
                scene.settings.water_linear_drag = 0.0;
                scene.settings.water_angular_drag = 0.0;
                scene
            },
            substeps: SUBSTEPS,
            check: Check::Terrain { max_height: 20.0 },
        },
        BenchScene {
            name: "joint-grid",
            description: "100 × 100 balls in a vertical square on 19 800 spherical joints, four corners fixed",
            generate: || builtin::joint_grid(100),
            substeps: JOINT_SUBSTEPS,
            // Neighbours are 1 m apart and the whole net hangs from its four corners: soft
            // joints stretch under it (both engines' do) but a joint open by a fifth of the
            // spacing has torn.
            check: Check::Joints { max_gap: 0.2, floor: None },
        },
        BenchScene {
            name: "chain-bridge",
            description: "a bridge of 400 planks on 401 hinges with friction",
            generate: || builtin::chain_bridge(400),
            substeps: JOINT_SUBSTEPS,
            // 400 hinges in a row hold their whole weight at the two ends: a hinge open by a
            // fifth of a plank has torn; the bridge must stay clear of the ground.
            check: Check::Joints { max_gap: 0.1, floor: Some(1.0) },
        },
        BenchScene {
            name: "ragdoll-rain",
            description: "100 ragdolls (1000 capsules and balls, 900 joints with limits) onto the ground",
            generate: || builtin::ragdoll_rain(100),
            substeps: JOINT_SUBSTEPS,
            check: Check::Joints { max_gap: 0.1, floor: Some(0.0) },
        },
        BenchScene {
            name: "free-fall",
            description: "5000 boxes and balls thrown far apart from 10–300 m up: finding pairs dominates",
            generate: || builtin::free_fall(5000),
            substeps: SUBSTEPS,
            check: Check::FreeFall { floor: -1.0, half_width: 60.0, edge: 2.0 },
        },
        BenchScene {
            name: "tables",
            description: "1000 tables of five boxes (compound bodies) dropped in a pile",
            generate: || builtin::table_pile(1000),
            substeps: SUBSTEPS,
            // A table's origin is its top's middle: 0.03 m up lying upside down, 0.75 m on its
            // feet. Ten layers dropped from up to 9 m settle well below 6.
            check: Check::Pile { floor: 0.0, max_height: 6.0 },
        },
        BenchScene {
            name: "tumbler",
            description: "2000 boxes in a hollow box turning at 0.25 rad/s",
            generate: || builtin::tumbler(2000),
            substeps: SUBSTEPS,
            check: Check::Tumbler {
                pivot: builtin::TUMBLER_PIVOT,
                half_width: builtin::TUMBLER_HALF_WIDTH,
                min_drop: 3.0,
            },
        },
    ]
}
