//! How a game ends (section 4 of the rules), in this order of precedence:
//!
//! 1. W1 — two pieces in the opponent's castle: that player wins ([`EndReason::Castle`]).
//! 2. D1 — both players have one piece or fewer: draw ([`EndReason::Material`]);
//!    W2 — one player has no piece left and the other two or more: the other wins
//!    ([`EndReason::Elimination`]).
//! 3. W3 — the player to move has no legal move: the opponent wins if it has two or
//!    more pieces, otherwise draw ([`EndReason::NoLegalMoves`]).
//! 4. D2 — third occurrence of the position: draw ([`EndReason::Repetition`]); needs the
//!    history, so only [`Camelot`](crate::Camelot) applies it.
//! 5. D3 — 100 plies without capture or move onto an opponent's castle square: draw
//!    ([`EndReason::FiftyMoves`]).
//!
//! D2 and D3 are not in the WCF's summary (the seed); they come from summaries of the
//! WCF's official rules, as CAMELOT.md records. A win found on the board takes
//! precedence over a draw by count, as a mate on the hundredth ply would in chess.

use game::{EndReason, Outcome, Player};

use crate::movegen::holds_castle;
use crate::position::Position;

/// Plies without capture or castle entry that draw the game (D3).
pub const FIFTY_MOVE_PLIES: u32 = 100;

/// W1, W2 and D1, then D3: the ends that need no move generation.
pub(crate) fn static_outcome(pos: &Position) -> Option<Outcome> {
    if let Some(outcome) = board_outcome(pos) {
        return Some(outcome);
    }
    if pos.clock() >= FIFTY_MOVE_PLIES {
        return Some(Outcome::draw(EndReason::FiftyMoves));
    }
    None
}

/// W1, W2 and D1.
pub(crate) fn board_outcome(pos: &Position) -> Option<Outcome> {
    let mover = pos.side_to_move().other();
    for player in [mover, mover.other()] {
        if holds_castle(pos, player) {
            return Some(Outcome::win(player, EndReason::Castle));
        }
    }
    let white = pos.pieces(Player::First);
    let black = pos.pieces(Player::Second);
    if white.has_at_most_one() && black.has_at_most_one() {
        return Some(Outcome::draw(EndReason::Material));
    }
    if black.is_empty() {
        return Some(Outcome::win(Player::First, EndReason::Elimination));
    }
    if white.is_empty() {
        return Some(Outcome::win(Player::Second, EndReason::Elimination));
    }
    None
}

/// W3: the player to move has no legal move.
pub(crate) fn no_move_outcome(pos: &Position) -> Option<Outcome> {
    if pos.has_legal_move() {
        return None;
    }
    let opponent = pos.side_to_move().other();
    Some(if pos.pieces(opponent).count() >= 2 {
        Outcome::win(opponent, EndReason::NoLegalMoves)
    } else {
        Outcome::draw(EndReason::NoLegalMoves)
    })
}

impl Position {
    /// How the game ends here by the rules, apart from repetition (D2), which needs the
    /// game's history (see [`Camelot`](crate::Camelot)): W1, W2/D1, W3, then D3.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        board_outcome(self)
            .or_else(|| no_move_outcome(self))
            .or_else(|| {
                (self.clock() >= FIFTY_MOVE_PLIES).then(|| Outcome::draw(EndReason::FiftyMoves))
            })
    }
}
