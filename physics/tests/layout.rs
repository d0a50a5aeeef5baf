//! The engine's layout holds: no module depends on itself through a chain of other modules, so
//! its layers stay layers: the low ones (math, shapes, bodies, the broadphase and narrowphase, joints,
//! islands, the solver, the thread team) import nothing from `world/`, and the world's stages
//! import nothing that imports them back; and the step has a file per stage the profile names.
//!
//! The graph comes from the source text (`common/import_graph.rs`, shared with the app's test
//! of the same name); what counts as a dependency is written there.

#[path = "common/import_graph.rs"]
mod import_graph;

use std::path::Path;

#[test]
fn the_engine_has_no_import_cycles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = import_graph::graph(&src);
    assert!(graph.len() > 150, "the engine's modules were found: {} of them", graph.len());
    assert!(
        graph["crate::world::step::solve"].contains("crate::solver"),
        "the graph sees the solve stage use the solver"
    );
    let report = import_graph::cycle_report(&src);
    assert!(report.is_empty(), "import cycles in physics/src:\n{}", report.join("\n"));
}

#[test]
fn the_low_layers_import_nothing_from_the_world() {
    // The layers under the world, which the issue that redrew the step found importing the
    // world's graph links, island ids and wake causes.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = import_graph::graph(&src);
    let low = [
        "body",
        "broadphase",
        "graph",
        "island",
        "joint",
        "math",
        "narrowphase",
        "parallel",
        "shape",
        "solver",
    ];
    let mut offenders = Vec::new();
    for (module, targets) in &graph {
        let layer = module.trim_start_matches("crate::").split("::").next().unwrap_or("");
        if low.contains(&layer) {
            offenders.extend(
                targets.iter().filter(|t| t.starts_with("crate::world")).map(|t| format!("{module} -> {t}")),
            );
        }
    }
    assert!(offenders.is_empty(), "low layers importing the world:\n{}", offenders.join("\n"));
}

#[test]
fn every_stage_the_profile_names_has_its_file() {
    // `world/step/` holds a file per stage, named as the profile, the editor's Timing panel and
    // `atoll run` name it, so a reader finds the stage a timing points at.
    let step = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/world/step");
    for stage in atoll_physics::Stage::ALL {
        let file = step.join(format!("{}.rs", stage.name()));
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let first_line = text.lines().next().unwrap_or("");
        assert!(
            first_line.contains(&format!("{stage:?}")),
            "{} should open by naming the stage: {first_line}",
            file.display()
        );
    }
}
