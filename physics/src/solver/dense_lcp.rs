//! A small boxed complementarity problem solved exactly, for the direct solve of groups whose
//! masses differ widely (`direct.rs`): find impulses `x` with `w = A x + r` and, row by row,
//! `lower ≤ x ≤ upper`, where `w = 0` while `x` is strictly between its bounds, `w ≥ 0` at the
//! lower one and `w ≤ 0` at the upper one. An equality row has no bounds, a contact's normal
//! `[0, ∞)`, a friction row `±` its limit. `A` is the rows' symmetric positive semidefinite
//! coupling `J M⁻¹ Jᵀ`, made definite by a regularisation of its diagonal. The rows' states
//! are pivoted (a free row clamped when its `x` leaves its bounds, a clamped row freed when its
//! `w` pushes it back in) over a dense Cholesky factor of the free rows, in `f64`: a mass ratio
//! of 1000 with lever arms makes the matrix's condition 10⁶ to 10⁹, past what `f32` resolves.

/// The relative regularisation of the diagonal. Four points of a face on a face are four rows
/// of rank three, so `A` is singular without it; with it, such rows share their load, and a
/// row's velocity is left short of its target by `REGULARISATION · A_ii · x_i`: for a 1 kg box
/// carrying 1000 kg at 240 substeps a second, 4 · 10⁻⁵ m/s, which the position feedback takes
/// back.
const REGULARISATION: f64 = 1e-6;

/// A row's `w` counts as negative below this, m/s: far under what moves a body visibly, far
/// over `f64` round-off of the velocities' scale.
const TOLERANCE: f64 = 1e-7;

/// Where a row stands in the pivoting; kept from one solve to the next of the same rows, where
/// it mostly holds, so a solve mostly ends after its first factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum State {
    Free,
    AtLower,
    AtUpper,
}

/// A row's state before any pivoting: free where its velocity must change (or where its
/// impulse may be negative), else at the lower bound.
fn fresh_state(r: f64, lower: f64) -> State {
    if r < 0.0 || lower < 0.0 { State::Free } else { State::AtLower }
}

/// The problem and the work space of its solve, kept from step to step.
#[derive(Clone, Debug, Default)]
pub(crate) struct DenseLcp {
    n: usize,
    /// `A`, row-major `n × n`, regularised.
    a: Vec<f64>,
    /// The Cholesky factor of the free rows `factored`, row-major `k × k` (`k` of them).
    factor: Vec<f64>,
    factored: Vec<usize>,
    /// Whether `factor` is of `factored` (cleared when `A` changes).
    factor_valid: bool,
    /// The rows' states while pivoting.
    state: Vec<State>,
    /// The free rows of the current pivot.
    rows: Vec<usize>,
    work: Vec<f64>,
}

impl DenseLcp {
    /// Starts a problem of `n` rows with `A` zero.
    pub fn reset(&mut self, n: usize) {
        self.n = n;
        self.a.clear();
        self.a.resize(n * n, 0.0);
        self.factor_valid = false;
    }

    /// Adds `value` to `A[i][j]` and, off the diagonal, to `A[j][i]`.
    pub fn add(&mut self, i: usize, j: usize, value: f64) {
        self.a[i * self.n + j] += value;
        if i != j {
            self.a[j * self.n + i] += value;
        }
    }

    /// Regularises the diagonal once `A` is complete.
    pub fn regularise(&mut self) {
        for i in 0..self.n {
            let d = &mut self.a[i * self.n + i];
            *d += *d * REGULARISATION + f64::MIN_POSITIVE;
        }
    }

