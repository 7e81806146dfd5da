//! WCF move notation: the start square, then every landing square, each after `-`
//! (plain move or canter leap) or `x` (jump). `I8-J9`, `C6-E8-G8`, `F6xD8xD10xF12`,
//! `D7-F5-H7-H9xF11xD11`, castle move `F16-G16`. Captured pieces stand on the middle
//! squares of the `x` steps.
//!
//! A move may have several paths (S1). [`Position::format_move`] writes one canonical
//! path: a pure jump sequence if the move has one, otherwise a charge with the fewest
//! canter leaps; ties go to the first direction in [`Direction::ALL`](crate::Direction::ALL) order (north first,
//! clockwise) at each step. [`Position::parse_move`] accepts any valid path, in upper or
//! lower case, and says why an invalid one is illegal.
//!
//! ```
//! use camelot::Position;
//!
//! let pos = Position::start();
//! let mv = pos.parse_move("c6-e8").unwrap();
//! assert_eq!(pos.format_move(mv), "C6-E8");
//! let err = pos.parse_move("D6-D4").unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "D6-D4 is illegal: there is nothing on D5 to leap over"
//! );
//! ```

use std::fmt;
use std::str::FromStr;

use crate::bitboard::Bitboard;
use crate::movegen::Context;
use crate::moves::Move;
use crate::position::{Piece, Position};
use crate::setup::side_name;
use crate::square::{ParseSquareError, Square};
use crate::tables::{LEAPS, square};

/// How a step of a path reaches its square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// A plain move to an adjacent square (`-`).
    Plain,
    /// A canter leap over a friendly piece (`-`).
    Canter,
    /// A jump over an enemy piece, capturing it (`x`).
    Jump,
}

/// One step of a [`Path`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// How the square is reached.
    pub kind: StepKind,
    /// The square reached.
    pub to: Square,
}

/// A move written out square by square, as in WCF notation. Reading a path only checks
/// its shape (adjacent squares for `-` steps of one square, leaps of two squares in a
/// line); [`Position::move_from_path`] checks it against a position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path {
    /// The start square.
    pub from: Square,
    /// The steps, at least one.
    pub steps: Vec<Step>,
}

impl Path {
    /// The last square reached.
    #[must_use]
    pub fn to(&self) -> Square {
        self.steps.last().map_or(self.from, |s| s.to)
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.from)?;
        for step in &self.steps {
            let sep = if step.kind == StepKind::Jump {
                'x'
            } else {
                '-'
            };
            write!(f, "{sep}{}", step.to)?;
        }
        Ok(())
    }
}

/// Why a text is not shaped like a move path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// Nothing was given.
    #[error("empty move")]
    Empty,
    /// A square name is wrong.
    #[error(transparent)]
    Square(#[from] ParseSquareError),
    /// Only a start square.
    #[error("a move needs a square to go to after {0}, as in {0}-E8")]
    NoStep(Square),
    /// A separator other than `-` or `x`.
    #[error("expected '-' or 'x' after {after}, found {found:?}")]
    Separator {
        /// The square before it.
        after: Square,
        /// What was there.
        found: char,
    },
    /// A step that is neither to an adjacent square nor a leap of two in a line.
    #[error("{to} is neither next to {from} nor two squares away on a line, so no single step or leap goes there{}", hint.as_ref().map(|h| format!(" (did you mean {h}?)")).unwrap_or_default())]
    NotALeap {
        /// Where the step starts.
        from: Square,
        /// Where it ends.
        to: Square,
        /// A legal move between the same squares, if the text came with a position.
        hint: Option<String>,
    },
    /// An `x` step to an adjacent square.
    #[error(
        "{from}x{to}: a jump leaps over the next square to the one beyond, so {to} is too close"
    )]
    ShortJump {
        /// Where the step starts.
        from: Square,
        /// Where it ends.
        to: Square,
    },
}

impl FromStr for Path {
    type Err = PathError;

