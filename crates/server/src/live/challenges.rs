//! Challenges. The lobby's: posted (at most [`CHALLENGES_PER_POSTER`] open per poster),
//! accepted (the game starts at once and the poster's lobby sockets are told where it
//! is), withdrawn, lapsed (30 minutes for a live game, a week for correspondence: see
//! [`crate::store::LIVE_CHALLENGE_TTL_MS`]), and withdrawn when their poster leaves the
//! lobby (live games only: a poster who closes their last lobby socket is not waiting
//! any more; a reload within [`POSTER_GRACE`] keeps them). Direct ones, from one account
//! to another (at most [`CHALLENGES_TO_ONE`] waiting for one account's answer): not in
//! the lobby; each of the two accounts' personal sockets is told whenever their list
//! changes (`my_challenges`), and only the account challenged accepts or declines.

use std::time::Duration;

use game::Player;
use games::AnyGame;

use super::messages::ChallengeView;
use super::{Ident, SetupError, start_stored};
use crate::state::AppState;
use crate::store::{
    CHALLENGES_TO_ONE, Challenge, ChallengeSide, NewChallenge, NewGame, Seat, StoreError, now_ms,
};

/// How many open challenges one poster may have.
pub const CHALLENGES_PER_POSTER: usize = 3;
/// How long a poster's live challenges outlast their last lobby socket (a page reload).
pub const POSTER_GRACE: Duration = Duration::from_secs(5);
/// How often lapsed challenges are closed.
const SWEEP_EVERY: Duration = Duration::from_secs(30);

/// Why a challenge action is refused.
#[derive(Debug, thiserror::Error)]
pub enum ChallengeError {
    /// No such challenge.
    #[error("no such challenge")]
    NotFound,
    /// One's own challenge cannot be accepted.
    #[error("you cannot accept your own challenge")]
    Own,
    /// Accepted by someone else, withdrawn, or lapsed.
    #[error("the challenge was taken, withdrawn or has lapsed")]
    Gone,
    /// The poster has too many open.
    #[error(
        "you have {CHALLENGES_PER_POSTER} open challenges already: withdraw one or wait for an answer"
    )]
    TooMany,
    /// Only a signed-in user may play rated.
    #[error("sign in to play rated games")]
    RatedGuest,
    /// A direct challenge is accepted or declined only by the player it is made to.
    #[error("this challenge is made to another player")]
    NotForYou,
    /// The player challenged has too many challenges waiting.
    #[error("{0} has {CHALLENGES_TO_ONE} challenges waiting already: try again later")]
    TooManyForThem(String),
    /// The game could not be set up.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A stored challenge as the lobby shows it.
#[must_use]
pub fn challenge_view(challenge: &Challenge) -> ChallengeView {
    ChallengeView {
        id: challenge.id.clone(),
        kind: challenge.kind,
        time_control: challenge.time_control.clone(),
        side: challenge.side.as_str().to_owned(),
        rated: challenge.rated,
        by: challenge.creator.player().map(|p| match p {
            crate::store::PlayerRef::User { name } | crate::store::PlayerRef::Guest { name } => {
                name
            }
            crate::store::PlayerRef::Ai { level } => format!("AI level {level}"),
        }),
        created_at: challenge.created_at,
        expires_at: challenge.expires_at(),
        to: challenge.to_username.clone(),
    }
}

/// The accounts a direct challenge concerns (its maker and the player challenged), to
/// tell them their list changed.
fn tell_both(state: &AppState, challenge: &Challenge) {
    if challenge.to_user_id.is_none() {
        return;
    }
    let users: Vec<&str> = [&challenge.creator.user_id, &challenge.to_user_id]
        .into_iter()
        .filter_map(Option::as_deref)
        .collect();
    state.live.people().challenges_changed(&users);
}

/// The `my_challenges` message of the account `user_id`: the direct challenges made to
/// them (`incoming`) and by them (`outgoing`), newest first.
///
/// # Errors
/// On a database failure.
pub async fn my_challenges(state: &AppState, user_id: &str) -> Result<MyChallenges, StoreError> {
    let all = state.store.direct_challenges_of(user_id, now_ms()).await?;
    let (incoming, outgoing): (Vec<_>, Vec<_>) = all
        .iter()
        .partition(|c| c.to_user_id.as_deref() == Some(user_id));
    Ok(MyChallenges {
        incoming: incoming.into_iter().map(challenge_view).collect(),
        outgoing: outgoing.into_iter().map(challenge_view).collect(),
    })
}

