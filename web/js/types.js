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
 * A legal move in the compact wire form of `events` messages: `[text, from, to,
 * captures]`, with the path as a fifth element where it is more than `[from, to]`, and
 * each square as its cell index `rank * files + file` (`wire.js` reads it back).
 * @typedef {[string, number, number, number[]] | [string, number, number, number[], number[]]} WireMove
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

/** @typedef {"waiting" | "ongoing" | "finished" | "aborted"} GameStatus */

/**
 * What a player may send now: the tag of the client message that does it.
 * @typedef {"abort" | "resign" | "draw_offer" | "draw_accept" | "draw_decline" |
 *   "takeback" | "takeback_accept" | "takeback_decline" | "give_time" | "rematch"} ActionName
 */

/** What each player may do now (the server says; the page shows it). @typedef {{first: ActionName[], second: ActionName[]}} Actions */

/**
 * The `game` object of a `state` message and of `GET /api/games/{id}`.
 * @typedef {object} GameState
 * @property {string} id
 * @property {GameKind} kind
 * @property {number} rev
 * @property {GameStatus} status
 * @property {GameResult | null} result
 * @property {Side | null} [ended_by] who resigned, whose flag fell, or who left (and was
 *   claimed against)
 * @property {number} [played_at] when it was made; for an imported game, the day its
 *   record gives (ms since the Unix epoch)
 * @property {PlayerInfo[]} players
 * @property {Side | null} you
 * @property {string} time_control
 * @property {boolean} correspondence whether it is played by correspondence (days per
 *   move, `3d`)
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
 * @property {Actions} actions
 * @property {ChatRights} chat what this viewer may do in each room of the game's chat
 */

/**
 * What a viewer may do in one room of a game's chat: read it while the game goes on,
 * read it once the game is over, write in it (a spectator needs an account).
 * @typedef {{read: boolean, read_over: boolean, write: boolean}} RoomRights
 */

/**
 * What a viewer may do in each room of a game's chat (all false in a game without chat:
 * against the AI, or a seat open).
 * @typedef {{players: RoomRights, spectators: RoomRights}} ChatRights
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
 * @property {number} created_at
 */

/**
 * What changed in a game of the lobby's list: the cells that differ as [index, cell],
 * the side to move, the watchers, and the players only when they changed.
 * @typedef {object} LiveGameChange
 * @property {string} id
 * @property {[number, Cell][]} cells
 * @property {Side} to_move
 * @property {number} watchers
 * @property {PlayerInfo[]} [players]
 */

/** `GET /api/games?status=live`: a page of the games being played. @typedef {{games: LiveGame[], page: number, pages: number, total: number}} LivePage */

/**
 * An open challenge in the lobby.
 * @typedef {object} Challenge
 * @property {string} id
 * @property {GameKind} kind
 * @property {string} time_control
 * @property {Side | "random"} side
 * @property {boolean} rated
 * @property {string | null} by the challenger's name
 * @property {number} created_at
 * @property {number} expires_at when it lapses unless accepted
 * @property {string} [to] the player a direct challenge is made to (absent: the lobby's)
 */

/**
 * A player's direct challenges (`GET /api/me/challenges`, `my_challenges` on `/ws/lobby`).
 * @typedef {object} MyChallenges
 * @property {Challenge[]} incoming made to them, waiting for their answer
 * @property {Challenge[]} outgoing made by them, waiting for the other's answer
 */

/**
 * One change of a game (`events` message).
 * @typedef {{revision: number, at: number} & (
 *   {type: "moved", player: Side, move: MoveInfo, clocks: unknown, outcome: GameResult | null} |
 *   {type: "takeback_requested" | "takeback_declined" | "draw_offered" | "draw_declined", by: Side} |
 *   {type: "aborted", by: Side, reason?: "asked" | "no_first_move" | "abandoned"} |
 *   {type: "resumed", paused_ms: number, clocks: unknown} |
 *   {type: "time_given", by: Side, ms: number, clocks: unknown} |
 *   {type: "taken_back", by: Side, plies: number, clocks: unknown} |
 *   {type: "ended", outcome: GameResult, by?: Side, clocks: unknown})} GameEvent
 */

/**
 * What changed from `from_rev` to `rev`, and the game after it.
 * @typedef {object} EventsMessage
 * @property {"events"} t
 * @property {number} from_rev
 * @property {number} rev
 * @property {GameEvent[]} events
 * @property {GameStatus} status
 * @property {GameResult | null} result
 * @property {string} pieces the board's pieces, a character a cell in the order of
 *   `cells` (`.` none; the kind's initial, upper case for the first player's)
 * @property {Side} to_move
 * @property {WireMove[]} legal filled only for the side to move
 * @property {Clocks | null} clocks
 * @property {Side | null} draw_offer
 * @property {Side | null} takeback_request
 * @property {Actions} actions
 */

/**
 * What the server sends on `/ws/game/{id}`.
 * @typedef {{t: "state", game: GameState} | EventsMessage | {t: "clocks", clocks: Clocks | null} |
 *   {t: "watchers", count: number} | {t: "rematch", id: string} | {t: "absent", absent: Absence[]} |
 *   {t: "error", code: string, message: string, reason?: string} | ChatMessage | {t: "pong"}} GameSocketMessage
 */

