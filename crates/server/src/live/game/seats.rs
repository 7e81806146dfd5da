//! The seats: who takes the open one, and the rematch both players (or a player and the
//! AI) agree on. Functions of the record: the owner stores what they decide.

use game::Player;

use crate::live::Ident;
use crate::live::messages::Refusal;
use crate::store::{GameRecord, GameStatus, Seat};

/// The side `ident` takes in `record`.
///
/// # Errors
/// The game is not waiting for a player, they already play in it, or no seat is open.
pub(crate) fn open_side(record: &GameRecord, ident: &Ident) -> Result<Player, Refusal> {
    if record.status != GameStatus::Waiting {
        return Err(Refusal::not_allowed(
            "seats_taken",
            "both seats are already taken",
        ));
    }
    if ident.side_in(record).is_some() {
        return Err(Refusal::not_allowed(
            "already_playing",
            "you already play in this game",
        ));
    }
    Player::BOTH
        .into_iter()
        .find(|&p| record.seat(p).is_open())
        .ok_or_else(|| Refusal::not_allowed("seats_taken", "no seat is open"))
}

/// Where a rematch stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rematch {
    /// Who has asked (indexed by [`Player::index`]).
    asked: [bool; 2],
    /// The new game, once made.
    made: Option<String>,
}

/// What a player's asking for a rematch comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// It was made already: this game.
    Made(String),
    /// Asked: the opponent has not agreed yet.
    Asked,
    /// Both agree: make the game with these seats (sides swapped), then [`Rematch::made`].
    Agreed {
        /// The new game's first seat (this game's second).
        first: Seat,
        /// Its second seat.
        second: Seat,
    },
}

impl Rematch {
    /// Who has asked, while a rematch can still be made (`None` once it is).
    pub(crate) fn open(&self) -> Option<[bool; 2]> {
        self.made.is_none().then_some(self.asked)
    }

    /// `player` asks for a rematch of `record` (`over`: the game has ended).
    ///
    /// # Errors
    /// The game is not over, or a seat is empty.
    pub(crate) fn ask(
        &mut self,
        record: &GameRecord,
        over: bool,
        player: Player,
    ) -> Result<Step, Refusal> {
        if !over {
            return Err(Refusal::not_allowed(
                "rematch_after_end",
                "a rematch can be asked for once the game is over",
            ));
        }
        if let Some(id) = &self.made {
            return Ok(Step::Made(id.clone()));
        }
        self.asked[player.index()] = true;
        let opponent = player.other();
        if !self.asked[opponent.index()] && record.seat(opponent).ai_level.is_none() {
            return Ok(Step::Asked);
        }
        match (
            record.seat(Player::Second).seat(),
            record.seat(Player::First).seat(),
        ) {
            (Some(first), Some(second)) => Ok(Step::Agreed { first, second }),
            _ => Err(Refusal::not_allowed("seat_empty", "a seat is empty")),
        }
    }

    /// The rematch agreed was made: game `id`.
    pub(crate) fn made(&mut self, id: &str) {
        self.made = Some(id.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{ai, game, guest, user};
    use super::*;
    use crate::store::SeatRecord;
    use game::GameKind;

    fn person(user: Option<&str>, guest: Option<&str>) -> Ident {
        Ident {
            user: user.map(str::to_owned),
            guest: guest.map(str::to_owned),
        }
    }

    #[test]
    fn the_open_seat_goes_to_someone_not_yet_playing() {
        let record = game(
            GameKind::Copenhagen,
            user("a"),
            SeatRecord::default(),
            "5+3",
        );
        assert_eq!(
            open_side(&record, &person(None, Some("g"))),
            Ok(Player::Second)
        );
        let mine = open_side(&record, &person(Some("a"), None)).unwrap_err();
        assert_eq!(mine.reason, Some("already_playing"));
        let full = game(GameKind::Copenhagen, user("a"), guest("g"), "5+3");
        let taken = open_side(&full, &person(Some("b"), None)).unwrap_err();
        assert_eq!(taken.reason, Some("seats_taken"));
    }

    #[test]
    fn a_rematch_needs_both_and_swaps_the_sides() {
        let record = game(GameKind::Copenhagen, user("a"), guest("g"), "5+3");
        let mut rematch = Rematch::default();
        let early = rematch.ask(&record, false, Player::First).unwrap_err();
        assert_eq!(early.reason, Some("rematch_after_end"));
        assert_eq!(rematch.open(), Some([false, false]));
        assert_eq!(rematch.ask(&record, true, Player::First), Ok(Step::Asked));
        assert_eq!(rematch.open(), Some([true, false]));
        assert_eq!(
            rematch.ask(&record, true, Player::Second),
            Ok(Step::Agreed {
                first: Seat::Guest("g".into()),
                second: Seat::User("a".into()),
            })
        );
        rematch.made("g2");
        assert_eq!(rematch.open(), None);
        assert_eq!(
            rematch.ask(&record, true, Player::First),
            Ok(Step::Made("g2".into()))
        );
    }

    #[test]
    fn the_ai_always_agrees_to_a_rematch() {
        let record = game(GameKind::Camelot, ai(5), user("a"), "untimed");
        let mut rematch = Rematch::default();
        assert_eq!(
            rematch.ask(&record, true, Player::Second),
            Ok(Step::Agreed {
                first: Seat::User("a".into()),
                second: Seat::Ai(5),
            })
        );
    }
}