    /// Reads `C6-E8-G8`, `f6xd8xd10xf12`… (shape only).
    fn from_str(s: &str) -> Result<Path, PathError> {
        let text = s.trim();
        if text.is_empty() {
            return Err(PathError::Empty);
        }
        let mut squares = Vec::new();
        let mut seps = Vec::new();
        let mut rest = text;
        loop {
            let end = rest
                .char_indices()
                .skip(1)
                .find(|&(_, c)| !c.is_ascii_digit())
                .map_or(rest.len(), |(i, _)| i);
            let sq: Square = rest[..end].parse()?;
            squares.push(sq);
            rest = &rest[end..];
            let Some(sep) = rest.chars().next() else {
                break;
            };
            match sep {
                '-' => seps.push(false),
                'x' | 'X' => seps.push(true),
                other => {
                    return Err(PathError::Separator {
                        after: sq,
                        found: other,
                    });
                }
            }
            rest = &rest[sep.len_utf8()..];
        }
        let from = squares[0];
        if squares.len() == 1 {
            return Err(PathError::NoStep(from));
        }
        let mut steps = Vec::with_capacity(seps.len());
        for (i, &jump) in seps.iter().enumerate() {
            let (a, b) = (squares[i], squares[i + 1]);
            let kind = match (a.line_to(b), jump) {
                (Some((_, 1)), false) => StepKind::Plain,
                (Some((_, 1)), true) => return Err(PathError::ShortJump { from: a, to: b }),
                (Some((_, _)), false) => StepKind::Canter,
                (Some((_, _)), true) => StepKind::Jump,
                (None, _) => {
                    return Err(PathError::NotALeap {
                        from: a,
                        to: b,
                        hint: None,
                    });
                }
            };
            steps.push(Step { kind, to: b });
        }
        Ok(Path { from, steps })
    }
}

/// Why a move is not legal in the position (the rule it breaks is named in brackets).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    /// The game is already over.
    #[error("the game is over ({0})")]
    GameOver(String),
    /// The start square holds no piece of the side to move.
    #[error("there is no {side} piece on {square}")]
    NoPiece {
        /// `White` or `Black`.
        side: &'static str,
        /// The square.
        square: Square,
    },
    /// A piece in the opponent's castle tried to leave it.
    #[error("the piece on {square} is in the opponent's castle and may not leave it (S8)")]
    LeavesCastle {
        /// Its square.
        square: Square,
    },
    /// No castle moves left.
    #[error("{side} has already made both of its castle moves (S8)")]
    CastleMovesUsed {
        /// `White` or `Black`.
        side: &'static str,
    },
    /// A step lands on an occupied square.
    #[error("{square} is occupied")]
    Occupied {
        /// The square.
        square: Square,
    },
    /// A plain move into the own castle.
    #[error("cannot enter own castle by a plain move (S9)")]
    OwnCastlePlain,
    /// A canter into the own castle.
    #[error("cannot enter own castle by a canter (S9): {square}")]
    OwnCastleCanter {
        /// The castle square.
        square: Square,
    },
    /// A plain step followed or preceded by more steps.
    #[error("a plain move is a single step and combines with nothing (S6)")]
    PlainNotAlone,
    /// A leap over an empty square.
    #[error("there is nothing on {over} to leap over")]
    NothingToLeap {
        /// Where the leap starts.
        from: Square,
        /// Where it lands.
        to: Square,
        /// The empty square in between.
        over: Square,
    },
    /// A `-` leap over an enemy piece.
    #[error("{over} holds an enemy piece: leaping it is a jump, written {from}x{to} (R3)")]
    CanterOverEnemy {
        /// Where the leap starts.
        from: Square,
        /// Where it lands.
        to: Square,
        /// The enemy's square.
        over: Square,
    },
    /// An `x` leap over a friendly piece.
    #[error(
        "{over} holds a piece of the mover's side: leaping it is a canter, written {from}-{to} (R2)"
    )]
    JumpOverFriend {
        /// Where the leap starts.
        from: Square,
        /// Where it lands.
        to: Square,
        /// The friendly piece's square.
        over: Square,
    },
    /// A jump over a piece captured earlier in the same move.
    #[error("the piece on {over} was already captured in this move (S3)")]
    AlreadyCaptured {
        /// Its square.
        over: Square,
    },
    /// A canter leap after a jump.
    #[error("a canter cannot follow a jump: a knight's charge is canters, then jumps (R4)")]
    CanterAfterJump,
    /// A man combining canter and jump.
    #[error("a man cannot combine a canter with a jump; only a knight charges (S6)")]
    ManCharge,
    /// A knight's canter landing where it could jump, in a move that captures nothing.
    #[error(
        "knight must jump from {at}: its canter lands there next to an enemy piece it could jump, and the move captures nothing (S5)"
    )]
    KnightMustJump {
        /// The landing square.
        at: Square,
    },
    /// A jump sequence that stops while another jump is possible.
    #[error("the jumping must go on from {at}: another jump is possible there (R3)")]
    MustGoOnJumping {
        /// Where it stopped.
        at: Square,
    },
    /// Steps after entering the opponent's castle.
    #[error("the move ends on entering the opponent's castle at {at} (S7)")]
    EndedInCastle {
        /// The castle square entered.
        at: Square,
    },
    /// A canter back to its start.
    #[error("a canter may not end on the square where it began (R2)")]
    CanterReturns,
    /// A move that captures nothing while a jump is available.
    #[error("capture is compulsory: the piece on {by} can jump (S4)")]
    CaptureCompulsory {
        /// A piece that can jump.
        by: Square,
    },
    /// Another piece moved while one must leave its own castle.
    #[error("{side} must first move the piece on {square} out of its own castle (S10)")]
    MustLeaveCastle {
        /// `White` or `Black`.
        side: &'static str,
        /// The castle square.
        square: Square,
    },
    /// The piece leaving its own castle moved without capturing though it can jump.
    #[error("the piece leaving its castle from {square} must jump, as it can (S10)")]
    MustJumpOutOfCastle {
        /// The castle square.
        square: Square,
    },
    /// The move does not match any legal move (reported for moves given as data).
    #[error("{0} is not a legal move here")]
    NotLegal(String),
}

