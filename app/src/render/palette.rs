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

/// The sRGB colour of an island: the palette scrambled by island id, like bodies.
pub fn island_colour(island: u32) -> [u8; 3] {
    PALETTE[(island.wrapping_add(7).wrapping_mul(0x9E37_79B9) >> 29) as usize % PALETTE.len()]
}

/// A cold-to-hot ramp (sRGB): blue at 0, through sand, to red at 1 and above.
pub fn heat(t: f32) -> [u8; 3] {
    const COLD: [f32; 3] = [70.0, 120.0, 230.0];
    const MID: [f32; 3] = [233.0, 196.0, 106.0];
    const HOT: [f32; 3] = [220.0, 60.0, 50.0];
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let (a, b, f) = if t < 0.5 { (COLD, MID, t * 2.0) } else { (MID, HOT, t * 2.0 - 1.0) };
    [0, 1, 2].map(|i| (a[i] + (b[i] - a[i]) * f).round() as u8)
}

/// A linear colour washed towards a dim grey: how sleeping bodies are drawn.
pub fn greyed(rgb: [f32; 3]) -> [f32; 3] {
    let grey = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    // A trace of the hue stays so a sleeping pile still reads as the same bodies.
    rgb.map(|c| c * 0.06 + grey * 0.6)
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
