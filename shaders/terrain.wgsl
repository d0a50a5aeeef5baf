// Voxel terrain: the mesher's triangles in world space with smooth normals and a colour per
// material, lit like the bodies. Water uses the same shader, blended (its alpha is below 1)
// and with a little extra sheen so it reads as a surface.

struct TerrainIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) colour: vec4<f32>,
};

struct TerrainOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) colour: vec4<f32>,
};

@vertex
fn vs_main(v: TerrainIn) -> TerrainOut {
    var out: TerrainOut;
    out.clip = globals.view_proj * vec4<f32>(v.position, 1.0);
    out.world = v.position;
    out.normal = v.normal;
    out.colour = v.colour;
    return out;
}

@fragment
fn fs_main(in: TerrainOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var n = normalize(in.normal);
    if !front {
        n = -n;
    }
    // Ground is matte; water (alpha < 1) gets a sharper, stronger highlight.
    let water = 1.0 - step(0.999, in.colour.a);
    let colour = lit(in.colour.rgb, n, in.world, mix(24.0, 96.0, water), mix(0.05, 0.6, water));
    return vec4<f32>(apply_fog(colour, in.world), in.colour.a);
}
