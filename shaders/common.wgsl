// Shared by every viewport shader: the per-frame uniform block. The renderer prepends this file
// to each shader so the layout is written once.

struct Globals {
    view_proj: mat4x4<f32>,
    inverse_view_proj: mat4x4<f32>,
    // xyz: camera position in world space.
    eye: vec4<f32>,
    // xyz: unit direction from the surface towards the light.
    light_dir: vec4<f32>,
    // Background gradient, linear RGB.
    sky_top: vec4<f32>,
    sky_horizon: vec4<f32>,
    // x: distance where fog starts, y: distance where the fog hides everything, z: grid height.
    fog: vec4<f32>,
};

@group(0) @binding(0) var<uniform> globals: Globals;

// The world-space direction of the view ray through a clip-space point.
fn view_ray(clip_xy: vec2<f32>) -> vec3<f32> {
    // Reversed depth: z = 1 is the near plane, z = 0 is infinitely far.
    let near = globals.inverse_view_proj * vec4<f32>(clip_xy, 1.0, 1.0);
    let far = globals.inverse_view_proj * vec4<f32>(clip_xy, 0.5, 1.0);
    return normalize(far.xyz / far.w - near.xyz / near.w);
}

// Sky colour seen along a world-space direction: horizon haze blending into a deeper zenith.
fn sky_colour(dir: vec3<f32>) -> vec3<f32> {
    let up = clamp(dir.y, 0.0, 1.0);
    let below = clamp(-dir.y * 4.0, 0.0, 1.0);
    let sky = mix(globals.sky_horizon.rgb, globals.sky_top.rgb, pow(up, 0.6));
    // Below the horizon (no ground body there): a slightly darker haze, so the eye reads "floor".
    return mix(sky, globals.sky_horizon.rgb * 0.8, below);
}

// Distance fog towards the horizon colour: far things fade, which makes depth readable.
fn apply_fog(colour: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    let d = distance(globals.eye.xyz, world);
    let f = smoothstep(globals.fog.x, globals.fog.y, d);
    return mix(colour, globals.sky_horizon.rgb, f * 0.85);
}

// The viewport's lighting of a surface point of colour `base` with normal `n` (facing the
// viewer's side): wrapped Lambert from the one light (a soft terminator instead of a hard edge
// where it grazes), a sky/ground hemisphere ambient and a Blinn-Phong highlight of the given
// sharpness and strength. Bodies and terrain share it, so they read as one scene.
fn lit(base: vec3<f32>, n: vec3<f32>, world: vec3<f32>, shininess: f32, strength: f32) -> vec3<f32> {
    let l = globals.light_dir.xyz;
    let v = normalize(globals.eye.xyz - world);
    let wrap = 0.35;
    let diffuse = clamp((dot(n, l) + wrap) / (1.0 + wrap), 0.0, 1.0);
    let sky_ambient = vec3<f32>(0.36, 0.40, 0.48);
    let ground_ambient = vec3<f32>(0.16, 0.14, 0.12);
    let ambient = mix(ground_ambient, sky_ambient, n.y * 0.5 + 0.5);
    let sun = vec3<f32>(1.0, 0.96, 0.88) * 0.85;
    let h = normalize(l + v);
    let specular = pow(max(dot(n, h), 0.0), shininess) * strength;
    return base * (ambient + diffuse * sun) + vec3<f32>(specular);
}

// Rotates `v` by the unit quaternion `q` (x, y, z, w).
fn rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// A body mesh's vertex and the per-body instance that places it (shapes and selection mask).
struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
};

struct InstanceIn {
    @location(2) translation: vec3<f32>,
    @location(3) rotation: vec4<f32>,
    @location(4) scale: vec3<f32>,
    @location(5) colour: vec4<f32>,
};
