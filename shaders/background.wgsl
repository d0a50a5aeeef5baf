// Background: one full-screen triangle coloured by the sky gradient along each pixel's view ray.

struct BackgroundOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> BackgroundOut {
    // A triangle covering the screen: (-1,-1), (3,-1), (-1,3).
    let xy = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u)) * 2.0 - 1.0;
    var out: BackgroundOut;
    out.clip = vec4<f32>(xy, 0.0, 1.0);
    out.ndc = xy;
    return out;
}

@fragment
fn fs_main(in: BackgroundOut) -> @location(0) vec4<f32> {
    return vec4<f32>(sky_colour(view_ray(in.ndc)), 1.0);
}