/// A player's direct challenges (`GET /api/me/challenges`, and `my_challenges` on their
/// personal socket).
#[derive(Debug, serde::Serialize)]
pub struct MyChallenges {
    /// Made to them, waiting for their answer.
    pub incoming: Vec<ChallengeView>,
    /// Made by them, waiting for the other's answer.
    pub outgoing: Vec<ChallengeView>,
}

/// [`my_challenges`] as the personal socket sends it.
///
/// # Errors
/// On a database failure.
pub async fn my_challenges_text(
    state: &AppState,
    user_id: &str,
) -> Result<std::sync::Arc<str>, StoreError> {
    #[derive(serde::Serialize)]
    struct Message {
        t: &'static str,
        #[serde(flatten)]
        list: MyChallenges,
    }
    let list = my_challenges(state, user_id).await?;
    Ok(super::feed::to_text(&Message {
        t: "my_challenges",
        list,
    }))
}

fn poster_of(challenge: &Challenge) -> Ident {
    Ident {
        user: challenge.creator.user_id.clone(),
        guest: challenge.creator.guest_id.clone(),
    }
}

/// The open challenges, newest first, as `GET /api/challenges` lists them.
///
/// # Errors
/// On a database failure.
pub async fn open_challenges(state: &AppState) -> Result<Vec<ChallengeView>, StoreError> {
    let limit = i64::try_from(super::lobby::CHALLENGES_SHOWN).unwrap_or(100);
    Ok(state
        .store
        .open_challenges(limit, now_ms())
        .await?
        .iter()
        .map(challenge_view)
        .collect())
}

/// Fills the lobby with the open challenges (at start).
pub(super) async fn load_lobby(state: &AppState) -> Result<(), StoreError> {
    let now = now_ms();
    state.store.expire_challenges(now).await?;
    let limit = i64::try_from(super::lobby::CHALLENGES_SHOWN).unwrap_or(100);
    let open = state.store.open_challenges(limit, now).await?;
    state.live.lobby().set_challenges(
        open.iter()
            .map(|c| (challenge_view(c), poster_of(c)))
            .collect(),
    );
    Ok(())
}

/// Closes lapsed challenges every [`SWEEP_EVERY`] until shutdown.
pub fn spawn_challenge_sweeper(state: &AppState) {
    let state = state.clone();
    let tasks = state.tasks.clone();
    tasks.spawn(async move {
        let mut tick = tokio::time::interval(SWEEP_EVERY);
        loop {
            tokio::select! {
                () = state.shutdown.cancelled() => break,
                _ = tick.tick() => match state.store.expire_challenges(now_ms()).await {
                    Ok(ids) => {
                        for id in ids {
                            state.live.lobby().challenge_removed(&id);
                        }
                    }
                    Err(error) => tracing::warn!(%error, "closing lapsed challenges"),
                },
            }
        }
    });
}

/// Posts a challenge by `poster` (who takes `challenge.creator`'s seat).
///
/// # Errors
/// [`ChallengeError::TooMany`] past [`CHALLENGES_PER_POSTER`];
/// [`ChallengeError::RatedGuest`]; a database failure.
pub async fn post_challenge(
    state: &AppState,
    poster: Ident,
    challenge: NewChallenge,
) -> Result<ChallengeView, ChallengeError> {
    if challenge.rated && !matches!(challenge.creator, Seat::User(_)) {
        return Err(ChallengeError::RatedGuest);
    }
    let now = now_ms();
    let open = state
        .store
        .open_challenges_of(&challenge.creator, now)
        .await?;
    if open.len() >= CHALLENGES_PER_POSTER {
        return Err(ChallengeError::TooMany);
    }
    if let Some(to) = &challenge.to_user_id {
        let waiting = state.store.direct_challenges_of(to, now).await?;
        let incoming = waiting
            .iter()
            .filter(|c| c.to_user_id.as_ref() == Some(to))
            .count();
        if incoming >= CHALLENGES_TO_ONE {
            let name = waiting
                .iter()
                .find_map(|c| c.to_username.clone())
                .unwrap_or_default();
            return Err(ChallengeError::TooManyForThem(name));
        }
    }
    let stored = state.store.create_challenge(&challenge, now).await?;
    let view = challenge_view(&stored);
    if stored.to_user_id.is_some() {
        tell_both(state, &stored);
    } else {
        state.live.lobby().challenge_added(view.clone(), poster);
    }
    Ok(view)
}

