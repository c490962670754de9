//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]
pub mod anim_eval;
#[path = "../../crates/kiln-process/tests/support/assbin.rs"]
pub mod assbin;
pub mod assxml;
pub mod classic_decode;
pub mod compare;
pub mod dae_gen;
pub mod report;
