//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]
pub mod assxml;
pub mod classic_decode;
pub mod compare;
