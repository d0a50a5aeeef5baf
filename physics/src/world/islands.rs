//! Waking islands, and the island query API (the island stages of the step are in `step/`).

use super::World;
use crate::body::{BodyId, NONE};
use crate::error::AtollError;
use crate::graph;
use crate::island::id::IslandId;
use crate::island::wake_cause::WakeCause;
use crate::island::{Island, reference_islands};

/// An island as the world reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IslandView {
    /// The island's id.
    pub id: IslandId,
    /// Dynamic bodies in it.
    pub body_count: u32,
    /// Touching contacts between its bodies.
    pub contact_count: u32,
    /// Enabled joints between its bodies.
    pub joint_count: u32,
    /// False while it sleeps.
    pub awake: bool,
    /// Smallest sleep timer of its bodies at the last sleep check, seconds.
    pub min_sleep_timer: f32,
    /// An edge left it since it was last built; it will be rebuilt (split) before it sleeps.
    pub may_split: bool,
}

/// An island fell asleep or woke up during the last step (or through an edit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SleepEvent {
    /// The island.
    pub island: IslandId,
    /// True when it fell asleep, false when it woke.
    pub asleep: bool,
}

impl World {
    /// Wakes the island of body slot `body` (static and kinematic bodies have none) for
    /// `cause`.
    pub(crate) fn wake(&mut self, body: u32, cause: WakeCause) {
        let island = self.bodies.bodies[body as usize].island.id;
        if island != NONE {
            self.wake_island(island, cause);
        }
    }

    /// Wakes a sleeping island: its bodies and their contacts rejoin the awake sets, and it
    /// remembers `cause` and the step.
    pub(crate) fn wake_island(&mut self, id: u32, cause: WakeCause) {
        if self.islands.islands[id as usize].awake {
            return;
        }
        self.islands.set_awake(id, true);
        // Woken inside a step: the step it belongs to is the one being taken.
        let step = self.step_count + u64::from(self.stepping);
        self.islands.islands[id as usize].woke = Some((cause, step));
        self.sleep_events.push(SleepEvent { island: self.island_id(id), asleep: false });
        let mut body = self.islands.islands[id as usize].bodies.head;
        while body != NONE {
            let b = &mut self.bodies.bodies[body as usize];
            b.awake = true;
            b.sleep_timer = 0.0;
            self.awake_bodies.set(body as usize);
            let awake_contacts = &mut self.awake_contacts;
            let contacts = &self.contacts.contacts;
            let scratch = &mut self.scratch;
            graph::for_each_contact(&self.bodies.bodies, contacts, body, |c, _| {
                awake_contacts.set(c as usize);
                // A contact woken after this step's narrowphase joins the solve with the
                // state it slept with.
                scratch.narrowphase.note_woken_contact(c, &contacts[c as usize]);
            });
            let awake_joints = &mut self.awake_joints;
            graph::for_each_joint(&self.bodies.bodies, &self.joints.joints, body, |j, _| {
                awake_joints.set(j as usize)
            });
            body = self.bodies.bodies[body as usize].island.next;
        }
    }

    /// The id of live island slot `index`.
    pub(super) fn island_id(&self, index: u32) -> IslandId {
        IslandId::new(index, self.islands.islands[index as usize].generation)
    }

    /// Every live island, in id order.
    pub fn islands(&self) -> impl Iterator<Item = IslandView> + '_ {
        self.islands
            .islands
            .iter()
            .enumerate()
            .filter(|(_, i)| i.alive)
            .map(|(id, i)| island_view(id as u32, i))
    }

    /// One island; a stale id (the island merged into another, emptied, or never existed) is
    /// refused.
    pub fn island(&self, id: IslandId) -> Result<IslandView, AtollError> {
        let island = self.islands.get(id.index(), id.generation()).ok_or(AtollError::StaleIslandId)?;
        Ok(island_view(id.index(), island))
    }

    /// The bodies of island `id`, in list order; a stale id is refused.
    pub fn island_bodies(&self, id: IslandId) -> Result<Vec<BodyId>, AtollError> {
        let island = self.islands.get(id.index(), id.generation()).ok_or(AtollError::StaleIslandId)?;
        Ok(island.bodies.iter(&self.bodies.bodies).map(|body| self.bodies.id_at(body)).collect())
    }

    /// The island of a body (`None` for static and kinematic bodies).
    pub fn body_island(&self, id: BodyId) -> Result<Option<IslandId>, AtollError> {
        let island = self.bodies.get(id)?.island.id;
        Ok((island != NONE).then(|| self.island_id(island)))
    }

    /// Seconds the body has been slow enough to sleep.
    pub fn sleep_timer(&self, id: BodyId) -> Result<f32, AtollError> {
        Ok(self.bodies.get(id)?.sleep_timer)
    }

    /// Whether the body is simulated (static bodies never are; sleeping ones are not).
    pub fn is_awake(&self, id: BodyId) -> Result<bool, AtollError> {
        Ok(self.bodies.get(id)?.awake)
    }

    /// Wakes a body's island (no effect on static and kinematic bodies).
    pub fn wake_body(&mut self, id: BodyId) -> Result<(), AtollError> {
        self.bodies.get(id)?;
        self.note_edit(false);
        self.wake(id.index(), WakeCause::Edit { body: id });
        self.log_input(|| crate::recording::input::Input::WakeBody(id));
        Ok(())
    }

    /// Islands that fell asleep or woke since the last step began (edits made after it
    /// included), in order.
    pub fn sleep_events(&self) -> &[SleepEvent] {
        &self.sleep_events
    }

    /// The persistent islands as sorted lists of body slot indices, sorted by first body.
    pub fn island_partition(&self) -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> = self
            .islands()
            .map(|i| {
                let bodies = self.island_bodies(i.id).expect("a listed island is live");
                let mut v: Vec<u32> = bodies.iter().map(|b| b.index()).collect();
                v.sort_unstable();
                v
            })
            .collect();
        out.sort();
        out
    }

    /// Connected components built from scratch by the reference depth-first search, in the
    /// same form as [`World::island_partition`]. `work` is reusable scratch.
    pub fn reference_partition(&self, work: &mut Vec<u32>) -> Vec<Vec<u32>> {
        let mut out =
            reference_islands(&self.bodies.bodies, &self.contacts.contacts, &self.joints.joints, work);
        out.sort();
        out
    }
}

/// The view of live island `island` in slot `index`.
fn island_view(index: u32, island: &Island) -> IslandView {
    IslandView {
        id: IslandId::new(index, island.generation),
        body_count: island.bodies.count,
        contact_count: island.contacts.count,
        joint_count: island.joints.count,
        awake: island.awake,
        min_sleep_timer: island.min_sleep_timer,
        may_split: island.may_split,
    }
}