    /// Solves for `x` given `r` and each row's bounds, starting from the rows' `states` (made
    /// afresh when they are not `n`, and once more if the pivoting from them did not end);
    /// returns whether the pivoting ended in a solution. Each pivoting stops after `4n + 16`
    /// changes, `x` then clamped to its bounds: cycling is possible in principle where rows
    /// are nearly dependent, and the caller then keeps what it had.
    pub fn solve(
        &mut self,
        r: &[f64],
        lower: &[f64],
        upper: &[f64],
        x: &mut [f64],
        states: &mut Vec<State>,
    ) -> bool {
        let n = self.n;
        debug_assert!(r.len() == n && lower.len() == n && upper.len() == n && x.len() == n);
        if states.len() != n {
            states.clear();
            states.extend((0..n).map(|i| fresh_state(r[i], lower[i])));
        }
        // What the bounds no longer allow: a row whose bounds met rests on them, and a row at
        // a bound that is gone is free.
        for i in 0..n {
            states[i] = match states[i] {
                _ if lower[i] == upper[i] => State::AtLower,
                State::AtLower if lower[i] == f64::NEG_INFINITY => State::Free,
                State::AtUpper if upper[i] == f64::INFINITY => State::Free,
                state => state,
            };
        }
        self.state = std::mem::take(states);
        let mut solved = self.pivot(r, lower, upper, x);
        if !solved {
            // From the kept states the pivoting went round: once more from fresh ones.
            self.state.clear();
            self.state.extend((0..n).map(|i| fresh_state(r[i], lower[i])));
            solved = self.pivot(r, lower, upper, x);
        }
        *states = std::mem::take(&mut self.state);
        solved
    }

    /// The pivoting of [`DenseLcp::solve`] from `self.state`: every row in the wrong state
    /// changes at once (block pivoting, after Júdice and Pires), which mostly ends in two or
    /// three factors where changing one row a factor took a dozen on a ragdoll landing; while
    /// that fails to lower the count of wrong rows, one row at a time, the one most wrong.
    fn pivot(&mut self, r: &[f64], lower: &[f64], upper: &[f64], x: &mut [f64]) -> bool {
        let n = self.n;
        let (mut fewest, mut tries) = (usize::MAX, 0);
        let mut wrong = Vec::new();
        for _ in 0..4 * n + 16 {
            self.solve_free(r, lower, upper, x);
            // A free row past a bound, a clamped row whose velocity pushes it back between
            // its bounds.
            wrong.clear();
            for i in 0..n {
                let is_wrong = match self.state[i] {
                    State::Free => x[i] < lower[i] || x[i] > upper[i],
                    State::AtLower => lower[i] < upper[i] && self.row_times(i, x) + r[i] < -TOLERANCE,
                    State::AtUpper => self.row_times(i, x) + r[i] > TOLERANCE,
                };
                if is_wrong {
                    wrong.push(i);
                }
            }
            if wrong.is_empty() {
                return true;
            }
            if wrong.len() < fewest {
                (fewest, tries) = (wrong.len(), 0);
            } else {
                tries += 1;
            }
            if tries < 3 {
                for &i in &wrong {
                    self.flip(i, x, lower);
                }
                continue;
            }
            // One row: the free row farthest past a bound, else the clamped row pushing
            // hardest.
            let past = wrong
                .iter()
                .filter(|&&i| self.state[i] == State::Free)
                .map(|&i| (i, (lower[i] - x[i]).max(x[i] - upper[i])))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let one = past.map(|(i, _)| i).unwrap_or_else(|| {
                let push = |i: usize| (self.row_times(i, x) + r[i]).abs();
                wrong.iter().copied().max_by(|&i, &j| push(i).total_cmp(&push(j))).unwrap_or(wrong[0])
            });
            self.flip(one, x, lower);
        }
        for i in 0..n {
            // `max` then `min`, not `clamp`, which panics on a NaN bound.
            x[i] = x[i].max(lower[i]).min(upper[i]);
        }
        false
    }

    /// Row `i` from free to the bound `x` passed, or from a bound to free.
    fn flip(&mut self, i: usize, x: &[f64], lower: &[f64]) {
        self.state[i] = match self.state[i] {
            State::Free if x[i] < lower[i] => State::AtLower,
            State::Free => State::AtUpper,
            State::AtLower | State::AtUpper => State::Free,
        };
    }

    /// `(A x)_i`.
    fn row_times(&self, i: usize, x: &[f64]) -> f64 {
        dot(&self.a[i * self.n..(i + 1) * self.n], x)
    }

