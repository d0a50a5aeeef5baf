//! The `atoll` binary itself, run as a user runs it: `atoll run` steps a scene headless and
//! prints its state hash, a bad argument is refused with a message and a failing exit code.
//! (The test command's smoke run of the headless runner; it uses the binary this test build
//! made, so it costs no build of its own.)

use std::process::Command;

fn atoll(args: &[&str]) -> std::process::Output {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    Command::new(env!("CARGO_BIN_EXE_atoll"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("the atoll binary runs")
}

#[test]
fn atoll_run_steps_a_scene_headless_and_prints_its_hash() {
    let out = atoll(&["run", "scenes/tower.ron", "--steps", "30"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "exit {:?}: {stdout}{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("21 bodies, 30 steps"), "{stdout}");
    let hash = stdout.lines().find_map(|l| l.strip_prefix("state hash ")).expect("a state hash line");
    assert!(hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()), "{hash}");
}

#[test]
fn atoll_run_refuses_a_missing_scene_with_a_message() {
    let out = atoll(&["run", "scenes/no_such_scene.ron", "--steps", "3"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no_such_scene"), "{stderr}");
}
