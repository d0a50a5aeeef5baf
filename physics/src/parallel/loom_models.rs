//! Loom models of the thread team's protocols, built from the same code as the engine (a
//! `--cfg loom` build puts loom's atomics under `parallel/sync.rs`): loom runs each model under
//! every interleaving of its threads and every reordering its memory orderings allow, within a
//! bound on preemptions, and fails a model whose property breaks in any of them. The data a
//! block or unit writes is a `loom::cell::UnsafeCell`, so a write that another thread may
//! read without a happens-before edge is reported as a race. `scripts/loom.sh` runs them and
//! prints how many interleavings each explored.

use super::door::Door;
use super::door::TeamPoisoned;
use super::sync::{AtomicU32, AtomicUsize, Ordering};
use super::team::{Claims, Linger, PartBlocks, Team, TeamState};
use super::{MOST_PARTS, Pipeline, Unit};
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;

/// Runs `model` under loom, with at most `LOOM_MAX_PREEMPTIONS` preemptions (2 unless set:
/// the test command's bound; `LOOM_MAX_PREEMPTIONS=3 scripts/loom.sh` explores more), and
/// prints how many interleavings it explored. The team's members wait by spinning, which
/// loom sees as a branch per turn, so a model may take many branches.
fn explore(name: &str, model: impl Fn() + Sync + Send + 'static) {
    explore_bounded(name, 2, model);
}

/// [`explore`] with `bound` preemptions unless `LOOM_MAX_PREEMPTIONS` says otherwise.
fn explore_bounded(name: &str, bound: usize, model: impl Fn() + Sync + Send + 'static) {
    let explored = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = std::sync::Arc::clone(&explored);
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(bound);
    }
    builder.max_branches = builder.max_branches.max(100_000);
    builder.check(move || {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        model();
    });
    println!("loom: {name}: {} interleavings", explored.load(std::sync::atomic::Ordering::Relaxed));
}

/// Claim words for `blocks` blocks.
fn claims(blocks: usize) -> Claims {
    let mut claims = Claims::default();
    claims.reset(blocks);
    claims
}

/// Every block of a stage is run exactly once, whichever member claims it, and no member
/// returns from its stages before all their blocks are done. With a second stage on the same
/// claim words, a block of the second reads what every block of the first wrote: a write it
/// could miss (no happens-before through the team's count) is a race loom reports.
fn blocks_once_and_stages_in_order(members: usize, blocks: usize, second_stage: bool) {
    let state = Arc::new(TeamState::default());
    let claims = Arc::new(claims(blocks));
    let data: Arc<Vec<UnsafeCell<u32>>> = Arc::new((0..blocks).map(|_| UnsafeCell::new(0)).collect());
    let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..2 * blocks).map(|_| AtomicUsize::new(0)).collect());
    let member = move |index: usize| {
        let team = Team::member(index, members, &state);
        team.for_blocks(blocks, 1, claims.words(), |range| {
            for j in range {
                runs[j].fetch_add(1, Ordering::Relaxed);
                // SAFETY: block `j` is this member's alone in the first stage.
                data[j].with_mut(|d| unsafe { *d = 1 });
            }
        });
        if !second_stage {
            runs[blocks..].iter().for_each(|r| r.store(1, Ordering::Relaxed));
            assert!(runs[..blocks].iter().all(|r| r.load(Ordering::Relaxed) == 1), "a block not run once");
            return;
        }
        team.for_blocks(blocks, 1, claims.words(), |range| {
            for j in range {
                runs[blocks + j].fetch_add(1, Ordering::Relaxed);
                // Every first-stage block is done and visible before a second-stage one runs.
                let seen: u32 = (0..blocks).map(|k| data[k].with(|d| unsafe { *d })).sum();
                assert_eq!(seen as usize, blocks, "a second-stage block ran before the first stage was done");
            }
        });
        // After its last stage, every block of both stages is done.
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1), "a block not run exactly once");
    };
    let member = Arc::new(member);
    let helpers: Vec<_> = (1..members)
        .map(|index| {
            let member = Arc::clone(&member);
            thread::spawn(move || member(index))
        })
        .collect();
    member(0);
    for helper in helpers {
        helper.join().expect("a helper");
    }
}