    /// `x` with the clamped rows at their bounds and the free ones solving
    /// `A_ff x_f = -(r_f + A_fc x_c)`.
    fn solve_free(&mut self, r: &[f64], lower: &[f64], upper: &[f64], x: &mut [f64]) {
        for i in 0..self.n {
            x[i] = match self.state[i] {
                State::Free => 0.0,
                State::AtLower => lower[i],
                State::AtUpper => upper[i],
            };
        }
        self.rows.clear();
        self.rows.extend((0..self.n).filter(|&i| self.state[i] == State::Free));
        if !self.factor_valid || self.rows != self.factored {
            self.factorise();
        }
        let k = self.rows.len();
        // Forward: L y = -(r_f + A_fc x_c); then back: Lᵀ x_f = y.
        self.work.clear();
        self.work.resize(k, 0.0);
        for i in 0..k {
            let rhs = -(r[self.rows[i]] + self.row_times(self.rows[i], x));
            let row = &self.factor[i * k..i * k + i];
            let sum: f64 = row.iter().zip(&self.work[..i]).map(|(l, y)| l * y).sum();
            self.work[i] = (rhs - sum) / self.factor[i * k + i];
        }
        for i in (0..k).rev() {
            let pivot = self.factor[i * k + i];
            let mut sum = self.work[i];
            for j in i + 1..k {
                sum -= self.factor[j * k + i] * x[self.rows[j]];
            }
            x[self.rows[i]] = sum / pivot;
        }
    }

    /// The Cholesky factor of `A` over the free rows `rows`.
    fn factorise(&mut self) {
        let (n, k) = (self.n, self.rows.len());
        self.factor.clear();
        self.factor.resize(k * k, 0.0);
        for j in 0..k {
            let aj = self.rows[j];
            let diagonal = self.a[aj * n + aj];
            let own = &self.factor[j * k..j * k + j];
            let remainder = diagonal - dot(own, own);
            // Round-off may leave a dependent row's pivot at or under zero: a floor keeps the
            // factor finite, and the regularisation keeps it rare.
            let pivot = remainder.max(diagonal * REGULARISATION).max(f64::MIN_POSITIVE).sqrt();
            self.factor[j * k + j] = pivot;
            for i in j + 1..k {
                let ai = self.rows[i];
                let product = dot(&self.factor[i * k..i * k + j], &self.factor[j * k..j * k + j]);
                self.factor[i * k + j] = (self.a[ai * n + aj] - product) / pivot;
            }
        }
        self.factored.clone_from(&self.rows);
        self.factor_valid = true;
    }
}

