//! One evaluation per game.
//!
//! - [`tafl`]: Fetlar and Copenhagen Hnefatafl.
//! - Camelot: to come here as `camelot.rs` once the `camelot` rules crate has landed
//!   (material with knights above men, progress towards the enemy castle, guarding the
//!   own castle, pieces exposed to jumps, mobility), with `impl EngineGame for
//!   camelot::Camelot` in `eval.rs`.

pub mod tafl;
