//! The offscreen renderer draws the pyramid scene where the camera says it is. Runs on any
//! adapter, including Mesa's software Vulkan (lavapipe); fails (never skips) without one.

use atoll::render::{
    ColourMode, HeadlessGpu, OrbitCamera, Overlays, Renderer, ViewOptions, headless_gpu, palette,
};
use atoll::scenes::scenes_dir;
use atoll_physics::{BodyType, Ray, Scene, World};
use glam::Vec2;
use image::{Rgba, RgbaImage};

const SIZE: [u32; 2] = [320, 240];

fn gpu() -> HeadlessGpu {
    headless_gpu().unwrap_or_else(|e| panic!("rendering tests need a GPU adapter: {e}"))
}

fn pyramid() -> World {
    let scene = Scene::load(&scenes_dir().join("pyramid_3d.ron")).unwrap();
    scene.build_world().unwrap().0
}

fn render(gpu: &HeadlessGpu, world: &World, camera: &OrbitCamera) -> RgbaImage {
    let mut renderer = Renderer::new(&gpu.device, &gpu.queue, SIZE);
    renderer.render(world, camera);
    renderer.read_back_rgba()
}

fn difference(a: Rgba<u8>, b: Rgba<u8>) -> u32 {
    (0..3).map(|i| a[i].abs_diff(b[i]) as u32).sum()
}

/// A colour minus its grey part: lighting scales and lifts a colour but keeps the direction of
/// this vector (its hue) roughly where it was.
fn chroma(rgb: [u8; 3]) -> glam::Vec3 {
    let v = glam::Vec3::from(rgb.map(f32::from));
    v - glam::Vec3::splat(v.min_element())
}

/// Whether a pixel is clearly coloured rather than grey (static bodies, sky haze, grid).
fn is_coloured(pixel: Rgba<u8>) -> bool {
    chroma([pixel[0], pixel[1], pixel[2]]).max_element() > 25.0
}

/// The palette entry whose hue is closest to `pixel`'s.
fn nearest_palette_entry(pixel: Rgba<u8>) -> [u8; 3] {
    let seen = chroma([pixel[0], pixel[1], pixel[2]]).normalize();
    let score = |c: &[u8; 3]| chroma(*c).normalize().dot(seen);
    *palette::PALETTE.iter().max_by(|a, b| score(a).total_cmp(&score(b))).unwrap()
}

#[test]
fn pyramid_renders_bodies_over_the_background() {
    let gpu = gpu();
    let world = pyramid();
    let mut camera = OrbitCamera::default();
    camera.frame_world(&world, SIZE[0] as f32 / SIZE[1] as f32);
    let image = render(&gpu, &world, &camera);
    // The same view of an empty world: background, grid and fog only.
    let empty = World::new(*world.settings()).unwrap();
    let background = render(&gpu, &empty, &camera);

    // A top corner looks at the sky, far from every body: exactly the background there, and sky
    // coloured (bluer than red).
    let corner = *image.get_pixel(2, 2);
    assert_eq!(corner, *background.get_pixel(2, 2));
    assert!(corner[2] > corner[0], "corner {corner:?} is not sky");

    // Every dynamic body's centre projects onto a body, never the background; nearly all onto a
    // clearly coloured pixel (a few land on the 2 cm gaps between boxes, where edges blend).
    let size = Vec2::new(SIZE[0] as f32, SIZE[1] as f32);
    let (mut checked, mut coloured) = (0u32, 0u32);
    for id in world.body_ids() {
        let body = world.body(id).unwrap();
        if body.body_type != BodyType::Dynamic {
            continue;
        }
        let p = camera.project(body.transform.position, size).unwrap();
        let (x, y) = (p.x as u32, p.y as u32);
        assert!(x < SIZE[0] && y < SIZE[1], "framing left body {} out at {p}", id.index());
        let pixel = *image.get_pixel(x, y);
        assert!(
            difference(pixel, *background.get_pixel(x, y)) > 30,
            "body {} at {p} looks like background: {pixel:?}",
            id.index()
        );
        coloured += u32::from(is_coloured(pixel));
        checked += 1;
    }
    assert!(checked > 300, "only {checked} dynamic bodies");
    assert!(coloured * 100 >= checked * 95, "only {coloured} of {checked} body centres look coloured");

    // The apex box is unoccluded from above: its centre shows its own palette colour.
    let apex = world
        .body_ids()
        .max_by(|a, b| {
            world.transform(*a).unwrap().position.y.total_cmp(&world.transform(*b).unwrap().position.y)
        })
        .unwrap();
    let p = camera.project(world.transform(apex).unwrap().position, size).unwrap();
    let pixel = *image.get_pixel(p.x as u32, p.y as u32);
    assert_eq!(
        nearest_palette_entry(pixel),
        palette::body_colour(apex.index(), BodyType::Dynamic),
        "{pixel:?}"
    );
}

