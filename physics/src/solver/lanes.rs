//! Which way the contact and plain ball joint passes run: a switch for tests, which check that
//! every way gives the same result bit for bit.

/// How the contact and plain ball joint passes run. Every way gives the same result bit for
/// bit; tests check it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SolverLanes {
    /// One batch at a time on four lanes (SSE or NEON), and the contact fill without AVX.
    Four,
    /// Two batches at a time on eight AVX lanes, in sixteen registers.
    Avx,
    /// Two batches at a time on eight lanes, in AVX-512VL's 32 registers (the widest).
    #[default]
    Avx512,
}