/// Why a move text was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not shaped like a move.
    #[error("{text:?} is not a move: {error}")]
    Syntax {
        /// The text given.
        text: String,
        /// What is wrong with it.
        error: PathError,
    },
    /// The move is shaped right but illegal here.
    #[error("{text} is illegal: {reason}")]
    Illegal {
        /// The move as given.
        text: String,
        /// Why.
        reason: Illegal,
    },
}

impl MoveError {
    /// The reason, when the move was illegal rather than malformed.
    #[must_use]
    pub fn reason(&self) -> Option<&Illegal> {
        match self {
            MoveError::Illegal { reason, .. } => Some(reason),
            MoveError::Syntax { .. } => None,
        }
    }
}

/// The error for a move given as data that is not legal: the main obligation it breaks
/// when one is easily found.
pub(crate) fn explain_illegal(pos: &Position, mv: Move) -> MoveError {
    let text = pos.format_move(mv);
    let reason = if let Some(outcome) = pos.outcome() {
        Illegal::GameOver(crate::game_state::describe(outcome))
    } else {
        let cx = Context::new(pos);
        let side = side_name(pos.side_to_move());
        if !cx.own.contains(mv.from) {
            Illegal::NoPiece {
                side,
                square: mv.from,
            }
        } else if let (true, Some(square)) = (
            cx.duty,
            (cx.movers - Bitboard::from_square(mv.from)).first(),
        ) {
            Illegal::MustLeaveCastle { side, square }
        } else if let (true, false, Some(by)) =
            (cx.must_capture(), mv.is_capture(), cx.jumpers.first())
        {
            Illegal::CaptureCompulsory { by }
        } else {
            Illegal::NotLegal(text.clone())
        }
    };
    MoveError::Illegal { text, reason }
}

