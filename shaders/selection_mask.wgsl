// The selected body's silhouette, written as 1 into a single-channel mask with no depth test, so
// the outline pass can trace the whole silhouette even where other bodies hide part of it.

@vertex
fn vs_main(v: VertexIn, i: InstanceIn) -> @builtin(position) vec4<f32> {
    let world = i.translation + rotate(i.rotation, v.position * i.scale);
    return globals.view_proj * vec4<f32>(world, 1.0);
}

@fragment
fn fs_main() -> @location(0) vec4<f32> {
    return vec4<f32>(1.0);
}
