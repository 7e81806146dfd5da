//! Playing levels for people: the same six names everywhere (command line, web,
//! protocol option).
//!
//! | level | name       | search                  | noise | picks among moves within | about (Fetlar, Copenhagen, Camelot) |
//! |-------|------------|-------------------------|-------|--------------------------|------|
//! | 1     | `beginner` | 1 ply + quiescence      | ±60   | 120 of the best          | 1200, 1200, 1050 |
//! | 2     | `casual`   | 2 plies                 | ±40   | 60                       | 1350, 1450, 1300 |
//! | 3     | `club`     | 4 plies, ≤ 40k nodes    | ±15   | 20                       | 1700, 1900, 1800 |
//! | 4     | `expert`   | ≤ 150k nodes            | ±8    | 10                       | 2100, 2550, 2450 |
//! | 5     | `master`   | ≤ 1M nodes              | —     | best only                | 2350, 3000, 2950 |
//! | 6     | `maximum`  | everything the limits allow | — | best only                | 2550, 3150, 3200 (3 s a move) |
//!
//! The last column is [`Level::rating`]: each game's own scale, the one-ply greedy
//! player at 1000.
//!
//! Noise is a deterministic function of the position and the game's seed, so a level
//! plays the same game the same way for the same seed, and different games differently.
//! Lower levels never throw away a forced win they see and never choose a move they see
//! losing when another does not: the margin is in evaluation units, far below a won or
//! lost score. Time limits given by the caller still apply at every level.

use std::fmt;
use std::str::FromStr;

use game::GameKind;

/// A playing strength.
///
/// ```
/// use engine::Level;
/// assert_eq!("3".parse::<Level>(), Ok(Level::Club));
/// assert_eq!("Master".parse::<Level>(), Ok(Level::Master));
/// assert_eq!(Level::Beginner.to_string(), "beginner");
/// assert_eq!(Level::Maximum.number(), 6);
/// assert!("7".parse::<Level>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Level {
    /// 1: one ply and a noisy evaluation; plausible moves, easy to beat.
    Beginner = 1,
    /// 2: two plies, some noise.
    Casual = 2,
    /// 3: four plies, a little noise.
    Club = 3,
    /// 4: 150 thousand nodes, almost no noise.
    Expert = 4,
    /// 5: a million nodes (about a second), no noise.
    Master = 5,
    /// 6: full strength within the time given.
    #[default]
    Maximum = 6,
}

/// What a level changes in the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelSettings {
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Most nodes.
    pub nodes: Option<u64>,
    /// Amplitude of the deterministic evaluation noise (0: none).
    pub noise: i32,
    /// Moves scoring within this of the best may be chosen instead (0: the best only).
    pub margin: i32,
    /// How much worse than an even position a draw is for the side the search plays
    /// (0: the same). 0 here: the search sets it from [`Level::contempt`] for the game
    /// played, or from [`Engine::set_contempt`](crate::Engine::set_contempt).
    pub contempt: i32,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 6] = [
        Level::Beginner,
        Level::Casual,
        Level::Club,
        Level::Expert,
        Level::Master,
        Level::Maximum,
    ];

    /// 1 to 6.
    #[must_use]
    pub const fn number(self) -> u8 {
        self as u8
    }

    /// The name used everywhere (`beginner` … `maximum`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Casual => "casual",
            Level::Club => "club",
            Level::Expert => "expert",
            Level::Master => "master",
            Level::Maximum => "maximum",
        }
    }

    /// The rating of the scale's anchor, the one-ply greedy player of the match runner.
    pub const ANCHOR_RATING: u32 = 1000;

    /// The level's estimated rating in `kind`, on a scale fixed by the one-ply greedy
    /// player at [`Level::ANCHOR_RATING`], rounded to 50: measured by `kingstable
    /// levels` (each level against the one below, fitted together; `bench/RESULTS.md`,
    /// "The levels rated"). Not the site's player ratings, which start at 1500 and
    /// measure people against people.
    ///
    /// ```
    /// use engine::Level;
    /// use game::GameKind;
    /// for kind in GameKind::ALL {
    ///     for pair in Level::ALL.windows(2) {
    ///         assert!(pair[1].rating(kind) > pair[0].rating(kind));
    ///     }
    /// }
    /// ```
    #[must_use]
    pub const fn rating(self, kind: GameKind) -> u32 {
        let [fetlar, copenhagen, camelot] = RATINGS[self as usize - 1];
        match kind {
            GameKind::Fetlar => fetlar,
            GameKind::Copenhagen => copenhagen,
            GameKind::Camelot => camelot,
        }
    }

    /// How much worse than an even position a draw counts, in `kind`'s evaluation units,
    /// for the side the level plays, so that it plays on rather than repeat.
    ///
    /// Levels 5 and 6 in Fetlar: 100 (one attacker). There a third repetition is a draw,
    /// and a king threatening a corner from either end of an open rank, an attacker
    /// following him, could repeat his way to a draw the engine judged a little better
    /// than playing on; level 6 drew 7 of 12 games against level 5 so at 3 s a move.
    /// In Copenhagen a repetition is the attackers' win and no draw is left to the
    /// search; Camelot's draws (by repetition and by count) are left at 0, not measured
    /// with contempt yet.
    ///
    /// ```
    /// use engine::Level;
    /// use game::GameKind;
    /// assert_eq!(Level::Maximum.contempt(GameKind::Fetlar), 100);
    /// assert_eq!(Level::Expert.contempt(GameKind::Fetlar), 0);
    /// assert_eq!(Level::Maximum.contempt(GameKind::Camelot), 0);
    /// ```
    #[must_use]
    pub const fn contempt(self, kind: GameKind) -> i32 {
        match (self, kind) {
            (Level::Master | Level::Maximum, GameKind::Fetlar) => 100,
            _ => 0,
        }
    }

    /// The level's search settings.
    #[must_use]
    pub const fn settings(self) -> LevelSettings {
        match self {
            Level::Beginner => LevelSettings {
                depth: Some(1),
                nodes: None,
                noise: 60,
                margin: 120,
                contempt: 0,
            },
            Level::Casual => LevelSettings {
                depth: Some(2),
                nodes: None,
                noise: 40,
                margin: 60,
                contempt: 0,
            },
            Level::Club => LevelSettings {
                depth: Some(4),
                nodes: Some(40_000),
                noise: 15,
                margin: 20,
                contempt: 0,
            },
            Level::Expert => LevelSettings {
                depth: None,
                nodes: Some(150_000),
                noise: 8,
                margin: 10,
                contempt: 0,
            },
            Level::Master => LevelSettings {
                depth: None,
                nodes: Some(1_000_000),
                noise: 0,
                margin: 0,
                contempt: 0,
            },
            Level::Maximum => LevelSettings {
                depth: None,
                nodes: None,
                noise: 0,
                margin: 0,
                contempt: 0,
            },
        }
    }
}

