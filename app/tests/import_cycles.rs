//! No module of the app imports itself through a chain of other modules: the editor's roles,
//! tools and panels stay layered, so a change to one does not ripple round a loop.
//!
//! The graph comes from the source text (`physics/tests/common/import_graph.rs`, which the
//! engine's test of its own layout shares); what counts as a dependency is written there.

#[path = "../../physics/tests/common/import_graph.rs"]
mod import_graph;

use std::path::Path;

#[test]
fn the_app_has_no_import_cycles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = import_graph::graph(&src);
    assert!(graph.len() > 40, "the app's modules were found: {:?}", graph.keys());
    let report = import_graph::cycle_report(&src);
    assert!(report.is_empty(), "import cycles in app/src:\n{}", report.join("\n"));
}
