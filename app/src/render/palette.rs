//! Body colours: a stable palette indexed by body index, grey for static bodies.

use atoll_physics::BodyType;

/// Saturated, mutually distinct hues (sRGB) that stay readable under the viewport lighting.
pub const PALETTE: [[u8; 3]; 8] = [
    [231, 111, 81],  // coral
    [42, 157, 143],  // teal
    [233, 196, 106], // sand
    [92, 124, 250],  // blue
    [214, 93, 177],  // magenta
    [132, 204, 92],  // green
    [244, 162, 97],  // orange
    [120, 94, 240],  // violet
];

/// Static bodies: a neutral grey, so the eye goes to what moves.
pub const STATIC_GREY: [u8; 3] = [128, 132, 138];

/// The sRGB colour a body is drawn in.
pub fn body_colour(index: u32, body_type: BodyType) -> [u8; 3] {
    match body_type {
        BodyType::Static => STATIC_GREY,
        // Scramble the index (Fibonacci hashing) so scenes generated in a repeating pattern
        // (sphere, capsule, box, hull, ...) do not get one colour per shape kind.
        _ => PALETTE[(index.wrapping_mul(0x9E37_79B9) >> 29) as usize % PALETTE.len()],
    }
}

/// sRGB byte to linear light, the space the shaders light in.
pub fn srgb_to_linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

/// An sRGB colour as linear RGB.
pub fn linear(rgb: [u8; 3]) -> [f32; 3] {
    rgb.map(srgb_to_linear)
}
