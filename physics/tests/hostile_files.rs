//! Scene and recording files from strangers: a generator of malformed and malicious inputs
//! (truncated files, bytes flipped, huge counts, deep nesting, NaN and infinities, numbers out
//! of range, ids out of range, joints naming missing bodies, terrain runs and bounds that
//! overflow, recordings whose inputs name missing bodies or come out of order), each read as
//! the editor reads a file. Every one must be refused with an error (naming the field where
//! the generator knows which it broke) or read as a valid file, never panic, and stay within
//! [`memory_cap`] of heap while it is read, as a counting allocator measures. The longer run:
//! `scripts/hostile-files.sh` (`ATOLL_HOSTILE_MUTATIONS`).

mod common;

use atoll_physics::MAX_CHILDREN;
use atoll_physics::recording::Recording;
use atoll_physics::scene::{MAX_BODIES, MAX_HULL_POINTS, SCENE_VERSION, Scene};
use atoll_physics::{BodyDesc, Shape, Vec3, state_hash};
use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The system allocator, counting the bytes in use and the most in use since the last reset.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as the caller guarantees for `GlobalAlloc::alloc`.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: as the caller guarantees for `GlobalAlloc::dealloc`.
        unsafe { System.dealloc(p, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as the caller guarantees for `GlobalAlloc::realloc`.
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            if new_size >= layout.size() {
                let now =
                    IN_USE.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size - layout.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                IN_USE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most heap a file of `bytes` bytes may take while it is read (beyond what was in use
/// before): eight times its size and 16 MiB. The largest amplification allowed is a list of
/// numbers (`0,` is two bytes of text and eight of memory), within the counts the formats cap.
fn memory_cap(bytes: usize) -> usize {
    8 * bytes + (16 << 20)
}

/// What kind of file a case is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Scene,
    Recording,
}

/// One hostile file: what it is, its text, and the field its error must name when the
/// generator knows (`None` for random mutations, which may even be valid).
struct Case {
    name: String,
    kind: Kind,
    text: String,
    field: Option<&'static str>,
}

/// What reading one case did.
#[derive(Default)]
struct Tally {
    tried: usize,
    refused: usize,
    accepted: usize,
    peak: usize,
    peak_case: String,
    slowest: Duration,
    slowest_case: String,
}

/// Reads `case` as the editor would (and, if it is read, builds or replays it), within
/// `catch_unwind`; checks the error, the memory and that nothing panicked.
fn check(case: &Case, tally: &mut Tally) {
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let start = Instant::now();
    // The error and whether it must give a line (a file's errors do; a replay's name the
    // input instead).
    let outcome = catch_unwind(AssertUnwindSafe(|| match case.kind {
        Kind::Scene => match Scene::from_ron_str(&case.text) {
            // A file that reads must build a world or say why not, without panicking.
            Ok(scene) => {
                let _ = scene.build_world();
                Ok(())
            }
            Err(e) => Err((e.to_string(), true)),
        },
        Kind::Recording => match Recording::from_ron_str(&case.text) {
            // A recording that reads replays, or says which input or step parts from it.
            Ok(recording) if recording.steps() <= 200 && recording.scene.bodies.len() <= 200 => {
                recording.replay(1).map(drop).map_err(|e| (e.to_string(), false))
            }
            Ok(_) => Ok(()),
            Err(e) => Err((e.to_string(), true)),
        },
    }));
    let elapsed = start.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    tally.tried += 1;
    let result = outcome.unwrap_or_else(|_| panic!("{}: reading it panicked", case.name));
    match (&result, case.field) {
        (Ok(()), None) => tally.accepted += 1,
        (Ok(()), Some(field)) => panic!("{}: accepted, though its `{field}` is bad", case.name),
        (Err((message, from_file)), field) => {
            tally.refused += 1;
            if *from_file {
                assert!(message.contains("line "), "{}: the error gives no line: {message}", case.name);
            }
            if let Some(field) = field {
                assert!(
                    message.contains(field),
                    "{}: the error does not name `{field}`: {message}",
                    case.name
                );
            }
        }
    }
    assert!(
        peak <= memory_cap(case.text.len()),
        "{}: {peak} bytes of heap for {} bytes of text",
        case.name,
        case.text.len()
    );
    if peak > tally.peak {
        (tally.peak, tally.peak_case) = (peak, case.name.clone());
    }
    if elapsed > tally.slowest {
        (tally.slowest, tally.slowest_case) = (elapsed, case.name.clone());
    }
}

/// A committed scene's text.
fn scene_text(file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A short recording with inputs of several kinds: a body created, moved, pushed and destroyed
/// in a small jointed scene, stepped between.
fn recording_text() -> String {
    let (mut world, ids) =
        Scene::from_ron_str(&scene_text("newtons_cradle.ron")).unwrap().build_recorded_world().unwrap();
    let ball =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.2).unwrap(), Vec3::new(0.0, 3.0, 2.0))).unwrap();
    common::run(&mut world, 5);
    world.apply_impulse(ids[1], Vec3::new(1.0, 0.0, 0.0)).unwrap();
    common::run(&mut world, 5);
    world.destroy_body(ball).unwrap();
    common::run(&mut world, 5);
    let recording = world.recording().unwrap();
    assert_eq!(recording.replay(1).map(|w| state_hash(&w)), Ok(state_hash(&world)));
    recording.to_ron_string()
}

/// Replaces the first occurrence of `from` in `text` (which must hold it).
fn with(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the base text holds {from:?}");
    text.replacen(from, to, 1)
}

/// The malicious files, each breaking one thing the generator names.
fn structured_cases(scene: &str, terrain: &str, recording: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name: &str, kind: Kind, text: String, field: &'static str| {
        cases.push(Case { name: name.to_string(), kind, text, field: Some(field) })
    };
    let body = "(name: \"b\", body_type: Dynamic, shape: Sphere(radius: 0.5), position: (0.0, 1.0, 0.0))";
    let with_bodies = |bodies: String| format!("(version: 2, name: \"many\", bodies: [{bodies}])");
    // Counts past the formats' caps.
    add(
        "more bodies than a scene may hold",
        Kind::Scene,
        with_bodies(vec![body; MAX_BODIES + 1].join(",")),
        "bodies",
    );
    let points = vec!["(0.0, 0.0, 0.0)"; MAX_HULL_POINTS + 1].join(",");
    add(
        "a hull of too many points",
        Kind::Scene,
        with_bodies(body.replace("Sphere(radius: 0.5)", &format!("Hull(points: [{points}])"))),
        "shape",
    );
    let children = vec!["(shape: Sphere(radius: 0.1))"; MAX_CHILDREN + 1].join(",");
    add(
        "a compound of too many children",
        Kind::Scene,
        with_bodies(body.replace("position", &format!("children: [{children}], position"))),
        "children",
    );
    // Nesting past the parser's depth.
    add("deep nesting", Kind::Scene, format!("{}{}", "(".repeat(100_000), ")".repeat(100_000)), "");
    add(
        "deep nesting in a field",
        Kind::Scene,
        with_bodies(body.replace("(0.0, 1.0, 0.0)", &"[".repeat(50_000))),
        "bodies",
    );
    // Numbers that are not finite or out of range.
    for (what, value) in
        [("NaN", "NaN"), ("infinity", "inf"), ("an f32 overflow", "1e39"), ("minus infinity", "-inf")]
    {
        add(
            &format!("{what} in a position"),
            Kind::Scene,
            with_bodies(body.replace("(0.0, 1.0, 0.0)", &format!("({value}, 1.0, 0.0)"))),
            "position",
        );
        add(
            &format!("{what} in a radius"),
            Kind::Scene,
            with_bodies(body.replace("radius: 0.5", &format!("radius: {value}"))),
            "shape",
        );
        add(
            &format!("{what} in the time step"),
            Kind::Scene,
            with(scene, "dt: 0.016666668", &format!("dt: {value}")),
            "settings",
        );
    }
    add("a negative radius", Kind::Scene, with_bodies(body.replace("radius: 0.5", "radius: -0.5")), "shape");
    add(
        "a zero rotation",
        Kind::Scene,
        with_bodies(body.replace(
            "position: (0.0, 1.0, 0.0)",
            "position: (0.0, 1.0, 0.0), rotation: (0.0, 0.0, 0.0, 0.0)",
        )),
        "rotation",
    );
    add(
        "a filter's group past i32",
        Kind::Scene,
        with_bodies(body.replace("position", "filter: (category: 2, mask: 3, group: 2147483648), position")),
        "group",
    );
    add(
        "a filter's category negative",
        Kind::Scene,
        with_bodies(body.replace("position", "filter: (category: -1, mask: 3, group: 0), position")),
        "category",
    );
    add(
        "a filter without its mask",
        Kind::Scene,
        with_bodies(body.replace("position", "filter: (category: 1, group: 0), position")),
        "mask",
    );
    add("substeps past u32", Kind::Scene, with(scene, "substeps: 8", "substeps: 99999999999"), "substeps");
    add(
        "a version from the future",
        Kind::Scene,
        with(scene, &format!("version: {SCENE_VERSION}"), "version: 4294967295"),
        "version",
    );
    add(
        "an unknown field",
        Kind::Scene,
        with_bodies(body.replace("name: \"b\"", "name: \"b\", mass_override: 3.0")),
        "bodies",
    );
    // Joints naming what is not there.
    let joint = |a: &str, b: &str| format!("(kind: Spherical(()), body_a: Some({a}), body_b: {b})");
    let jointed = |j: String| format!("(version: 2, name: \"j\", bodies: [{body}, {body}], joints: [{j}])");
    add("a joint naming body 99", Kind::Scene, jointed(joint("0", "99")), "joints");
    add(
        "a joint naming a body index past usize",
        Kind::Scene,
        jointed(joint("0", "99999999999999999999999")),
        "joints",
    );
    add("a joint naming a missing body by name", Kind::Scene, jointed(joint("0", "\"nobody\"")), "joints");
    add("a joint naming a negative index", Kind::Scene, jointed(joint("0", "-1")), "joints");
    add("a joint from a body to itself", Kind::Scene, jointed(joint("1", "1")), "joints");
    add(
        "joints before the bodies",
        Kind::Scene,
        format!("(version: 2, name: \"j\", joints: [{}], bodies: [{body}, {body}])", joint("0", "1")),
        "joints",
    );
    // Terrain.
    let runs = "runs: \"01ff0200\"";
    add(
        "a terrain run past its chunk",
        Kind::Scene,
        with(terrain, runs, "runs: \"01ff0200010000ff\""),
        "terrain",
    );
    add("a terrain run of length zero", Kind::Scene, with(terrain, runs, "runs: \"01ff0000\""), "terrain");
    add("a terrain run of 65535 voxels", Kind::Scene, with(terrain, runs, "runs: \"01ffffff\""), "terrain");
    add("terrain runs that are not hex", Kind::Scene, with(terrain, runs, "runs: \"01ff02zz\""), "terrain");
    add("an unknown voxel material", Kind::Scene, with(terrain, runs, "runs: \"ffff0200\""), "terrain");
    add(
        "terrain bounds at i32::MIN",
        Kind::Scene,
        with(terrain, "min_chunk: (-6, -2, -6)", "min_chunk: (-2147483648, -2, -6)"),
        "terrain",
    );
    add(
        "terrain bounds at i32::MAX",
        Kind::Scene,
        with(terrain, "max_chunk: (6, 3, 6)", "max_chunk: (2147483647, 3, 6)"),
        "terrain",
    );
    add(
        "terrain bounds past i32",
        Kind::Scene,
        with(terrain, "max_chunk: (6, 3, 6)", "max_chunk: (99999999999, 3, 6)"),
        "terrain",
    );
    add(
        "a terrain voxel size of zero",
        Kind::Scene,
        with(terrain, "voxel_size: 0.5", "voxel_size: 0.0"),
        "terrain",
    );
    add(
        "a terrain voxel size whose world overflows",
        Kind::Scene,
        with(terrain, "voxel_size: 0.5", "voxel_size: 1e35"),
        "terrain",
    );
    add(
        "a chunk outside the bounds",
        Kind::Scene,
        with(terrain, "coord: (-6, -2, -6)", "coord: (-2147483648, 2147483647, 0)"),
        "terrain",
    );
    add(
        "a chunk listed twice",
        Kind::Scene,
        with(terrain, "coord: (-6, -2, -5)", "coord: (-6, -2, -6)"),
        "terrain",
    );
    // Recordings.
    add(
        "a recording from the future",
        Kind::Recording,
        with(recording, "version: 1", "version: 99"),
        "version",
    );
    let steps = recording.matches("step: ").count();
    assert!(steps >= 3, "the base recording has inputs at several steps");
    // Inputs out of order: the last input moved to step 0, after later ones.
    let last = recording.rfind("step: ").unwrap();
    let digits = recording[last + 6..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let mut reordered = recording.to_string();
    reordered.replace_range(last + 6..last + 6 + digits, "0");
    add("recording inputs out of order", Kind::Recording, reordered, "inputs");
    let mut late = recording.to_string();
    late.replace_range(last + 6..last + 6 + digits, "4000000000");
    add("a recording input past its last step", Kind::Recording, late, "inputs");
    add(
        "a recorded input naming body 9999",
        Kind::Recording,
        with(recording, "index: 1,", "index: 9999,"),
        "input 1 (ApplyImpulse of body 9999)",
    );
    add(
        "too many recorded step hashes",
        Kind::Recording,
        with(recording, "step_hashes: [", &format!("step_hashes: [{}", "0,".repeat(10_000_001))),
        "step_hashes",
    );
    add(
        "a recording with a malformed scene",
        Kind::Recording,
        with(recording, "radius: ", "radius: -"),
        "scene",
    );
    cases
}

/// A small xorshift generator: the mutations are the same on every run for a seed.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `count` random corruptions of `base`: cut short, a byte replaced, a span deleted or
/// repeated, a number replaced by an extreme one, brackets removed.
fn mutated_cases(base: &str, kind: Kind, label: &str, count: usize, random: &mut Random) -> Vec<Case> {
    let extremes =
        ["NaN", "inf", "-inf", "1e39", "-0.0", "4294967296", "-2147483649", "18446744073709551616", "0"];
    let noise = b"()[]{},:\"\\0123456789-.eE xyzNaninf\n\x00";
    (0..count)
        .map(|i| {
            let bytes = base.as_bytes();
            let at = random.below(bytes.len());
            let text = match random.below(6) {
                0 => String::from_utf8_lossy(&bytes[..at]).into_owned(),
                1 => {
                    let mut b = bytes.to_vec();
                    b[at] = noise[random.below(noise.len())];
                    String::from_utf8_lossy(&b).into_owned()
                }
                2 => {
                    let end = (at + 1 + random.below(200)).min(bytes.len());
                    let mut b = bytes[..at].to_vec();
                    b.extend_from_slice(&bytes[end..]);
                    String::from_utf8_lossy(&b).into_owned()
                }
                3 => {
                    let end = (at + 1 + random.below(200)).min(bytes.len());
                    let mut b = bytes[..end].to_vec();
                    for _ in 0..1 + random.below(50) {
                        b.extend_from_slice(&bytes[at..end]);
                    }
                    b.extend_from_slice(&bytes[end..]);
                    String::from_utf8_lossy(&b).into_owned()
                }
                4 => {
                    // A number at or after `at` replaced by an extreme value.
                    let start = base[at..].find(|c: char| c.is_ascii_digit()).map_or(at, |k| at + k);
                    let end = base[start..]
                        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                        .map_or(base.len(), |k| start + k);
                    format!("{}{}{}", &base[..start], extremes[random.below(extremes.len())], &base[end..])
                }
                _ => base.replacen(['(', ')', '[', ']'], "", 1 + random.below(3)),
            };
            Case { name: format!("{label} mutation {i}"), kind, text, field: None }
        })
        .collect()
}

#[test]
fn hostile_files_are_refused_in_bounded_memory_without_a_panic() {
    let mutations: usize =
        std::env::var("ATOLL_HOSTILE_MUTATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(150);
    let seed: u64 =
        std::env::var("ATOLL_HOSTILE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x0405_711e);
    let (scene, terrain, recording) =
        (scene_text("ragdoll_pile.ron"), scene_text("terrain.ron"), recording_text());
    let mut tally = Tally::default();
    let structured = structured_cases(&scene, &terrain, &recording);
    let structured_count = structured.len();
    for case in &structured {
        check(case, &mut tally);
    }
    assert_eq!(tally.refused, structured_count, "every malicious file is refused");
    let mut random = Random(seed | 1);
    let bases = [
        (scene.as_str(), Kind::Scene, "ragdoll pile"),
        (terrain.as_str(), Kind::Scene, "terrain"),
        (recording.as_str(), Kind::Recording, "recording"),
    ];
    let vehicle = scene_text("vehicle.ron");
    for (base, kind, label) in bases.into_iter().chain([(vehicle.as_str(), Kind::Scene, "vehicle")]) {
        for case in mutated_cases(base, kind, label, mutations, &mut random) {
            check(&case, &mut tally);
        }
    }
    eprintln!(
        "figure: hostile files: {} tried ({structured_count} malicious, {} mutations of 4 files, seed {seed:#x}): \
         {} refused, {} read as valid, 0 panics; peak heap {:.1} MiB ({}), slowest {:.1} ms ({})",
        tally.tried,
        tally.tried - structured_count,
        tally.refused,
        tally.accepted,
        tally.peak as f64 / (1 << 20) as f64,
        tally.peak_case,
        tally.slowest.as_secs_f64() * 1e3,
        tally.slowest_case
    );
}
