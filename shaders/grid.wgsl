// Ground grid: a large quad on the grid plane with anti-aliased 1 m and 10 m lines that fade
// with distance, alpha-blended over whatever lies below.

struct GridOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
};

const GRID_HALF_SIZE: f32 = 200.0;

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> GridOut {
    // Two triangles: corners (0,0) (1,0) (1,1) (0,0) (1,1) (0,1) of a square around the camera.
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let c = corners[index] * GRID_HALF_SIZE;
    // Centre on the camera snapped to 10 m so lines do not swim as the camera moves.
    let centre = floor(globals.eye.xz / 10.0) * 10.0;
    let world = vec3<f32>(c.x + centre.x, globals.fog.z, c.y + centre.y);
    var out: GridOut;
    out.clip = globals.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    return out;
}

// Coverage of grid lines of the given spacing at this pixel, anti-aliased by the screen derivative.
fn line_coverage(p: vec2<f32>, spacing: f32, width_px: f32) -> f32 {
    let coord = p / spacing;
    let derivative = fwidth(coord);
    let distance_to_line = abs(fract(coord - 0.5) - 0.5) / derivative;
    let line = min(distance_to_line.x, distance_to_line.y);
    return 1.0 - clamp(line - width_px * 0.5 + 0.5, 0.0, 1.0);
}

@fragment
fn fs_main(in: GridOut) -> @location(0) vec4<f32> {
    let minor = line_coverage(in.world.xz, 1.0, 1.0);
    let major = line_coverage(in.world.xz, 10.0, 1.5);
    let d = distance(globals.eye.xyz, in.world);
    let fade = 1.0 - smoothstep(globals.fog.x * 0.5, globals.fog.y * 0.8, d);
    let alpha = max(minor * 0.15, major * 0.4) * fade;
    let colour = vec3<f32>(0.92, 0.94, 1.0);
    return vec4<f32>(colour, alpha);
}
