//! The server's socket messages as the load generator reads them: the one place that
//! knows their shape (`docs/API.md`, "GET /ws/game/{id}"). Unknown message types and
//! fields are ignored, so that the server may add to them.

use serde_json::Value;

/// A message from a game socket, reduced to what the players need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    /// The whole game (`state`).
    State(GameState),
    /// Changes since a revision (`events`), with the receiver's legal moves after them.
    Events(Events),
    /// The agreed rematch (`rematch`).
    Rematch(String),
    /// A refused message (`error`).
    Error {
        /// The stable code (`rate_limited`, `illegal_move`…).
        code: String,
        /// The server's sentence.
        message: String,
    },
    /// Anything else (`pong`, `watchers`, types added later).
    Other,
}

/// What a `state` message says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GameState {
    /// Its revision.
    pub rev: u64,
    /// `waiting`, `ongoing`, `finished` or `aborted`.
    pub status: String,
    /// `first` or `second` (empty when the server does not say).
    pub to_move: String,
    /// The receiver's seat (`None` for a spectator).
    pub you: Option<String>,
    /// The receiver's legal moves (empty unless it is the receiver's turn).
    pub legal: Vec<String>,
    /// The moves played, as texts.
    pub moves: Vec<String>,
}

impl GameState {
    /// Whether the game is over (or was called off).
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.status == "finished" || self.status == "aborted"
    }
}

/// What an `events` message says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Events {
    /// The events, oldest first.
    pub events: Vec<Event>,
    /// The receiver's legal moves after them (`None` when the message has none).
    pub legal: Option<Vec<String>>,
}

/// One event of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Its revision.
    pub revision: u64,
    /// A move's text when the event is a move.
    pub moved: Option<String>,
    /// The seat that moved, for a move.
    pub player: Option<String>,
    /// Whether the game is over after it (a move that ended it, `ended`, `aborted`).
    pub ends: bool,
}

impl Events {
    /// The last revision the message brings.
    #[must_use]
    pub fn last_revision(&self) -> Option<u64> {
        self.events.iter().map(|e| e.revision).max()
    }

    /// Whether any event ends the game.
    #[must_use]
    pub fn ends(&self) -> bool {
        self.events.iter().any(|e| e.ends)
    }
}

