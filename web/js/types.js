// The shapes of the live-games API (docs/API.md, notes LIVE_API.md) as JSDoc types, so
// the type-checker holds every page to the server's contract. No code lives here.

/** @typedef {"first" | "second"} Side */
/** @typedef {"fetlar" | "copenhagen" | "camelot"} GameKind */
/** @typedef {"attacker" | "defender" | "king" | "knight" | "man"} PieceKind */
/** @typedef {"plain" | "throne" | "corner" | {castle: Side}} Mark */
/** @typedef {{file: number, rank: number}} Square */

/**
 * One square of the board's frame.
 * @typedef {object} Cell
 * @property {boolean} exists
 * @property {[Side, PieceKind] | null} piece
 * @property {Mark} mark
 */

/**
 * What the browser draws: cells rank by rank from rank 1 (index = rank * files + file).
 * @typedef {object} BoardView
 * @property {GameKind} kind
 * @property {number} files
 * @property {number} ranks
 * @property {string[]} file_names
 * @property {string[]} rank_names
 * @property {Cell[]} cells
 * @property {Side} to_move
 */

/**
 * A legal move with its geometry; sent back to the server by its text.
 * @typedef {object} MoveInfo
 * @property {string} text
 * @property {Square} from
 * @property {Square} to
 * @property {Square[]} path
 * @property {Square[]} captures
 */

/**
 * A move played in a game.
 * @typedef {MoveInfo & {ply: number, player: Side}} PlayedMove
 */

/**
 * @typedef {"corner_escape" | "king_captured" | "exit_fort" | "encirclement" |
 *   "no_legal_moves" | "repetition" | "timeout" | "resignation" | "castle" |
 *   "elimination" | "material" | "fifty_moves" | "agreement" | "adjudication" |
 *   "abandonment"} EndReason
 */

/** @typedef {{winner: Side | null, reason: EndReason}} GameResult */

/**
 * @typedef {object} PlayerInfo
 * @property {Side} side
 * @property {string} name
 * @property {boolean} user
 * @property {number | null} ai
 * @property {number | null} [rating]
 * @property {boolean} [provisional]
 */

/** @typedef {{first_ms: number, second_ms: number, running: Side | null}} Clocks */

/**
 * The `game` object of a `state` message and of `GET /api/games/{id}`.
 * @typedef {object} GameState
 * @property {string} id
 * @property {GameKind} kind
 * @property {number} rev
 * @property {"waiting" | "ongoing" | "finished" | "aborted"} status
 * @property {GameResult | null} result
 * @property {PlayerInfo[]} players
 * @property {Side | null} you
 * @property {string} time_control
 * @property {boolean} rated
 * @property {BoardView} board
 * @property {BoardView} [start_board] the position before the first move (to browse
 *   earlier positions); optional: without it only the current position is shown
 * @property {string} [start_position] the position string the game started from, when
 *   not the standard start (imported games); optional
 * @property {PlayedMove[]} moves
 * @property {MoveInfo[]} legal_moves
 * @property {Clocks | null} clocks
 * @property {Side | null} draw_offer
 * @property {Side | null} takeback_request
 * @property {number} watchers
 * @property {Absence[]} [absent] the players who left a live game, and when the opponent
 *   may claim against them
 */

/**
 * A player who left a live game (every socket of theirs closed): `state`'s `absent` and
 * the `absent` message.
 * @typedef {{side: Side, claim_in_ms: number}} Absence
 */

/**
 * A game being played now (`GET /api/games?status=live`, lobby socket).
 * @typedef {object} LiveGame
 * @property {string} id
 * @property {GameKind} kind
 * @property {PlayerInfo[]} players
 * @property {BoardView} board
 * @property {string} time_control
 * @property {boolean} rated
 * @property {number} watchers
 */

/**
 * An open challenge in the lobby.
 * @typedef {object} Challenge
 * @property {string} id
 * @property {GameKind} kind
 * @property {string} time_control
 * @property {Side | "random"} side
 * @property {boolean} rated
 * @property {string} [by] the challenger's name
 * @property {number | null} [rating]
 */

/** @typedef {{cp: number} | {win_in: number} | {loss_in: number}} Score */

export {};

// --- accounts, players and the archive (docs/API.md) ----------------------------------

/**
 * `GET /api/whoami`.
 * @typedef {{kind: "user", name: string, created_at: number} | {kind: "guest", name: string} | {kind: "anonymous"}} WhoAmI
 */

/** @typedef {{type: "user", name: string} | {type: "guest", name: string} | {type: "ai", level: number}} PlayerRef */

/**
 * A game in a list (archive, profile).
 * @typedef {object} GameSummary
 * @property {string} id
 * @property {GameKind} kind
 * @property {PlayerRef | null} first
 * @property {PlayerRef | null} second
 * @property {string} time_control
 * @property {boolean} rated
 * @property {string} status
 * @property {"first" | "second" | "draw" | null} result
 * @property {EndReason | null} reason
 * @property {number} plies
 * @property {number} created_at
 * @property {number | null} finished_at
 * @property {boolean} [imported] whether it came from a record
 * @property {{first: string | null, second: string | null}} [names] the players a record names
 */

/**
 * @typedef {object} RatingRecord
 * @property {GameKind} kind
 * @property {number} rating
 * @property {number} deviation
 * @property {boolean} provisional
 * @property {number} games
 * @property {number} wins
 * @property {number} losses
 * @property {number} draws
 */

/** @typedef {{kind: GameKind, game_id: string, rating: number, deviation: number, recorded_at: number}} RatingPoint */
/** @typedef {{opponent: PlayerRef, games: number, wins: number, losses: number, draws: number}} OpponentRecord */

/**
 * `GET /api/players/{name}`.
 * @typedef {object} Profile
 * @property {string} name
 * @property {number} created_at
 * @property {RatingRecord[]} ratings
 * @property {RatingPoint[]} rating_history
 * @property {OpponentRecord[]} opponents
 * @property {GameSummary[]} recent_games
 */

/** @typedef {{games: GameSummary[], page: number, pages: number}} ArchivePage */