/** A chat room: a game's two, or the lobby's. @typedef {"players" | "spectators" | "lobby"} ChatRoom */

/**
 * A chat message (`chat` on the game socket, and in `GET /api/games/{id}/chat`).
 * @typedef {object} ChatMessage
 * @property {"chat"} [t]
 * @property {string} id
 * @property {ChatRoom} room
 * @property {string} from the author's name
 * @property {boolean} guest whether the author is a guest
 * @property {string} text
 * @property {number} at ms since the Unix epoch
 */

/**
 * A reported chat message, for a moderator (`GET /api/mod/reports`).
 * @typedef {object} ChatReport
 * @property {string} message_id
 * @property {string} [game_id] absent for the lobby chat
 * @property {ChatRoom} room
 * @property {string} author
 * @property {boolean} author_is_account only accounts can be sanctioned
 * @property {string} body
 * @property {number} said_at
 * @property {string} reporter
 * @property {string} reason may be empty
 * @property {number} reported_at
 */

/**
 * One of the player's games not yet over (`GET /api/me/games`, the lobby socket's
 * `my_games` and `my_game`): it waits for the player when `to_move` is `you`.
 * @typedef {object} MyGame
 * @property {string} id
 * @property {GameKind} kind
 * @property {Side} you the player's side
 * @property {GameStatus} status `finished` or `aborted` only in the last `my_game` of it
 * @property {PlayerInfo[]} players
 * @property {string} time_control
 * @property {boolean} rated
 * @property {Side | null} to_move null unless ongoing
 * @property {Clocks | null} clocks the time left when the message was made
 * @property {Side | null} draw_offer
 * @property {Side | null} takeback_request
 * @property {GameResult | null} result
 * @property {number} plies
 */

/**
 * The player's own games on `/ws/lobby` (all of them with `?feed=me`).
 * @typedef {{t: "my_games", games: MyGame[]} | {t: "my_game", game: MyGame} |
 *   ({t: "my_challenges"} & MyChallenges) | {t: "pong"}} MySocketMessage
 */

/**
 * A message of the lobby chat (`lobby_chat` on `/ws/lobby`).
 * @typedef {object} LobbyChatLine
 * @property {string} id
 * @property {string} from the author's name
 * @property {string} text
 * @property {number} at ms since the Unix epoch
 */

/**
 * What the server sends on `/ws/lobby`.
 * @typedef {{t: "snapshot", v: number, games: LiveGame[], live: number, challenges: Challenge[]} |
 *   {t: "changes", v: number, games_added: LiveGame[], games_changed: LiveGameChange[], games_removed: string[],
 *    live: number, challenges_added: Challenge[], challenges_removed: string[]} |
 *   {t: "challenge_accepted", challenge: string, game: string} |
 *   ({t: "lobby_chat"} & LobbyChatLine) | {t: "lobby_chat_history", messages: LobbyChatLine[]} |
 *   {t: "error", code: string, message: string, reason?: string} | MySocketMessage} LobbySocketMessage
 */

/** @typedef {{cp: number} | {win_in: number} | {loss_in: number}} Score */

export {};

// --- accounts, players and the archive (docs/API.md) ----------------------------------

/**
 * `GET /api/whoami`.
 * @typedef {{kind: "user", name: string, created_at: number, moderator?: boolean} | {kind: "guest", name: string} | {kind: "anonymous"}} WhoAmI
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
 * @property {Side | null} [ended_by] who resigned, whose flag fell, or who left
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
 * @property {number | null} [rank] the place in the game's rating list (null while provisional)
 */

/** @typedef {{kind: GameKind, game_id: string, rating: number, deviation: number, recorded_at: number}} RatingPoint */
/** @typedef {{opponent: PlayerRef, games: number, wins: number, losses: number, draws: number}} OpponentRecord */

/**
 * `GET /api/players/{name}`.
 * @typedef {object} Profile
 * @property {string} name
 * @property {number} created_at
 * @property {RatingRecord[]} ratings
 * @property {boolean} [online] whether they have a page of the site open now
 * @property {RatingPoint[]} rating_history
 * @property {number} initial_rating the rating before a player's first rated game
 * @property {OpponentRecord[]} opponents
 * @property {GameSummary[]} recent_games
 */

/** @typedef {{games: GameSummary[], page: number, pages: number}} ArchivePage */

/**
 * A player of the rating list.
 * @typedef {object} Standing
 * @property {number} rank
 * @property {string} name
 * @property {number} rating
 * @property {number} deviation
 * @property {number} games
 * @property {number} wins
 * @property {number} losses
 * @property {number} draws
 * @property {number} last_active ms since the Unix epoch
 * @property {boolean} online
 */

/**
 * `GET /api/ratings`: a page of one game's rating list, and how many are online.
 * @typedef {{game: GameKind, players: Standing[], page: number, pages: number, total: number, online: number}} RatingList
 */

/**
 * The AI's levels (`GET /api/levels`): each level's estimated rating in each game, on a
 * scale fixed by the one-ply greedy player (`anchor`) at `anchor_rating`.
 * @typedef {{anchor: string, anchor_rating: number, levels: Array<{level: number, name: string, ratings: Record<GameKind, number>}>}} LevelList
 */