#[test]
fn selection_changes_the_selected_body_only() {
    let gpu = gpu();
    let world = pyramid();
    let (mut renderer, camera, plain) = framed_render(&gpu, &world);
    let apex = world
        .body_ids()
        .max_by(|a, b| {
            world.transform(*a).unwrap().position.y.total_cmp(&world.transform(*b).unwrap().position.y)
        })
        .unwrap();
    renderer.set_selection(&[apex]);
    renderer.render(&world, &camera);
    let selected = renderer.read_back_rgba();
    let p = camera.project(world.transform(apex).unwrap().position, Vec2::new(320.0, 240.0)).unwrap();
    let (x, y) = (p.x as u32, p.y as u32);
    assert!(difference(*plain.get_pixel(x, y), *selected.get_pixel(x, y)) > 20);
    assert_eq!(plain.get_pixel(2, 2), selected.get_pixel(2, 2));
}

/// A renderer with `world` framed and drawn once: the renderer, its camera and the image.
fn framed_render(gpu: &HeadlessGpu, world: &World) -> (Renderer, OrbitCamera, RgbaImage) {
    let mut camera = OrbitCamera::default();
    camera.frame_world(world, SIZE[0] as f32 / SIZE[1] as f32);
    let mut renderer = Renderer::new(&gpu.device, &gpu.queue, SIZE);
    renderer.render(world, &camera);
    let image = renderer.read_back_rgba();
    (renderer, camera, image)
}

/// Renders the pyramid with `view` and returns the image and the camera used.
fn render_with(gpu: &HeadlessGpu, world: &World, view: &ViewOptions) -> (RgbaImage, OrbitCamera) {
    let mut camera = OrbitCamera::default();
    camera.frame_world(world, SIZE[0] as f32 / SIZE[1] as f32);
    let mut renderer = Renderer::new(&gpu.device, &gpu.queue, SIZE);
    renderer.set_view(view);
    renderer.render(world, &camera);
    (renderer.read_back_rgba(), camera)
}

fn changed_pixels(a: &RgbaImage, b: &RgbaImage) -> usize {
    a.pixels().zip(b.pixels()).filter(|(p, q)| difference(**p, **q) > 30).count()
}

#[test]
fn aabb_overlay_draws_lines_where_the_boxes_are() {
    let gpu = gpu();
    let world = pyramid();
    let (plain, camera) = render_with(&gpu, &world, &ViewOptions::default());
    let overlays = Overlays { fat_aabbs: true, ..Default::default() };
    let (boxed, _) = render_with(&gpu, &world, &ViewOptions { overlays, ..Default::default() });
    let changed = changed_pixels(&plain, &boxed);
    assert!(changed > 500, "fat AABB overlay changed only {changed} pixels");
    // The sky corner is far from every box: untouched.
    assert_eq!(plain.get_pixel(2, 2), boxed.get_pixel(2, 2));
    // Lines are drawn near the bodies: most changed pixels lie inside the pyramid's projection.
    let ground_free = world.body_ids().filter(|id| world.body(*id).unwrap().body_type == BodyType::Dynamic);
    let size = Vec2::new(SIZE[0] as f32, SIZE[1] as f32);
    let projected: Vec<Vec2> =
        ground_free.filter_map(|id| camera.project(world.transform(id).unwrap().position, size)).collect();
    let lo = projected.iter().fold(Vec2::splat(f32::MAX), |a, p| a.min(*p)) - Vec2::splat(25.0);
    let hi = projected.iter().fold(Vec2::splat(f32::MIN), |a, p| a.max(*p)) + Vec2::splat(25.0);
    let inside = plain
        .enumerate_pixels()
        .filter(|(x, y, p)| difference(**p, *boxed.get_pixel(*x, *y)) > 30)
        .filter(|(x, y, _)| {
            let p = Vec2::new(*x as f32, *y as f32);
            p.cmpge(lo).all() && p.cmple(hi).all()
        })
        .count();
    assert!(inside * 10 >= changed * 9, "{inside} of {changed} changed pixels near the pyramid");
}