#[test]
fn loom_two_members_run_every_block_once_and_stages_in_order() {
    explore("two members, two stages of two blocks", || blocks_once_and_stages_in_order(2, 2, true));
}

#[test]
fn loom_three_members_run_every_block_once() {
    // Three members, two blocks: one member finds nothing to claim and waits, or is late and
    // finds the stage over. Three spinning members multiply the interleavings: one preemption
    // (every order of the members' steps, each thread switched once at any point) takes a
    // minute; two, hours.
    explore_bounded("three members, a stage of two blocks", 1, || {
        blocks_once_and_stages_in_order(3, 2, false)
    });
}

#[test]
fn loom_a_part_s_blocks_are_its_member_s_unless_it_is_late() {
    // Two members with a part each (blocks 0 and 1 are part 0's, block 2 part 1's): every block
    // runs once; a member takes another part's blocks only when that part has not begun.
    explore("two members with parts", || {
        let state = Arc::new(TeamState::default());
        let claims = Arc::new(claims(3));
        let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..3).map(|_| AtomicUsize::new(0)).collect());
        let member = move |index: usize| {
            let team = Team::member(index, 2, &state);
            let mut first_blocks = [0; MOST_PARTS + 1];
            first_blocks[1] = 2;
            first_blocks[2] = 3;
            let parts = PartBlocks { first_blocks, parts: 2 };
            team.stage(3, |j| j..j + 1, claims.words(), 0..3, Some(&parts), &mut |range| {
                runs[range.start].fetch_add(1, Ordering::Relaxed);
            });
            assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1), "a block not run exactly once");
        };
        let member = Arc::new(member);
        let other = Arc::clone(&member);
        let helper = thread::spawn(move || other(1));
        member(0);
        helper.join().expect("a helper");
    });
}

#[test]
fn loom_a_pipeline_unit_never_runs_before_what_it_waits_for() {
    // Two parts, two stages, two members. Each part's edge unit of stage `s` writes its part's
    // boundary buffer `s % 2` and reads the other part's buffer of stage `s - 1`: the protocol
    // says an edge unit waits for the other parts' edge units of the stage before, and finishes
    // before theirs of the stage after, so neither read nor write may race.
    explore("pipeline of two parts, two stages", || {
        let state = Arc::new(TeamState::default());
        let pipeline = Arc::new(Pipeline::new(2));
        let boundary: Arc<Vec<UnsafeCell<u32>>> = Arc::new((0..4).map(|_| UnsafeCell::new(0)).collect());
        let runs: Arc<Vec<AtomicU32>> = Arc::new((0..8).map(|_| AtomicU32::new(0)).collect());
        let all_runs = Arc::clone(&runs);
        let member = move |index: usize| {
            let team = Team::member(index, 2, &state);
            team.pipeline(&pipeline, 2, |part, stage, unit| {
                runs[(part * 2 + stage) * 2 + usize::from(unit == Unit::Inner)]
                    .fetch_add(1, Ordering::Relaxed);
                if unit == Unit::Edge {
                    let other = 1 - part;
                    if stage > 0 {
                        let seen = boundary[other * 2 + (stage - 1) % 2].with(|b| unsafe { *b });
                        assert_eq!(seen, stage as u32, "part {other}'s edge of stage {} not seen", stage - 1);
                    }
                    // SAFETY: this part's buffer for this stage: no other unit touches it now.
                    boundary[part * 2 + stage % 2].with_mut(|b| unsafe { *b = stage as u32 + 1 });
                }
            });
        };
        let member = Arc::new(member);
        let other = Arc::clone(&member);
        let helper = thread::spawn(move || other(1));
        member(0);
        helper.join().expect("a helper");
        assert!(all_runs.iter().all(|r| r.load(Ordering::Relaxed) == 1), "a unit not run exactly once");
    });
}

