//! Turns the world's bodies into per-mesh batches of instances for the shape pipeline.

use super::palette;
use super::view::{ColourMode, ViewOptions};
use atoll_physics::{BodyId, BodyType, Shape, ShapeId, World};
use glam::Vec3;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// Which mesh an instance draws. Capsules and hulls carry what makes their mesh unique, so equal
/// shapes share one mesh however many bodies use them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MeshKey {
    /// The unit sphere, scaled by the radius.
    Sphere,
    /// The unit box, scaled by the half extents.
    Box,
    /// A capsule mesh of this half height and radius (as `f32` bits).
    Capsule { half_height: u32, radius: u32 },
    /// A hull mesh, named by a hash of its vertex positions (content, not address, so a hull
    /// freed and another allocated in its place never reuses a stale mesh).
    Hull(u64),
}

/// One drawn body, laid out as the shader's instance attributes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Instance {
    /// World position of the body's origin.
    pub translation: [f32; 3],
    /// Orientation quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    /// Per-axis scale applied to the mesh before rotating.
    pub scale: [f32; 3],
    /// Linear RGB; alpha 1 normally, 2 for the selected body (the shader adds a highlight).
    pub colour: [f32; 4],
}

/// The instances of one frame, grouped by mesh in a stable order.
#[derive(Debug, Default)]
pub struct Batches {
    /// Instances per mesh.
    pub by_mesh: BTreeMap<MeshKey, Vec<Instance>>,
    /// The sensors' instances per mesh, drawn translucent after the opaque surfaces.
    pub sensors: BTreeMap<MeshKey, Vec<Instance>>,
    /// Another branch's bodies where they stand apart from this world's, per mesh, drawn
    /// translucent like the sensors (`collect_ghosts`).
    pub ghosts: BTreeMap<MeshKey, Vec<Instance>>,
}

impl Batches {
    /// Every mesh a batch uses.
    pub fn meshes(&self) -> impl Iterator<Item = &MeshKey> {
        self.by_mesh.keys().chain(self.sensors.keys()).chain(self.ghosts.keys())
    }
}

/// The mesh key of a shape and the scale its unit mesh needs.
pub fn mesh_for(shape: &Shape) -> (MeshKey, Vec3) {
    match shape {
        Shape::Sphere { radius } => (MeshKey::Sphere, Vec3::splat(*radius)),
        Shape::Cuboid { half_extents } => (MeshKey::Box, *half_extents),
        Shape::Capsule { half_height, radius } => {
            (MeshKey::Capsule { half_height: half_height.to_bits(), radius: radius.to_bits() }, Vec3::ONE)
        }
        Shape::Hull(hull) => {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            for v in hull.vertices() {
                v.to_array().map(f32::to_bits).hash(&mut hasher);
            }
            (MeshKey::Hull(hasher.finish()), Vec3::ONE)
        }
    }
}

/// Collects every body of `world` into batches, coloured and highlighted as `view` says.
pub fn collect(world: &World, view: &ViewOptions) -> Batches {
    let mut batches = Batches::default();
    let selected: std::collections::HashSet<BodyId> = view.selected.iter().copied().collect();
    for id in world.body_ids() {
        let Ok(body) = world.body(id) else { continue };
        let Ok(shapes) = world.body_shapes(id) else { continue };
        let rgb = body_rgb(world, id, body.body_type, view);
        let highlight = if selected.contains(&id) {
            2.0
        } else if view.highlighted.contains(&id) {
            1.6
        } else {
            1.0
        };
        // A compound body: each of its shapes, in the body's colour; a sensor part translucent
        // as a sensor body is.
        for (part, (shape, pose)) in (0u32..).zip(shapes) {
            let sensor = world.sensor(ShapeId::new(id, part)).ok().flatten().is_some();
            let batch = if sensor { &mut batches.sensors } else { &mut batches.by_mesh };
            let (key, scale) = mesh_for(shape);
            batch.entry(key).or_default().push(Instance {
                translation: pose.position.into(),
                rotation: pose.rotation.into(),
                scale: scale.into(),
                colour: [rgb[0], rgb[1], rgb[2], highlight],
            });
        }
    }
    batches
}

/// The ghosts' colour (sRGB): a pale cyan no body palette uses, so another branch's bodies
/// read as such over any colour mode.
pub const GHOST_COLOUR: [u8; 3] = [120, 230, 255];

/// How far (metres, or radians) a body of another branch must stand from its counterpart here
/// to be drawn as a ghost: nearer, the ghost would only tint the body it covers.
pub const GHOST_APART: f32 = 1e-3;

/// Adds the dynamic bodies of `other` (another branch of the timeline) that stand apart from
/// their counterparts in `world`, or that `world` lacks, to `batches` as ghosts.
pub fn collect_ghosts(batches: &mut Batches, world: &World, other: &World) {
    let rgb = palette::linear(GHOST_COLOUR);
    for id in other.body_ids() {
        let Ok(body) = other.body(id) else { continue };
        if body.body_type != BodyType::Dynamic {
            continue;
        }
        let same = world.transform(id).is_ok_and(|here| {
            here.position.distance(body.transform.position) < GHOST_APART
                && here.rotation.angle_between(body.transform.rotation) < GHOST_APART
        });
        if same {
            continue;
        }
        let Ok(shapes) = other.body_shapes(id) else { continue };
        for (shape, pose) in shapes {
            let (key, scale) = mesh_for(shape);
            batches.ghosts.entry(key).or_default().push(Instance {
                translation: pose.position.into(),
                rotation: pose.rotation.into(),
                scale: scale.into(),
                colour: [rgb[0], rgb[1], rgb[2], 1.0],
            });
        }
    }
}

/// Linear colour of one body under the view's colour mode; sleeping bodies are greyed in every
/// mode so what is simulated stands out.
fn body_rgb(world: &World, id: BodyId, body_type: BodyType, view: &ViewOptions) -> [f32; 3] {
    let own = || view.body_colours.get(&id).copied();
    let srgb = match (view.colour_mode, body_type) {
        (_, BodyType::Static) | (ColourMode::Body, _) => {
            own().unwrap_or_else(|| palette::body_colour(id.index(), body_type))
        }
        (ColourMode::Island, _) => match world.body_island(id).ok().flatten() {
            Some(island) => palette::island_colour(island.index()),
            None => palette::body_colour(id.index(), body_type),
        },
        (ColourMode::SleepTimer, _) => {
            let timer = world.sleep_timer(id).unwrap_or(0.0);
            palette::heat(timer / view.time_to_sleep.max(1e-3))
        }
    };
    let rgb = palette::linear(srgb);
    let asleep = body_type == BodyType::Dynamic && !world.is_awake(id).unwrap_or(true);
    if asleep { palette::greyed(rgb) } else { rgb }
}