#[test]
fn colour_by_island_and_sleep_greying_recolour_the_bodies() {
    let gpu = gpu();
    let mut world = pyramid();
    let (by_body, _) = render_with(&gpu, &world, &ViewOptions::default());
    let island_view = ViewOptions { colour_mode: ColourMode::Island, ..Default::default() };
    let (by_island, _) = render_with(&gpu, &world, &island_view);
    let changed = changed_pixels(&by_body, &by_island);
    assert!(changed > 2000, "colour by island changed only {changed} pixels");

    // Once the pyramid sleeps, every mode draws it grey: far less colour than awake.
    for _ in 0..400 {
        world.step();
    }
    assert!(world.body_ids().all(|id| !world.is_awake(id).unwrap()), "the pyramid did not fall asleep");
    let (asleep, _) = render_with(&gpu, &world, &ViewOptions::default());
    let empty = World::new(*world.settings()).unwrap();
    let (background, _) = render_with(&gpu, &empty, &ViewOptions::default());
    // Coloured pixels where something is drawn over the (blue, hence coloured) sky.
    let coloured = |image: &RgbaImage| {
        image
            .enumerate_pixels()
            .filter(|(x, y, p)| difference(**p, *background.get_pixel(*x, *y)) > 30 && is_coloured(**p))
            .count()
    };
    assert!(
        coloured(&asleep) * 4 < coloured(&by_body),
        "sleeping bodies still coloured: {} vs {} awake",
        coloured(&asleep),
        coloured(&by_body)
    );
}

#[test]
fn sleep_timer_colours_run_from_cold_to_hot_as_bodies_rest() {
    let gpu = gpu();
    let mut world = pyramid();
    let view = ViewOptions { colour_mode: ColourMode::SleepTimer, time_to_sleep: 0.5, ..Default::default() };
    let empty = World::new(*world.settings()).unwrap();
    let (background, _) = render_with(&gpu, &empty, &view);
    // Among the pixels that show a body, how many lean to the cold (blue) end and how many to
    // the hot (red) end of the ramp.
    let cold_and_hot = |image: &RgbaImage| {
        let body_pixels =
            image.enumerate_pixels().filter(|(x, y, p)| difference(**p, *background.get_pixel(*x, *y)) > 30);
        body_pixels.fold((0, 0), |(cold, hot), (_, _, p)| {
            let (r, b) = (p[0] as i32, p[2] as i32);
            (cold + (b > r + 40) as usize, hot + (r > b + 40) as usize)
        })
    };
    // Just loaded: every timer is zero, the pyramid is blue.
    let (fresh, _) = render_with(&gpu, &world, &view);
    let (cold, hot) = cold_and_hot(&fresh);
    assert!(cold > 2000 && hot * 10 < cold, "fresh pyramid: {cold} cold, {hot} hot pixels");

    // Settled but not yet asleep: the timers are close to the time to sleep, the pyramid red.
    let mean_timer = |world: &World| {
        let dynamic: Vec<f32> = world
            .body_ids()
            .filter(|&id| world.body(id).unwrap().body_type == BodyType::Dynamic)
            .map(|id| world.sleep_timer(id).unwrap())
            .collect();
        dynamic.iter().sum::<f32>() / dynamic.len() as f32
    };
    while mean_timer(&world) < 0.4 {
        world.step();
        assert!(world.step_count() < 600, "the pyramid never came to rest");
    }
    assert!(world.body_ids().any(|id| world.is_awake(id).unwrap()), "asleep too early for the test");
    let (resting, _) = render_with(&gpu, &world, &view);
    let (cold, hot) = cold_and_hot(&resting);
    assert!(hot > 2000 && cold * 10 < hot, "resting pyramid: {cold} cold, {hot} hot pixels");
}