/// The player challenged (`user_id`) declines the direct challenge `id`.
///
/// # Errors
/// [`ChallengeError::NotFound`], [`ChallengeError::NotForYou`],
/// [`ChallengeError::Gone`]; a database failure.
pub async fn decline_challenge(
    state: &AppState,
    id: &str,
    user_id: &str,
) -> Result<(), ChallengeError> {
    let challenge = state
        .store
        .challenge(id)
        .await?
        .ok_or(ChallengeError::NotFound)?;
    if challenge.to_user_id.as_deref() != Some(user_id) {
        return Err(ChallengeError::NotForYou);
    }
    state
        .store
        .decline_challenge(id, user_id)
        .await
        .map_err(|e| match e {
            StoreError::NotFound(_) => ChallengeError::Gone,
            other => other.into(),
        })?;
    tell_both(state, &challenge);
    Ok(())
}

/// `acceptor` (taking `seat`) accepts challenge `id`: the game is stored and started at
/// once (a `random` side drawn now), and the poster's lobby sockets are sent its id.
/// Returns the game's id.
///
/// # Errors
/// [`ChallengeError::NotFound`], [`ChallengeError::Own`], [`ChallengeError::Gone`],
/// [`ChallengeError::RatedGuest`]; a database failure.
pub async fn accept_challenge(
    state: &AppState,
    id: &str,
    acceptor: &Ident,
    seat: Seat,
) -> Result<String, ChallengeError> {
    let challenge = state
        .store
        .challenge(id)
        .await?
        .ok_or(ChallengeError::NotFound)?;
    if acceptor.owns(&challenge.creator) {
        return Err(ChallengeError::Own);
    }
    if let Some(to) = &challenge.to_user_id
        && acceptor.user.as_ref() != Some(to)
    {
        return Err(ChallengeError::NotForYou);
    }
    if challenge.expires_at() <= now_ms() {
        return Err(ChallengeError::Gone);
    }
    if challenge.rated && !matches!(seat, Seat::User(_)) {
        return Err(ChallengeError::RatedGuest);
    }
    let poster = poster_of(&challenge);
    let creator = poster.seat().ok_or(ChallengeError::Gone)?;
    let creator_side = match challenge.side {
        ChallengeSide::First => Player::First,
        ChallengeSide::Second => Player::Second,
        ChallengeSide::Random => {
            if rand::random::<bool>() {
                Player::First
            } else {
                Player::Second
            }
        }
    };
    let (first, second) = match creator_side {
        Player::First => (creator, seat),
        Player::Second => (seat, creator),
    };
    let new = NewGame {
        kind: challenge.kind,
        first,
        second,
        time_control: challenge.time_control.clone(),
        rated: challenge.rated,
        start_position: AnyGame::start(challenge.kind).start_position_string(),
        session_state: None,
    };
    let record = state
        .store
        .accept_challenge(id, &new, now_ms())
        .await
        .map_err(|e| match e {
            StoreError::Conflict(_) => ChallengeError::Gone,
            other => other.into(),
        })?;
    let game = record.id.clone();
    start_stored(state, record).await?;
    let lobby = state.live.lobby();
    lobby.challenge_removed(id);
    lobby.tell_accepted(poster, id, &game);
    tell_both(state, &challenge);
    Ok(game)
}

/// `by` withdraws their challenge `id`.
///
/// # Errors
/// [`StoreError::NotFound`] when `by` has no open challenge with this id.
pub async fn cancel_challenge(state: &AppState, id: &str, by: &Seat) -> Result<(), StoreError> {
    state.store.cancel_challenge(id, by).await?;
    state.live.lobby().challenge_removed(id);
    if let Some(challenge) = state.store.challenge(id).await? {
        tell_both(state, &challenge);
    }
    Ok(())
}

/// `who` closed their last lobby socket: unless they are back within [`POSTER_GRACE`],
/// their challenges for live games are withdrawn.
pub fn poster_left(state: &AppState, who: Ident) {
    let Some(seat) = who.seat() else { return };
    let state = state.clone();
    tokio::spawn(async move {
        tokio::time::sleep(POSTER_GRACE).await;
        if state.live.lobby().is_present(&who) {
            return;
        }
        match state.store.cancel_live_challenges_of(&seat).await {
            Ok(ids) => {
                for id in ids {
                    state.live.lobby().challenge_removed(&id);
                }
            }
            Err(error) => tracing::warn!(%error, "withdrawing a departed poster's challenges"),
        }
    });
}