/// Searches a pure jump path from `at` that captures exactly `todo` and ends on `to`,
/// respecting forced continuation (R3) and the castle (S7).
fn jump_path(
    cx: &Context,
    at: u8,
    to: Square,
    todo: Bitboard,
    enemies: Bitboard,
    empty: Bitboard,
    steps: &mut Vec<Step>,
) -> bool {
    let in_castle = cx.opp_castle.contains_index(at);
    if todo.is_empty() {
        return square(at) == to && (in_castle || !Context::can_jump(at, enemies, empty));
    }
    if in_castle {
        return false;
    }
    for leap in &LEAPS[at as usize] {
        if todo.contains_index(leap.over)
            && enemies.contains_index(leap.over)
            && empty.contains_index(leap.land)
        {
            let over = Bitboard::from_index(leap.over);
            steps.push(Step {
                kind: StepKind::Jump,
                to: square(leap.land),
            });
            if jump_path(
                cx,
                leap.land,
                to,
                todo - over,
                enemies - over,
                empty | over,
                steps,
            ) {
                return true;
            }
            steps.pop();
        }
    }
    false
}

/// Breadth-first canter search from `from` avoiding `forbidden` landings: each reached
/// square with its parent, in the order reached.
fn canter_tree(cx: &Context, from: Square, forbidden: Bitboard) -> Vec<(u8, u8)> {
    let friends = cx.own.without(from);
    let allowed = (cx.empty.with(from) - cx.own_castle) - forbidden;
    let mut visited = Bitboard::from_square(from);
    let start = from.index() as u8;
    let mut tree = vec![(start, start)];
    let mut head = 0;
    while head < tree.len() {
        let at = tree[head].0;
        head += 1;
        if cx.opp_castle.contains_index(at) {
            continue;
        }
        for leap in &LEAPS[at as usize] {
            if friends.contains_index(leap.over)
                && allowed.contains_index(leap.land)
                && !visited.contains_index(leap.land)
            {
                visited = visited.with_index(leap.land);
                tree.push((leap.land, at));
            }
        }
    }
    tree
}

/// The canter steps from the root of `tree` to `target`.
fn canter_steps(tree: &[(u8, u8)], target: u8) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut at = target;
    while let Some(&(sq, parent)) = tree.iter().find(|(sq, _)| *sq == at) {
        if sq == parent {
            break;
        }
        steps.push(Step {
            kind: StepKind::Canter,
            to: square(sq),
        });
        at = parent;
    }
    steps.reverse();
    steps
}

impl Position {
    /// The canonical path of a legal move (see the [module documentation](crate::notation)),
    /// or `None` if `mv` is not legal here.
    #[must_use]
    pub fn move_path(&self, mv: Move) -> Option<Path> {
        if !self.is_legal(mv) {
            return None;
        }
        path_in(&Context::new(self), mv)
    }

    /// The canonical paths of `moves`, each one of the legal moves here (as
    /// [`Position::legal_moves`] lists them), worked out with one look at the position
    /// for them all and without checking each move again: what [`Position::move_path`]
    /// answers for each. For a move that is not legal the answer means nothing.
    #[must_use]
    pub fn legal_move_paths(&self, moves: &[Move]) -> Vec<Option<Path>> {
        if moves.is_empty() {
            return Vec::new();
        }
        let cx = Context::new(self);
        moves.iter().map(|&mv| path_in(&cx, mv)).collect()
    }
}

