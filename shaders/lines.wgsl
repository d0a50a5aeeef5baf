// Debug overlay lines (AABBs, contacts, velocities, tree nodes): plain coloured segments,
// depth-tested against the bodies but pulled slightly towards the eye so lines lying on a
// surface (a tight box of a box) are not lost in the depth test.

struct LineIn {
    @location(0) position: vec3<f32>,
    @location(1) colour: vec4<f32>,
};

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

@vertex
fn vs_main(v: LineIn) -> LineOut {
    var out: LineOut;
    let clip = globals.view_proj * vec4<f32>(v.position, 1.0);
    // Reversed depth: a larger z is nearer. 0.2 % is enough to win against the surface the
    // line lies on without showing lines through bodies in front.
    out.clip = vec4<f32>(clip.xy, clip.z * 1.002, clip.w);
    out.colour = v.colour;
    return out;
}

@fragment
fn fs_main(in: LineOut) -> @location(0) vec4<f32> {
    return in.colour;
}
