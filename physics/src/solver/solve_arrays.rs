//! The solver bodies, their motion and their velocities as a team shares them for one solve:
//! what every pass reads and writes.

use super::{Motion, SolverBody, Velocity};
use crate::parallel::sync::AtomicU32;
use crate::parallel::{Claims, SharedSlice};
use crate::team_policy::BLOCK_BODIES;

/// The solver bodies, their motion so far and their velocities (same indices), as a team
/// shares them.
pub(crate) struct SolveArrays<'a> {
    pub bodies: SharedSlice<'a, SolverBody>,
    pub motions: SharedSlice<'a, Motion>,
    pub velocities: SharedSlice<'a, Velocity>,
    /// A claim word per block of bodies, for the team.
    pub claims: &'a [AtomicU32],
}

impl<'a> SolveArrays<'a> {
    /// Shares the three arrays (of the same length) for one solve.
    pub fn new(
        bodies: &'a mut [SolverBody],
        motions: &'a mut [Motion],
        velocities: &'a mut [Velocity],
        claims: &'a mut Claims,
    ) -> SolveArrays<'a> {
        assert!(bodies.len() == motions.len() && bodies.len() == velocities.len());
        claims.reset(bodies.len().div_ceil(BLOCK_BODIES));
        SolveArrays {
            bodies: SharedSlice::new(bodies),
            motions: SharedSlice::new(motions),
            velocities: SharedSlice::new(velocities),
            claims: claims.words(),
        }
    }
}
