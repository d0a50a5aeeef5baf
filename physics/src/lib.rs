//! Atoll: a deterministic 3D rigid-body physics engine with voxel terrain.
//!
//! The map of this crate is `docs/ARCHITECTURE.md` in the repository: one module per concept,
//! dense arrays named by generational ids, and a fixed step pipeline (see [`World::step`]).
//! Units are metres, kilograms, seconds and radians; +Y is up; everything is `f32`.

pub mod bitset;
pub mod body;
pub mod branches;
pub mod broadphase;
pub mod child;
pub(crate) mod child_store;
pub mod error;
pub mod filter;
pub(crate) mod graph;
pub(crate) mod hash;
pub mod history;
pub(crate) mod id;
pub(crate) mod island;
pub mod joint;
pub mod material;
pub mod math;
pub mod narrowphase;
pub(crate) mod parallel;
pub mod profile;
pub mod query;
pub mod recording;
pub mod scene;
pub mod sensor;
pub mod shape;
pub mod shape_id;
pub(crate) mod shape_key;
pub mod snapshot;
pub mod solver;
pub(crate) mod team_policy;
pub mod terrain;
pub mod world;

pub use body::{BodyDesc, BodyId, BodyType, KinematicMotion, Material};
pub use branches::{BranchId, BranchInfo, Branches, DivergenceSample};
pub use child::{ChildDesc, MAX_CHILDREN};
pub use error::AtollError;
pub use filter::CollisionFilter;
pub use history::{
    FaultRun, HeldBack, History, HistorySettings, PrepareReport, RecordOutcome, SeekReport, StepEvents,
    StepRecord, Walk,
};
pub use joint::{
    DistanceJoint, FixedJoint, JointDesc, JointEvent, JointEventKind, JointFrame, JointId, JointKind,
    JointType, JointView, Limits, Motor, PrismaticJoint, RevoluteJoint, SphericalJoint, Spring, WheelJoint,
};
pub use math::{Aabb, Mat3, Quat, Transform, Vec3};
pub use narrowphase::ContactId;
#[cfg(feature = "test-support")]
pub use parallel::chaos::{chaos_pauses, set_chaos};
pub use profile::{Profile, Stage};
pub use query::{
    CAST_TOLERANCE, ClosestPoint, PlacedShape, QueryFilter, Ray, RayCastHit, ShapeCast, ShapeCastHit,
};
pub use recording::{Input, RecordedInput, Recording, ReplayError, ReplayProgress, Replayer};
pub use scene::{Scene, SceneBody, SceneError, SceneShape, SceneView};
pub use sensor::Sensor;
pub use shape::{ConvexHull, Shape, ShapeKind};
pub use shape_id::ShapeId;
pub use snapshot::{Snapshot, state_hash};
pub use solver::{
    ContactSubstep, ContactTrace, IslandSubstep, IslandTrace, JointSubstep, JointSubsteps, TracePass,
};
pub use terrain::{Terrain, TerrainSettings};
pub use world::{
    BodyFault, BodyFaultKind, CompactState, Divergence, Energy, IslandDivergence, IslandId,
    MAX_TRACED_CONTACTS, PairKey, Restless, SensorEvent, StepSettings, WakeCause, World,
};