/// `a · b` (of equal lengths) in four running sums: the factor's inner loop, which one sum
/// made a chain of dependent additions (85 % of a ragdoll rain's step went to it). The same
/// order every time, so the same bits.
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = a4.remainder().iter().zip(b4.remainder()).map(|(a, b)| a * b).sum();
    let mut sums = [0.0f64; 4];
    for (a, b) in a4.zip(b4) {
        for lane in 0..4 {
            sums[lane] += a[lane] * b[lane];
        }
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3]) + tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::test_random::TestRandom;

    /// A random problem: `rows` rows of a random `J` (3 columns per body, `bodies` bodies,
    /// two bodies a row) with masses spread over `ratio`, so `A = J M⁻¹ Jᵀ`.
    fn random_problem(random: &mut TestRandom, rows: usize, bodies: usize, ratio: f32) -> DenseLcp {
        let inv_mass: Vec<f64> = (0..bodies).map(|_| f64::from(ratio.powf(random.unit()))).collect();
        let jacobian: Vec<(usize, usize, [f64; 3], [f64; 3])> = (0..rows)
            .map(|_| {
                let a = (random.unit() * bodies as f32) as usize % bodies;
                let b = (a + 1 + (random.unit() * (bodies - 1) as f32) as usize) % bodies;
                let v = random.vec(1.0);
                let w = random.vec(1.0);
                (a, b, [v.x, v.y, v.z].map(f64::from), [w.x, w.y, w.z].map(f64::from))
            })
            .collect();
        let mut lcp = DenseLcp::default();
        lcp.reset(rows);
        for i in 0..rows {
            for j in 0..=i {
                let (ai, bi, ji_a, ji_b) = jacobian[i];
                let (aj, bj, jj_a, jj_b) = jacobian[j];
                let mut sum = 0.0;
                for (bi_body, ji) in [(ai, ji_a), (bi, ji_b)] {
                    for (bj_body, jj) in [(aj, jj_a), (bj, jj_b)] {
                        if bi_body == bj_body {
                            sum += inv_mass[bi_body] * (0..3).map(|c| ji[c] * jj[c]).sum::<f64>();
                        }
                    }
                }
                lcp.add(i, j, sum);
            }
        }
        lcp.regularise();
        lcp
    }

    /// Solutions of random problems, mass ratios up to 10⁴, some rows equalities: every
    /// condition holds to a tolerance scaled by the problem's.
    #[test]
    fn random_problems_are_solved_with_every_condition_holding() {
        let mut random = TestRandom(11);
        let mut solved = 0;
        for round in 0..300 {
            let rows = 1 + round % 24;
            let mut lcp = random_problem(&mut random, rows, 2 + round % 7, 1e4);
            let r: Vec<f64> = (0..rows).map(|_| f64::from(random.vec(1.0).x)).collect();
            // Equalities, contact normals and friction rows of random limits.
            let kinds: Vec<f32> = (0..rows).map(|_| random.unit()).collect();
            let bound = |k: f32, upper: bool| match k {
                k if k < -0.4 => {
                    if upper {
                        f64::INFINITY
                    } else {
                        f64::NEG_INFINITY
                    }
                }
                k if k < 0.4 => {
                    if upper {
                        f64::INFINITY
                    } else {
                        0.0
                    }
                }
                k => {
                    if upper {
                        f64::from(k)
                    } else {
                        -f64::from(k)
                    }
                }
            };
            let lower: Vec<f64> = kinds.iter().map(|&k| bound(k, false)).collect();
            let upper: Vec<f64> = kinds.iter().map(|&k| bound(k, true)).collect();
            // Solved afresh, then again from the states the first left, for a changed `r` (as
            // the next projection of the same rows starts).
            let mut states = Vec::new();
            let changed: Vec<f64> = r.iter().map(|r| r * 0.7 + f64::from(random.unit()) * 0.1).collect();
            for (pass, r) in [&r, &changed].into_iter().enumerate() {
                let mut x = vec![0.0; rows];
                let converged = lcp.solve(r, &lower, &upper, &mut x, &mut states);
                solved += usize::from(converged);
                if !converged {
                    continue;
                }
                for i in 0..rows {
                    let w = lcp.row_times(i, &x) + r[i];
                    let scale = 1e-6 + 1e-5 * lcp.a[i * rows + i] * x[i].abs();
                    let (lo, hi) = (lower[i], upper[i]);
                    let at = format!("round {round}, solve {pass}, row {i}");
                    assert!(x[i] >= lo && x[i] <= hi, "{at}: x {} of [{lo}, {hi}]", x[i]);
                    let slack = 1e-9 * (1.0 + x[i].abs());
                    if x[i] > lo + slack && x[i] < hi - slack {
                        assert!(w.abs() < scale, "{at}: between its bounds, w {w}");
                    } else if x[i] <= lo + slack {
                        assert!(w > -scale, "{at}: at its lower bound, w {w}");
                    } else {
                        assert!(w < scale, "{at}: at its upper bound, w {w}");
                    }
                }
            }
        }
        assert!(solved >= 580, "{solved} of 600 solves ended in a solution");
    }

    /// Four rows of rank three (a face on a face) share a load rather than blowing up.
    #[test]
    fn dependent_rows_share_the_load() {
        let mut lcp = DenseLcp::default();
        // One body of unit mass and inertia; four corner points of a unit square below it,
        // pushing up: rows [n, r × n] with n = y.
        let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
        let rows: Vec<[f64; 6]> = corners.iter().map(|&(x, z)| [0.0, 1.0, 0.0, -z, 0.0, x]).collect();
        lcp.reset(4);
        for i in 0..4 {
            for j in 0..=i {
                lcp.add(i, j, (0..6).map(|c| rows[i][c] * rows[j][c]).sum());
            }
        }
        lcp.regularise();
        let (r, mut x) = ([-1.0; 4], [0.0; 4]);
        assert!(lcp.solve(&r, &[0.0; 4], &[f64::INFINITY; 4], &mut x, &mut Vec::new()));
        for xi in x {
            assert!((xi - 0.25).abs() < 1e-3, "{x:?}");
        }
    }
}