#[test]
fn the_selected_body_is_outlined_even_inside_the_pile() {
    let gpu = gpu();
    let world = pyramid();
    let (mut renderer, camera, plain) = framed_render(&gpu, &world);
    // A box of the bottom layer in the middle of the side facing the camera, with neighbours on
    // both sides: its outline lies over them.
    let eye = camera.eye();
    let body = world
        .body_ids()
        .filter(|&id| world.body(id).unwrap().body_type == BodyType::Dynamic)
        .filter(|&id| world.transform(id).unwrap().position.y < 1.0)
        .min_by(|a, b| {
            let d = |id| world.transform(id).unwrap().position.distance(eye);
            d(*a).total_cmp(&d(*b))
        })
        .unwrap();
    renderer.set_selection(&[body]);
    renderer.render(&world, &camera);
    let selected = renderer.read_back_rgba();
    if let Some(path) = std::env::var_os("ATOLL_OUTLINE_SNAPSHOT") {
        selected.save(path).unwrap();
    }

    // The body's screen box, from its AABB's corners, grown by the outline's width.
    let bounds = world.aabb(body).unwrap();
    let size = Vec2::new(SIZE[0] as f32, SIZE[1] as f32);
    let corners = (0..8).map(|i| {
        let pick = |bit, lo: f32, hi: f32| if i & bit == 0 { lo } else { hi };
        let corner = glam::Vec3::new(
            pick(1, bounds.min.x, bounds.max.x),
            pick(2, bounds.min.y, bounds.max.y),
            pick(4, bounds.min.z, bounds.max.z),
        );
        camera.project(corner, size).unwrap()
    });
    let (lo, hi) =
        corners.fold((Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)), |(lo, hi), p| (lo.min(p), hi.max(p)));
    let (lo, hi) = (lo - 4.0, hi + 4.0);
    let near_body =
        |x: u32, y: u32| (x as f32) >= lo.x && (x as f32) <= hi.x && (y as f32) >= lo.y && (y as f32) <= hi.y;

    // Outline orange: strong red, medium green, little blue.
    let is_outline = |p: &Rgba<u8>| p[0] > 220 && (120..=210).contains(&p[1]) && p[2] < 110;
    let mut outline = 0;
    for (x, y, p) in selected.enumerate_pixels() {
        if difference(*p, *plain.get_pixel(x, y)) > 20 {
            assert!(near_body(x, y), "pixel ({x}, {y}) changed far from the selected body");
            outline += is_outline(p) as usize;
        }
    }
    // The perimeter of the box's screen box, at two pixels wide, is the order of magnitude.
    let perimeter = 2.0 * ((hi.x - lo.x) + (hi.y - lo.y));
    assert!(
        outline as f32 > perimeter,
        "only {outline} outline pixels around a {perimeter:.0}-pixel perimeter"
    );
}

fn hills() -> World {
    Scene::load(&scenes_dir().join("terrain.ron")).unwrap().build_world().unwrap().0
}

/// The pixel where `world_point` is drawn.
fn pixel_at(image: &RgbaImage, camera: &OrbitCamera, world_point: glam::Vec3) -> Rgba<u8> {
    let size = Vec2::new(SIZE[0] as f32, SIZE[1] as f32);
    let p = camera.project(world_point, size).expect("in front of the camera");
    *image.get_pixel(p.x.round() as u32, p.y.round() as u32)
}

#[test]
fn terrain_draws_grass_on_the_hills_and_water_in_the_lake() {
    let gpu = gpu();
    let world = hills();
    let (renderer, camera, image) = framed_render(&gpu, &world);
    let down = |x: f32, z: f32| {
        world
            .terrain()
            .cast_ray(&Ray::new(glam::Vec3::new(x, 30.0, z), glam::Vec3::NEG_Y, 60.0).unwrap())
            .unwrap()
    };
    // The hill over the cave is grass-covered: drawn green.
    let hill = down(-13.0, 8.0);
    assert_eq!(hill.material, atoll_physics::terrain::VoxelMaterial::Grass);
    let green = pixel_at(&image, &camera, hill.point);
    assert!(green[1] > green[0] + 20 && green[1] > green[2] + 20, "hill drawn {green:?}");
    let drawn = renderer.terrain_rebuild();
    assert_eq!(drawn.chunks, world.terrain().masks().count(), "the first frame meshes every chunk");
    assert!(drawn.triangles > 1000);

    // Looking down on the lake (centre (9, 0, -9)): water over its sand bowl, drawn blue (the
    // sand alone is yellow, the grass green).
    let above_lake = OrbitCamera {
        target: glam::Vec3::new(9.0, 0.0, -9.0),
        pitch: 1.4,
        distance: 12.0,
        ..OrbitCamera::default()
    };
    let lake = render(&gpu, &world, &above_lake);
    let centre = *lake.get_pixel(SIZE[0] / 2, SIZE[1] / 2);
    assert!(centre[2] > centre[0] + 60 && centre[2] > centre[1] + 20, "lake drawn {centre:?}");
}