#[test]
fn loom_no_helper_holds_the_work_past_the_closed_door() {
    // The caller lends its work (here a cell a helper reads inside the door) and, once its own
    // part is done, closes the door and ends the borrow (writes the cell). A helper either
    // enters before the door closes and has left before the caller goes on, or never enters:
    // a helper reading the cell after the caller's write would be a race.
    explore("the door, a caller and two helpers", || {
        let door = Arc::new(Door::default());
        let work = Arc::new(UnsafeCell::new(7u32));
        let helpers: Vec<_> = (0..2)
            .map(|_| {
                let (door, work) = (Arc::clone(&door), Arc::clone(&work));
                thread::spawn(move || {
                    if door.enter() {
                        let seen = work.with(|w| unsafe { *w });
                        assert_eq!(seen, 7, "the helper saw the work after the borrow ended");
                        door.leave();
                    }
                })
            })
            .collect();
        door.close_and_wait();
        // The borrow ends: the caller's frame goes on and may reuse the work's memory.
        work.with_mut(|w| unsafe { *w = 0 });
        for helper in helpers {
            helper.join().expect("a helper");
        }
    });
}

#[test]
fn loom_a_member_that_panics_stops_the_others_instead_of_hanging() {
    // Member 1 panics in the block it claims. Member 0 either does every block itself (member
    // 1 came too late to claim one) or, waiting for the failed block, sees the team poisoned
    // and raises `TeamPoisoned`: in no interleaving does it wait forever (loom would report a
    // deadlock) or return as if the stage were done.
    // The expected panics, once per interleaving, are not printed; any other is.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        if payload.is::<TeamPoisoned>() || payload.downcast_ref::<&str>() == Some(&"block failed") {
            return;
        }
        default_hook(info);
    }));
    explore("two members, one panicking in its block", || {
        let state = Arc::new(TeamState::default());
        let claims = Arc::new(claims(2));
        let helper = {
            let (state, claims) = (Arc::clone(&state), Arc::clone(&claims));
            thread::spawn(move || {
                let team = Team::member(1, 2, &state);
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    team.for_blocks(2, 1, claims.words(), |_| panic!("block failed"));
                }));
                // Its own panic, or the stage was over before it claimed anything.
                if let Err(payload) = outcome {
                    assert_eq!(payload.downcast_ref::<&str>(), Some(&"block failed"));
                }
            })
        };
        let team = Team::member(0, 2, &state);
        let done = AtomicUsize::new(0);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            team.for_blocks(2, 1, claims.words(), |range| {
                done.fetch_add(range.len(), Ordering::Relaxed);
            });
        }));
        match outcome {
            Ok(()) => assert_eq!(done.load(Ordering::Relaxed), 2, "returned before the stage was done"),
            Err(payload) => assert!(payload.is::<TeamPoisoned>(), "member 0 raised another panic"),
        }
        helper.join().expect("the helper caught its panic");
    });
}

#[test]
fn loom_a_lingering_helper_leaves_when_the_next_team_starts() {
    // Two pool threads linger after a team; each has the next team's job queued behind its
    // linger. One lingers with no deadline (only the next team's start can end its wait), the
    // other's deadline passes at its second check. The caller starts the next team, does its
    // own work and closes the door: in every interleaving both helpers stop lingering (a
    // helper waiting on would be reported as a deadlock), each then enters the door or finds
    // it closed, and the caller never waits for a lingering helper.
    explore("the linger, two helpers and the next team", || {
        let linger = Arc::new(Linger::default());
        linger.team_starts();
        let started = linger.begin(1);
        let door = Arc::new(Door::default());
        let helpers: Vec<_> = [None, Some(2)]
            .into_iter()
            .map(|deadline: Option<u32>| {
                let (linger, door) = (Arc::clone(&linger), Arc::clone(&door));
                thread::spawn(move || {
                    let mut checks = 0;
                    linger.wait(started, || {
                        checks += 1;
                        deadline.is_some_and(|last| checks >= last)
                    });
                    // The next team's job, queued behind the linger.
                    if door.enter() {
                        door.leave();
                    }
                })
            })
            .collect();
        linger.team_starts();
        door.close_and_wait();
        assert!(linger.lingering_at(2), "the helpers began to linger at 1");
        for helper in helpers {
            helper.join().expect("a helper");
        }
    });
}
