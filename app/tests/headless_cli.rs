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

/// A fresh path in the system's temporary directory.
fn temp_file(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("atoll-cli-{}-{name}", std::process::id()))
}

#[test]
fn a_recorded_run_replays_on_any_thread_count_and_a_tampered_one_fails_naming_the_step() {
    let rec = temp_file("tower.rec.ron");
    let out = atoll(&["record", "scenes/tower.ron", "--steps", "120", "--out", rec.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("recorded 120 steps"), "{stdout}");
    for threads in ["1", "3"] {
        let out = atoll(&["replay", rec.to_str().unwrap(), "--threads", threads, "--json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        assert_eq!(
            (report["matched"].as_bool(), report["steps"].as_u64()),
            (Some(true), Some(120)),
            "{report}"
        );
    }
    // Change the hash recorded for step 60: the replay stops there, and says so.
    let text = std::fs::read_to_string(&rec).unwrap();
    let first = text.lines().position(|l| l.trim() == "step_hashes: [").expect("a hash list") + 1;
    let tampered: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| if i == first + 59 { "        12345,".to_string() } else { l.to_string() })
        .collect();
    std::fs::write(&rec, tampered.join("\n")).unwrap();
    let out = atoll(&["replay", rec.to_str().unwrap()]);
    assert!(!out.status.success(), "a tampered recording must fail the replay");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("step 60") && stderr.contains("diverges"), "{stderr}");
    let out = atoll(&["replay", rec.to_str().unwrap(), "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(report["diverged_at"].as_u64(), Some(60), "{report}");
    std::fs::remove_file(&rec).ok();
}

#[test]
fn each_command_has_its_help_and_a_bad_argument_is_named() {
    for command in ["run", "shot", "bench", "record", "replay", "generate-scenes"] {
        let out = atoll(&[command, "--help"]);
        assert!(out.status.success(), "{command} --help");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(&format!("Usage: atoll {command}")),
            "{command}"
        );
    }
    let out = atoll(&["run", "scenes/tower.ron", "--steps", "many"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--steps") && stderr.contains("many"), "{stderr}");
    let out = atoll(&["record", "scenes/tower.ron", "--steps", "5"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--out"));
}