/// The canonical path of `mv`, a legal move of the position `cx` looks at.
fn path_in(cx: &Context, mv: Move) -> Option<Path> {
    let from = mv.from;
    let path = |steps| Some(Path { from, steps });
    if mv.captured.is_empty() {
        if let Some((_, 1)) = from.line_to(mv.to) {
            return path(vec![Step {
                kind: StepKind::Plain,
                to: mv.to,
            }]);
        }
        let forbidden = if cx.knights.contains(from) {
            cx.knight_jump_squares(cx.base_jumps, from)
        } else {
            Bitboard::EMPTY
        };
        let tree = canter_tree(cx, from, forbidden);
        return path(canter_steps(&tree, mv.to.index() as u8));
    }
    let lifted = cx.empty.with(from);
    let mut steps = Vec::new();
    if jump_path(
        cx,
        from.index() as u8,
        mv.to,
        mv.captured,
        cx.opp,
        lifted,
        &mut steps,
    ) {
        return path(steps);
    }
    for &(at, _) in canter_tree(cx, from, Bitboard::EMPTY).iter().skip(1) {
        let mut jumps = Vec::new();
        if !cx.opp_castle.contains_index(at)
            && jump_path(cx, at, mv.to, mv.captured, cx.opp, lifted, &mut jumps)
        {
            let tree = canter_tree(cx, from, Bitboard::EMPTY);
            let mut steps = canter_steps(&tree, at);
            steps.extend(jumps);
            return path(steps);
        }
    }
    None
}

impl Position {
    /// The move in WCF notation with its canonical path. A move that is not legal here
    /// is written `from-to` (or `fromxto` if it captures) so that it can still be shown.
    #[must_use]
    pub fn format_move(&self, mv: Move) -> String {
        match self.move_path(mv) {
            Some(path) => path.to_string(),
            None => {
                let sep = if mv.is_capture() { 'x' } else { '-' };
                format!("{}{sep}{}", mv.from, mv.to)
            }
        }
    }

