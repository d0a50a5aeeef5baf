//! [`ChildDesc`]: a further shape of a compound body (a table's legs beside its top), with its
//! pose in the body's frame, its own material, collision filter and sensor flag. A body's own
//! `shape` is its first child, at the body frame; `BodyDesc::children` holds the others.

use crate::error::{AtollError, check_vec3, validate_rotation};
use crate::filter::CollisionFilter;
use crate::material::Material;
use crate::math::Transform;
use crate::sensor::Sensor;
use crate::shape::{MassProperties, Shape, validate_shape};

/// Most shapes one body may hold beside its own (a building of boxes as one static body fits).
pub const MAX_CHILDREN: usize = 1024;

/// A shape of a compound body beside the body's own, placed in the body's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildDesc {
    /// The shape, in its own frame.
    pub shape: Shape,
    /// Where that frame sits in the body's.
    pub pose: Transform,
    /// Its density, friction and restitution.
    pub material: Material,
    /// Which bodies it may collide with.
    pub filter: CollisionFilter,
    /// Makes it a sensor: it reports what overlaps it and pushes nothing.
    pub sensor: Option<Sensor>,
}

impl ChildDesc {
    /// `shape` at `pose` in the body's frame, of the default material and filter.
    pub fn new(shape: Shape, pose: Transform) -> ChildDesc {
        ChildDesc {
            shape,
            pose,
            material: Material::default(),
            filter: CollisionFilter::DEFAULT,
            sensor: None,
        }
    }

    /// Sets the material.
    pub fn with_material(mut self, material: Material) -> ChildDesc {
        self.material = material;
        self
    }

    /// Makes it a sensor: it pushes nothing, weighs nothing and reports what overlaps it
    /// ([`crate::World::sensor_events`], naming it by its [`crate::ShapeId`]).
    pub fn with_sensor(mut self, sensor: Sensor) -> ChildDesc {
        self.sensor = Some(sensor);
        self
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), AtollError> {
        validate_shape(&self.shape)?;
        check_vec3("child position", self.pose.position)?;
        validate_rotation(self.pose.rotation)?;
        self.material.validate()
    }

    /// Its mass properties in the body's frame. A sensor weighs nothing, as Box2D's sensors do:
    /// it is a region to watch, not a part of the body.
    pub fn mass_properties(&self) -> MassProperties {
        let own = self.shape.mass_properties(self.material.density);
        let pose = Transform::new(self.pose.position, self.pose.rotation.normalize());
        let placed = own.transformed(&pose);
        if self.sensor.is_some() {
            MassProperties { mass: 0.0, inertia: placed.inertia * 0.0, ..placed }
        } else {
            placed
        }
    }
}

/// Checks a body's children: each valid, at most [`MAX_CHILDREN`]; the error names the child.
pub(crate) fn validate_children(children: &[ChildDesc]) -> Result<(), AtollError> {
    if children.len() > MAX_CHILDREN {
        return Err(AtollError::invalid(
            "children",
            format!("a body holds at most {MAX_CHILDREN} shapes beside its own, got {}", children.len()),
        ));
    }
    for (k, child) in children.iter().enumerate() {
        child.validate().map_err(|e| AtollError::invalid("children", format!("child {k}: {e}")))?;
    }
    Ok(())
}