/// The texts of a list of moves: objects with a `text` (a `state`'s `legal_moves` and
/// `moves`), or the wire form's arrays whose first element is the text (an `events`
/// message's `legal`).
fn texts(list: Option<&Value>) -> Vec<String> {
    list.and_then(Value::as_array)
        .map(|moves| {
            moves
                .iter()
                .filter_map(|m| {
                    m.get("text")
                        .or_else(|| m.get(0))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn string(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).map(str::to_owned)
}

/// Reads a `state`'s game object (also what `GET /api/games/{id}` answers).
#[must_use]
pub fn game_state(game: &Value) -> GameState {
    GameState {
        rev: game.get("rev").and_then(Value::as_u64).unwrap_or(0),
        status: string(game.get("status")).unwrap_or_default(),
        to_move: string(game.get("board").and_then(|b| b.get("to_move"))).unwrap_or_default(),
        you: string(game.get("you")),
        legal: texts(game.get("legal_moves")),
        moves: texts(game.get("moves")),
    }
}

fn event(value: &Value) -> Event {
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
    let moved = (kind == "moved")
        .then(|| string(value.get("move").and_then(|m| m.get("text"))))
        .flatten();
    let ends = matches!(kind, "ended" | "aborted")
        || (kind == "moved" && value.get("outcome").is_some_and(|o| !o.is_null()));
    Event {
        revision: value.get("revision").and_then(Value::as_u64).unwrap_or(0),
        moved,
        player: string(value.get("player")),
        ends,
    }
}

/// Reads one text message of a game socket. `None` when it is not JSON at all.
#[must_use]
pub fn parse(text: &str) -> Option<Incoming> {
    let value: Value = serde_json::from_str(text).ok()?;
    Some(match value.get("t").and_then(Value::as_str) {
        Some("state") => Incoming::State(game_state(value.get("game").unwrap_or(&Value::Null))),
        Some("events") => Incoming::Events(Events {
            events: value
                .get("events")
                .and_then(Value::as_array)
                .map(|events| events.iter().map(event).collect())
                .unwrap_or_default(),
            // `legal` in the wire form (`legal_moves` from a server before it).
            legal: value
                .get("legal")
                .or_else(|| value.get("legal_moves"))
                .map(|l| texts(Some(l))),
        }),
        Some("rematch") => Incoming::Rematch(string(value.get("id")).unwrap_or_default()),
        Some("error") => Incoming::Error {
            code: string(value.get("code")).unwrap_or_default(),
            message: string(value.get("message")).unwrap_or_default(),
        },
        _ => Incoming::Other,
    })
}

/// The move message for `text`, chosen on revision `rev`.
#[must_use]
pub fn move_message(rev: u64, text: &str) -> String {
    serde_json::json!({"t": "move", "rev": rev, "move": text}).to_string()
}

/// A message without fields: `hello` (revision 0: send the whole state), `resign`,
/// `ping`, `rematch`.
#[must_use]
pub fn simple(t: &str) -> String {
    if t == "hello" {
        serde_json::json!({"t": "hello", "rev": 0}).to_string()
    } else {
        serde_json::json!({ "t": t }).to_string()
    }
}

/// An analysis request (`/ws/analysis`) of the start of `kind` for `time_ms`.
#[must_use]
pub fn analyze(kind: &str, time_ms: u64) -> String {
    serde_json::json!({"t": "analyze", "kind": kind, "position": "", "moves": [], "time_ms": time_ms})
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_events_message() {
        let text = r#"{"t":"events","from_rev":4,"events":[{"revision":5,"at":1795546301234,"type":"moved",
          "player":"first","move":{"text":"d1-d3","from":{"file":3,"rank":0},"to":{"file":3,"rank":2},
          "path":[],"captures":[]},"clocks":null,"outcome":null}],
          "pieces":"...AAAAA...","to_move":"second","clocks":null,"new_field":1,
          "legal":[["a4-a1",33,0,[]],["F9-D11-B7",104,78,[],[104,128,78]]]}"#;
        let Some(Incoming::Events(events)) = parse(text) else {
            panic!("not events");
        };
        assert_eq!(events.last_revision(), Some(5));
        assert_eq!(events.events[0].moved.as_deref(), Some("d1-d3"));
        assert_eq!(events.events[0].player.as_deref(), Some("first"));
        assert!(!events.ends());
        assert_eq!(
            events.legal,
            Some(vec!["a4-a1".to_owned(), "F9-D11-B7".to_owned()])
        );
        // A server from before the wire form.
        let older = r#"{"t":"events","events":[],"legal_moves":[{"text":"a4-a1"}]}"#;
        let Some(Incoming::Events(events)) = parse(older) else {
            panic!("not events");
        };
        assert_eq!(events.legal, Some(vec!["a4-a1".to_owned()]));
    }

    #[test]
    fn a_move_with_an_outcome_or_an_ended_event_ends_the_game() {
        let moved = r#"{"t":"events","events":[{"revision":9,"type":"moved","move":{"text":"a1-a2"},"outcome":{"winner":"first"}}]}"#;
        let ended = r#"{"t":"events","events":[{"revision":3,"type":"ended","outcome":{}}]}"#;
        for text in [moved, ended] {
            let Some(Incoming::Events(events)) = parse(text) else {
                panic!("not events");
            };
            assert!(events.ends(), "{text}");
        }
    }

    #[test]
    fn reads_the_state_and_ignores_unknown_messages() {
        let text = r#"{"t":"state","game":{"rev":2,"status":"ongoing","you":"second",
          "board":{"to_move":"second"},"moves":[{"text":"d1-d3"},{"text":"e5-e3"}],
          "legal_moves":[{"text":"k4-i4"}]}}"#;
        assert_eq!(
            parse(text),
            Some(Incoming::State(GameState {
                rev: 2,
                status: "ongoing".into(),
                to_move: "second".into(),
                you: Some("second".into()),
                legal: vec!["k4-i4".into()],
                moves: vec!["d1-d3".into(), "e5-e3".into()],
            }))
        );
        assert_eq!(
            parse(r#"{"t":"watchers","count":3}"#),
            Some(Incoming::Other)
        );
        assert_eq!(parse(r#"{"t":"something_new"}"#), Some(Incoming::Other));
        assert_eq!(parse("not json"), None);
        assert_eq!(
            parse(r#"{"t":"error","code":"stale","message":"old"}"#),
            Some(Incoming::Error {
                code: "stale".into(),
                message: "old".into()
            })
        );
    }
}
