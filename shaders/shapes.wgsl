// Bodies: instanced unit meshes placed by a translation, a rotation quaternion and a per-axis
// scale, lit by one directional light, a sky/ground hemisphere ambient and a faint rim.

struct ShapeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) colour: vec4<f32>,
};

@vertex
fn vs_main(v: VertexIn, i: InstanceIn) -> ShapeOut {
    let world = i.translation + rotate(i.rotation, v.position * i.scale);
    var out: ShapeOut;
    out.clip = globals.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    // Normals transform by the inverse scale so non-uniform boxes keep correct shading.
    out.normal = rotate(i.rotation, normalize(v.normal / i.scale));
    out.colour = i.colour;
    return out;
}

// Opaque bodies; the sensors' pipeline is built from this source with a smaller value
// (`render/pipelines.rs`, `SENSOR_ALPHA`).
const SURFACE_ALPHA: f32 = 1.0;

@fragment
fn fs_main(in: ShapeOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var n = normalize(in.normal);
    if !front {
        n = -n;
    }
    // A faint rim of light on silhouettes separates touching bodies of one colour.
    let v = normalize(globals.eye.xyz - in.world);
    let rim = pow(1.0 - max(dot(n, v), 0.0), 4.0) * 0.12;
    var colour = lit(in.colour.rgb, n, in.world, 48.0, 0.18) + vec3<f32>(rim);
    // colour.a > 1 marks the selected body: a warm emissive lift.
    colour = colour + vec3<f32>(0.35, 0.22, 0.02) * (in.colour.a - 1.0);
    return vec4<f32>(apply_fog(colour, in.world), SURFACE_ALPHA);
}
