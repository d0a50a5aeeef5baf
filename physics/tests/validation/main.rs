//! The physics against theory: each case compares what the engine does with the closed-form
//! answer, under a stated tolerance, at 60 Hz with 4 substeps and at the default settings.
//! `cargo test -p atoll-physics --test validation -- --nocapture` prints every figure.

mod breaking;
mod compound_mass;
mod double_pendulum;
mod energy;
mod free_body;
mod hanging_chain;
mod incline;
mod limits;
mod mass_ratio;
mod motors;
mod newtons_cradle;
mod pendulum;
mod support;
mod suspension;