/// Each level's estimated rating in Fetlar, Copenhagen and Camelot (see
/// [`Level::rating`]): the fit of `kingstable levels`, rounded to 50. The scale is each
/// game's own: the greedy player is 1000 in each, and no game's levels are compared
/// with another's.
///
/// Fetlar and Copenhagen, levels 1–5: measured again with the second generation of
/// the tafl network (2026-12-06, twentieth session; 20 games a match, 12 for level 5).
/// Fitted: Fetlar 1180, 1339, 1687, 2078, 2374; Copenhagen 1180, 1460, 1905, 2550,
/// 2982 (level 4 swept level 3 20–0 there, so its step is a lower bound more than a
/// measure). Level 6 at 3 s a move against level 5: Fetlar 2533 (+3 =3 −0 in 6
/// games), Copenhagen 3155 (+8 =2 −2 in 12, 2026-12-07).
/// Camelot, whose evaluation the network did not change (2026-11-28; 20 games a match,
/// 8 for levels 5 and 6 at 3 s a move): 1033, 1285, 1805, 2450, 2942, 3222.
const RATINGS: [[u32; 3]; 6] = [
    [1200, 1200, 1050],
    [1350, 1450, 1300],
    [1700, 1900, 1800],
    [2100, 2550, 2450],
    [2350, 3000, 2950],
    [2550, 3150, 3200],
];

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level that is neither 1–6 nor one of the names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?}: expected 1-6 or beginner, casual, club, expert, master, maximum")]
pub struct ParseLevelError(pub String);

impl FromStr for Level {
    type Err = ParseLevelError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let text = s.trim();
        Level::ALL
            .into_iter()
            .find(|level| {
                level.name().eq_ignore_ascii_case(text) || level.number().to_string() == text
            })
            .ok_or_else(|| ParseLevelError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ratings written out in the tables of this module's documentation and of the
    /// engine README, the last column of each level's row: "1200, 1200, 1050".
    fn table_ratings(text: &str, prefix: &str) -> Vec<[u32; 3]> {
        text.lines()
            .filter_map(|line| line.strip_prefix(prefix))
            .filter(|row| row.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .map(|row| {
                let last = row
                    .trim_end()
                    .trim_end_matches('|')
                    .rsplit('|')
                    .next()
                    .unwrap();
                let numbers: Vec<u32> = last
                    .split(|c: char| !c.is_ascii_digit())
                    .filter(|n| n.len() == 4)
                    .map(|n| n.parse().unwrap())
                    .collect();
                numbers[..3].try_into().unwrap()
            })
            .collect()
    }

    #[test]
    fn the_tables_of_the_levels_show_the_ratings_the_site_shows() {
        let ratings: Vec<[u32; 3]> = Level::ALL
            .iter()
            .map(|level| {
                [GameKind::Fetlar, GameKind::Copenhagen, GameKind::Camelot]
                    .map(|kind| level.rating(kind))
            })
            .collect();
        let readme = include_str!("../README.md");
        let section = readme.split("\n## Levels\n").nth(1).unwrap();
        let section = section.split("\n## ").next().unwrap();
        for (name, text, prefix) in [
            ("src/level.rs", include_str!("level.rs"), "//! | "),
            ("README.md", section, "| "),
        ] {
            assert_eq!(table_ratings(text, prefix), ratings, "the table in {name}");
        }
    }

    #[test]
    fn levels_parse_by_number_and_name_and_print_their_name() {
        for level in Level::ALL {
            assert_eq!(level.to_string().parse::<Level>(), Ok(level));
            assert_eq!(level.number().to_string().parse::<Level>(), Ok(level));
        }
        assert_eq!(" EXPERT ".parse::<Level>(), Ok(Level::Expert));
        assert!("0".parse::<Level>().is_err());
        assert!("grandmaster".parse::<Level>().is_err());
    }

    #[test]
    fn stronger_levels_search_more_and_guess_less() {
        let unlimited = |cap: Option<u64>| cap.unwrap_or(u64::MAX);
        for pair in Level::ALL.windows(2) {
            let (weak, strong) = (pair[0].settings(), pair[1].settings());
            assert!(strong.noise <= weak.noise && strong.margin <= weak.margin);
            assert!(strong.depth.unwrap_or(u32::MAX) >= weak.depth.unwrap_or(u32::MAX));
            // Node caps start where depth caps stop being enough.
            if weak.nodes.is_some() {
                assert!(unlimited(strong.nodes) > unlimited(weak.nodes));
            }
        }
        assert_eq!(Level::default(), Level::Maximum);
        assert_eq!(Level::Maximum.settings().nodes, None);
    }
}