#[test]
fn a_terrain_edit_redraws_only_the_chunks_it_touched() {
    use atoll_physics::terrain::{BrushMode, Edit, SphereBrush, VoxelMaterial};
    let gpu = gpu();
    let mut world = hills();
    let (mut renderer, camera, before) = framed_render(&gpu, &world);
    renderer.render(&world, &camera);
    assert_eq!(renderer.terrain_rebuild().chunks, world.terrain().masks().count(), "nothing changed");

    let centre = glam::Vec3::new(-13.0, 8.0, 8.0);
    let brush = SphereBrush {
        center: centre,
        radius: 3.0,
        strength: 1.0,
        mode: BrushMode::Add,
        material: VoxelMaterial::Rock,
    };
    let stamp = world.terrain_stamp();
    let report = world.edit_terrain(&Edit::Sphere(brush)).unwrap();
    renderer.terrain_mut().note_edit(stamp, world.terrain_stamp(), &report.chunks);
    renderer.render(&world, &camera);
    assert_eq!(renderer.terrain_rebuild().chunks, report.chunks.len());
    let after = renderer.read_back_rgba();
    // A grey rock ball now sits on the green hill.
    let rock = pixel_at(&after, &camera, centre + glam::Vec3::Y * 2.0);
    assert!(chroma([rock[0], rock[1], rock[2]]).max_element() < 25.0, "rock drawn {rock:?}");
    assert!(changed_pixels(&before, &after) > 100);

    // An edit the renderer was not told about still shows: everything is meshed again.
    world.edit_terrain(&Edit::Sphere(SphereBrush { mode: BrushMode::Remove, ..brush })).unwrap();
    renderer.render(&world, &camera);
    assert_eq!(renderer.terrain_rebuild().chunks, world.terrain().masks().count());
}

#[test]
fn the_contacts_overlay_draws_terrain_contacts_where_they_are() {
    let gpu = gpu();
    let mut world = Scene::load(&scenes_dir().join("slide.ron")).unwrap().build_world().unwrap().0;
    for _ in 0..60 {
        world.step();
    }
    // Every touching contact here is a body on the slope.
    let points: Vec<glam::Vec3> = world
        .touching_contacts()
        .inspect(|c| assert!(c.body_b.is_terrain() && c.chunk.is_some()))
        .flat_map(|c| c.manifold.points().iter().map(|p| p.position).collect::<Vec<_>>())
        .collect();
    assert!(points.len() >= 10, "{} terrain contact points", points.len());
    let (plain, camera) = render_with(&gpu, &world, &ViewOptions::default());
    let overlays = Overlays { contacts: true, ..Default::default() };
    let (marked, _) = render_with(&gpu, &world, &ViewOptions { overlays, ..Default::default() });
    let changed = changed_pixels(&plain, &marked);
    assert!(changed > 20, "the contacts overlay changed only {changed} pixels");
    let size = Vec2::new(SIZE[0] as f32, SIZE[1] as f32);
    let projected: Vec<Vec2> = points.iter().filter_map(|&p| camera.project(p, size)).collect();
    let near_a_point = plain
        .enumerate_pixels()
        .filter(|(x, y, p)| difference(**p, *marked.get_pixel(*x, *y)) > 30)
        .filter(|(x, y, _)| projected.iter().any(|q| q.distance(Vec2::new(*x as f32, *y as f32)) < 25.0))
        .count();
    assert!(
        near_a_point * 10 >= changed * 9,
        "{near_a_point} of {changed} changed pixels near a contact point"
    );
}

#[test]
fn the_tree_overlay_draws_the_top_boxes_in_warm_colours() {
    // A rain spawned together: its movable tree is rebuilt, and the overlay's top four levels
    // (root red, its descendants towards yellow) go over the pile and nowhere near the sky.
    let gpu = gpu();
    let (mut world, _) = atoll_physics::scene::builtin::rain_boxes_balls(500).build_world().unwrap();
    for _ in 0..5 {
        world.step();
    }
    let (plain, _) = render_with(&gpu, &world, &ViewOptions::default());
    let overlays = Overlays { tree: true, tree_depth: 3, ..Default::default() };
    let (tree, _) = render_with(&gpu, &world, &ViewOptions { overlays, ..Default::default() });
    let changed: Vec<Rgba<u8>> = plain
        .enumerate_pixels()
        .filter(|(x, y, p)| difference(**p, *tree.get_pixel(*x, *y)) > 30)
        .map(|(x, y, _)| *tree.get_pixel(x, y))
        .collect();
    assert!(changed.len() > 300, "the tree overlay changed only {} pixels", changed.len());
    assert_eq!(plain.get_pixel(2, 2), tree.get_pixel(2, 2));
    let warm = changed.iter().filter(|p| i32::from(p[0]) > i32::from(p[2]) + 40).count();
    assert!(warm * 10 >= changed.len() * 8, "{warm} of {} changed pixels warm", changed.len());
}