    /// Reads a move in WCF notation, by any valid path, and checks that it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let trimmed = text.trim();
        let path: Path = trimmed.parse().map_err(|error| MoveError::Syntax {
            text: trimmed.to_owned(),
            error: self.with_hint(error),
        })?;
        self.move_from_path(&path)
            .map_err(|reason| MoveError::Illegal {
                text: path.to_string(),
                reason,
            })
    }

    fn with_hint(&self, error: PathError) -> PathError {
        match error {
            PathError::NotALeap { from, to, .. } => {
                let hint = self
                    .legal_moves_from(from)
                    .into_iter()
                    .find(|mv| mv.to == to)
                    .map(|mv| self.format_move(mv));
                PathError::NotALeap { from, to, hint }
            }
            other => other,
        }
    }

    /// Checks a path against this position and returns its move, or the rule it breaks.
    pub fn move_from_path(&self, path: &Path) -> Result<Move, Illegal> {
        if let Some(outcome) = self.static_outcome() {
            return Err(Illegal::GameOver(crate::game_state::describe(outcome)));
        }
        let side = self.side_to_move();
        let side_text = side_name(side);
        let from = path.from;
        let kind = match self.piece_at(from) {
            Some((player, kind)) if player == side => kind,
            _ => {
                return Err(Illegal::NoPiece {
                    side: side_text,
                    square: from,
                });
            }
        };
        let cx = Context::new(self);
        if cx.opp_castle.contains(from) {
            return self.check_castle_move(&cx, path);
        }

        let mut enemies = cx.opp;
        let mut empty = cx.empty.with(from);
        let mut captured = Bitboard::EMPTY;
        let mut at = from;
        let mut phase: Option<StepKind> = None;
        let mut canter_landings = Vec::new();
        for step in &path.steps {
            if at != from && cx.opp_castle.contains(at) {
                return Err(Illegal::EndedInCastle { at });
            }
            let to = step.to;
            match step.kind {
                StepKind::Plain => {
                    if path.steps.len() > 1 {
                        return Err(Illegal::PlainNotAlone);
                    }
                    if !empty.contains(to) {
                        return Err(Illegal::Occupied { square: to });
                    }
                    if cx.own_castle.contains(to) {
                        return Err(Illegal::OwnCastlePlain);
                    }
                }
                StepKind::Canter | StepKind::Jump => {
                    let (dir, _) = at.line_to(to).expect("paths hold leaps of two squares");
                    let over = at.step(dir).expect("a leap's middle square exists");
                    let friend = cx.own.without(from).contains(over);
                    let enemy = enemies.contains(over);
                    if step.kind == StepKind::Canter {
                        if enemy {
                            return Err(Illegal::CanterOverEnemy { from: at, to, over });
                        }
                        if !friend {
                            return Err(Illegal::NothingToLeap { from: at, to, over });
                        }
                        if phase == Some(StepKind::Jump) {
                            return Err(Illegal::CanterAfterJump);
                        }
                        if !empty.contains(to) {
                            return Err(Illegal::Occupied { square: to });
                        }
                        if cx.own_castle.contains(to) {
                            return Err(Illegal::OwnCastleCanter { square: to });
                        }
                        canter_landings.push(to);
                    } else {
                        if friend {
                            return Err(Illegal::JumpOverFriend { from: at, to, over });
                        }
                        if captured.contains(over) {
                            return Err(Illegal::AlreadyCaptured { over });
                        }
                        if !enemy {
                            return Err(Illegal::NothingToLeap { from: at, to, over });
                        }
                        if phase == Some(StepKind::Canter) {
                            if kind == Piece::Man {
                                return Err(Illegal::ManCharge);
                            }
                            if at == from {
                                return Err(Illegal::CanterReturns);
                            }
                        }
                        if !empty.contains(to) {
                            return Err(Illegal::Occupied { square: to });
                        }
                        captured = captured.with(over);
                        enemies = enemies.without(over);
                        empty = empty.with(over);
                    }
                }
            }
            phase = Some(step.kind);
            at = to;
        }

        let end = at.index() as u8;
        match phase {
            Some(StepKind::Jump)
                if !cx.opp_castle.contains(at) && Context::can_jump(end, enemies, empty) =>
            {
                return Err(Illegal::MustGoOnJumping { at });
            }
            Some(StepKind::Canter) => {
                if at == from {
                    return Err(Illegal::CanterReturns);
                }
                if kind == Piece::Knight {
                    let lifted = cx.empty.with(from);
                    if let Some(&bad) = canter_landings.iter().find(|sq| {
                        !cx.opp_castle.contains(**sq)
                            && Context::can_jump(sq.index() as u8, cx.opp, lifted)
                    }) {
                        return Err(Illegal::KnightMustJump { at: bad });
                    }
                }
            }
            _ => {}
        }

        let mv = Move {
            from,
            to: at,
            captured,
        };
        self.check_obligations(&cx, mv)?;
        if !self.is_legal(mv) {
            return Err(Illegal::NotLegal(path.to_string()));
        }
        Ok(mv)
    }

    fn check_castle_move(&self, cx: &Context, path: &Path) -> Result<Move, Illegal> {
        let from = path.from;
        let to = path.to();
        let castle_step = path.steps.len() == 1
            && path.steps[0].kind == StepKind::Plain
            && cx.opp_castle.contains(to);
        if !castle_step {
            return Err(Illegal::LeavesCastle { square: from });
        }
        if !cx.empty.contains(to) {
            return Err(Illegal::Occupied { square: to });
        }
        if !cx.castle_moves_left {
            return Err(Illegal::CastleMovesUsed {
                side: side_name(self.side_to_move()),
            });
        }
        let mv = Move::quiet(from, to);
        self.check_obligations(cx, mv)?;
        if !self.is_legal(mv) {
            return Err(Illegal::NotLegal(path.to_string()));
        }
        Ok(mv)
    }

    fn check_obligations(&self, cx: &Context, mv: Move) -> Result<(), Illegal> {
        let side = side_name(self.side_to_move());
        if cx.duty {
            if !cx.movers.contains(mv.from) {
                let square = cx.movers.first().expect("duty means a piece in the castle");
                return Err(Illegal::MustLeaveCastle { side, square });
            }
            if cx.must_capture() && !mv.is_capture() {
                return Err(Illegal::MustJumpOutOfCastle { square: mv.from });
            }
        } else if let (true, Some(by)) = (cx.must_capture() && !mv.is_capture(), cx.jumpers.first())
        {
            return Err(Illegal::CaptureCompulsory { by });
        }
        Ok(())
    }
}
