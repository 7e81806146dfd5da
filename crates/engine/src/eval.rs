//! What the search needs to know about a game beyond [`game::Game`]: a static
//! evaluation, and the game's forcing moves (immediate wins, threats to win, captures),
//! which steer move ordering, quiescence and extensions.

use std::hash::{Hash, Hasher};

use game::Game;

/// One game's knowledge for the search. Scores are from the point of view of the side to
/// move, in centipawn-like units (a tafl attacker is worth about 100).
///
/// The defaults make any [`Game`] searchable with nothing but an evaluation: captures
/// (from [`Game::captures`]) are the forcing moves and there are no threats.
pub trait Evaluator<G: Game>: Send + Sync {
    /// What an evaluation keeps from one call to the next in one search thread, to
    /// update rather than recompute (tafl: the network's accumulator and the position
    /// it belongs to). `()` for an evaluation that keeps nothing.
    type Memo: Default + Send;

    /// The static evaluation of a position whose game is not over.
    fn evaluate(&self, game: &G) -> i32;

    /// The same value as [`Evaluator::evaluate`], computed with the help of `memo`,
    /// which the previous call of this search thread left (for any position: the
    /// search evaluates positions a move or two apart, so the update is small) and
    /// which this call leaves for the next.
    fn evaluate_with(&self, game: &G, _memo: &mut Self::Memo) -> i32 {
        self.evaluate(game)
    }

    /// A legal move that ends the game at once in favour of the side to move, if there
    /// is one that is cheap to see (tafl: the king reaching a corner, the king captured).
    /// The search plays no other move when there is one.
    fn winning_move(&self, _game: &G) -> Option<G::Move> {
        None
    }

    /// Whether the opponent would have such a winning move if it were its turn: the side
    /// to move must answer the threat (like being in check). The search extends these
    /// positions and searches every move in them in quiescence.
    fn in_danger(&self, _game: &G) -> bool {
        false
    }

    /// Both at once: the winning move if there is one, otherwise whether the side to
    /// move is in danger (or, for games that see it, whether a threat it cannot answer
    /// looms: [`Threats::Looming`]). The search asks this at every node; override it
    /// when the two share work.
    fn threats(&self, game: &G) -> Threats<G::Move> {
        match self.winning_move(game) {
            Some(mv) => Threats::Win(mv),
            None if self.in_danger(game) => Threats::Danger,
            None => Threats::None,
        }
    }

    /// In a position where [`Evaluator::in_danger`] holds, clears `keep[i]` for each move
    /// that cannot answer the threat (the opponent then wins at once), so the search
    /// skips it. `keep` starts all true; by default every move is kept.
    fn mark_evasions(&self, _game: &G, _moves: &[G::Move], _keep: &mut [bool]) {}

    /// Bonuses for move ordering: 0 for a quiet move, more for captures and threats.
    /// `scores` has one slot per move and starts zeroed. Moves with a positive score are
    /// never reduced or pruned.
    fn tactical_scores(&self, game: &G, moves: &[G::Move], scores: &mut [i32]) {
        for (mv, score) in moves.iter().zip(scores.iter_mut()) {
            *score = game.captures(*mv) as i32 * 1000;
        }
    }

    /// The moves quiescence search tries: captures, and with `threats` also the quiet
    /// moves that threaten to win at once (a game may add, even without `threats`, the
    /// few moves that threaten two wins at once). Appends to `out` in a fixed order.
    fn forcing_moves(&self, game: &G, _threats: bool, out: &mut Vec<G::Move>) {
        let mut all = Vec::new();
        game.legal_moves(&mut all);
        out.extend(all.into_iter().filter(|&mv| game.captures(mv) > 0));
    }

    /// Whether the search may generate the moves of an inner node in two stages: first
    /// [`Evaluator::forcing_moves`] (without threats), searched before anything else
    /// is generated, then [`Evaluator::quiet_moves`] only if none of the first stage
    /// (or the hash move) cut the node off. A game opts in where its forcing moves are
    /// exactly the moves with a positive [`Evaluator::tactical_scores`] bonus and cost
    /// much less to find than all of them.
    fn staged_moves(&self) -> bool {
        false
    }

    /// With [`Evaluator::staged_moves`]: the legal moves that
    /// [`Evaluator::forcing_moves`] leaves out, in a fixed order. Asked only in
    /// positions whose game is not over, and where the side to move is not in danger.
    fn quiet_moves(&self, _game: &G, _out: &mut Vec<G::Move>) {}

    /// With [`Evaluator::staged_moves`]: a key below `0xFF00` that names the quiet
    /// move `mv` in this position, stored in the transposition table so that the hash
    /// move can be tried before the quiet moves are generated. `None`: the move is
    /// not stored.
    fn quiet_move_key(&self, _game: &G, _mv: G::Move) -> Option<u16> {
        None
    }

    /// The legal quiet move that [`Evaluator::quiet_move_key`] gave `key` for here,
    /// if there is one (a key may come from another position: check it).
    fn quiet_move_from_key(&self, _game: &G, _key: u16) -> Option<G::Move> {
        None
    }

    /// The number of slots in the history table.
    fn history_size(&self) -> usize {
        4096
    }

    /// The slot of a move (of the side to move) in the history table, below
    /// [`Evaluator::history_size`].
    fn history_key(&self, _game: &G, mv: G::Move) -> usize {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        mv.hash(&mut hasher);
        (hasher.finish() % self.history_size() as u64) as usize
    }
}

/// What [`Evaluator::threats`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threats<M> {
    /// The side to move wins at once with this move.
    Win(M),
    /// The opponent threatens to win at once.
    Danger,
    /// The opponent threatens no win at once, but has a move that would threaten two
    /// (tafl: the king can reach a square opening lines to two corners, or one beside a
    /// corner), so the side to
    /// move must act now or lose in a few plies. The search extends these nodes by a
    /// ply, as it does [`Threats::Danger`], so such a threat is not pushed past the
    /// horizon by a capture.
    Looming,
    /// None of these.
    None,
}

/// A game with a default evaluation, so generic code (the command line, protocols, the
/// server) can build an engine for it.
pub trait EngineGame: Game {
    /// The evaluation used unless the caller supplies another.
    type Evaluator: Evaluator<Self> + Default + Clone + 'static;
}

impl EngineGame for tafl::Tafl {
    type Evaluator = crate::games::tafl::TaflEval;
}

impl EngineGame for camelot::Camelot {
    type Evaluator = crate::games::camelot::CamelotEval;
}
