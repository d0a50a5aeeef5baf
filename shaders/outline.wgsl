// The selection outline: a full-screen triangle that paints the pixels just outside the
// selected body's silhouette (read from the mask the selection pass wrote) in a bright colour,
// over everything, so the selection stays visible inside a pile.

@group(1) @binding(0) var mask: texture_2d<f32>;

// Outline half-width in pixels, and its colour (linear RGB: a warm orange).
const RADIUS: i32 = 2;
const OUTLINE: vec3<f32> = vec3<f32>(1.0, 0.42, 0.03);

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    // A triangle covering the screen: (-1,-1), (3,-1), (-1,3).
    let xy = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u)) * 2.0 - 1.0;
    return vec4<f32>(xy, 0.0, 1.0);
}

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let size = vec2<i32>(textureDimensions(mask));
    let centre = vec2<i32>(position.xy);
    if textureLoad(mask, centre, 0).r > 0.5 {
        discard;
    }
    // Coverage of the silhouette within the radius: 0 far away, 1 right at the edge.
    var nearest = 1000.0;
    for (var dy = -RADIUS; dy <= RADIUS; dy++) {
        for (var dx = -RADIUS; dx <= RADIUS; dx++) {
            let p = clamp(centre + vec2<i32>(dx, dy), vec2<i32>(0), size - 1);
            if textureLoad(mask, p, 0).r > 0.5 {
                nearest = min(nearest, length(vec2<f32>(f32(dx), f32(dy))));
            }
        }
    }
    let alpha = clamp(f32(RADIUS) + 0.8 - nearest, 0.0, 1.0);
    if alpha <= 0.0 {
        discard;
    }
    return vec4<f32>(OUTLINE, alpha);
}
