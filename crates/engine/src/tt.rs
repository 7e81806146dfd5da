//! The transposition table: a fixed-size hash table of search results keyed by the
//! game's Zobrist hash, shared by every search thread without locks.
//!
//! Each entry is two `AtomicU64`s: the packed data and `key ^ data`. A reader accepts an
//! entry only when the two agree with its key, so an entry torn by two threads writing
//! at once reads as a miss instead of as another position's data (the "XOR trick" of
//! Hyatt and Mann). Moves are stored as their index in the position's legal-move list
//! (move generation is deterministic), which works for every game without an encoding.

use std::sync::atomic::{AtomicU64, Ordering};

/// What a stored score is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact score.
    Exact,
    /// At least this (the search failed high).
    Lower,
    /// At most this (the search failed low).
    Upper,
}

/// A probed entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best (or refuting) move, as an index into the legal-move list.
    pub move_index: Option<u16>,
    /// The score, node-relative for wins and losses.
    pub score: i32,
    /// The static evaluation of the position.
    pub eval: i32,
    /// The remaining depth the score was searched to.
    pub depth: i32,
    /// What the score is.
    pub bound: Bound,
}

const NO_MOVE: u64 = 0xFFFF;
const BUCKET: usize = 4;

#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    /// Per slot: `[key ^ data, data]`.
    slots: [[AtomicU64; 2]; BUCKET],
}

/// A table of the size asked for could not be allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate a transposition table of {megabytes} MB: not enough memory")]
pub struct TableAllocError {
    /// The size asked for.
    pub megabytes: usize,
}

/// A transposition table shared by reference between search threads.
///
/// ```
/// use engine::tt::{Bound, TranspositionTable};
/// let tt = TranspositionTable::new(1);
/// tt.store(0xDEAD_BEEF, Some(3), 120, 15, 6, Bound::Exact);
/// let hit = tt.probe(0xDEAD_BEEF).unwrap();
/// assert_eq!((hit.move_index, hit.score, hit.depth), (Some(3), 120, 6));
/// assert!(tt.probe(0xFEED).is_none());
/// ```
pub struct TranspositionTable {
    buckets: Box<[Bucket]>,
    age: AtomicU64,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranspositionTable")
            .field("buckets", &self.buckets.len())
            .field("age", &self.age.load(Ordering::Relaxed))
            .finish()
    }
}

fn pack(move_index: Option<u16>, score: i32, eval: i32, depth: i32, bound: Bound, age: u64) -> u64 {
    let mv = move_index.map_or(NO_MOVE, u64::from);
    let score = u64::from(score.clamp(-32_767, 32_767) as i16 as u16);
    let eval = u64::from(eval.clamp(-32_767, 32_767) as i16 as u16);
    let depth = depth.clamp(0, 255) as u64;
    let bound = match bound {
        Bound::Exact => 1,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    mv | score << 16 | eval << 32 | depth << 48 | bound << 56 | (age & 0x3F) << 58
}

fn bound_of(data: u64) -> Option<Bound> {
    match data >> 56 & 3 {
        1 => Some(Bound::Exact),
        2 => Some(Bound::Lower),
        3 => Some(Bound::Upper),
        _ => None,
    }
}

fn unpack(data: u64) -> Option<Entry> {
    let bound = bound_of(data)?;
    let mv = data & 0xFFFF;
    Some(Entry {
        move_index: (mv != NO_MOVE).then_some(mv as u16),
        score: i32::from((data >> 16) as u16 as i16),
        eval: i32::from((data >> 32) as u16 as i16),
        depth: (data >> 48 & 0xFF) as i32,
        bound,
    })
}

fn depth_of(data: u64) -> i32 {
    (data >> 48 & 0xFF) as i32
}

fn age_of(data: u64) -> u64 {
    data >> 58
}

impl TranspositionTable {
    /// A table of about `megabytes` MB (at least one bucket of four entries).
    ///
    /// # Panics
    ///
    /// If the memory cannot be had: use [`TranspositionTable::try_new`] for a size that
    /// comes from a user.
    #[must_use]
    pub fn new(megabytes: usize) -> TranspositionTable {
        TranspositionTable::try_new(megabytes).unwrap_or_else(|err| panic!("{err}"))
    }

    /// A table of about `megabytes` MB (at least one bucket of four entries), or an error
    /// if the memory cannot be had (the process goes on).
    ///
    /// ```
    /// use engine::tt::TranspositionTable;
    /// assert_eq!(TranspositionTable::try_new(1)?.capacity(), 65_536);
    /// let err = TranspositionTable::try_new(usize::MAX / 4).unwrap_err();
    /// assert!(err.to_string().starts_with("cannot allocate a transposition table of"));
    /// # Ok::<(), engine::tt::TableAllocError>(())
    /// ```
    pub fn try_new(megabytes: usize) -> Result<TranspositionTable, TableAllocError> {
        let error = || TableAllocError { megabytes };
        let bytes = megabytes
            .max(1)
            .checked_mul(1024 * 1024)
            .ok_or_else(error)?;
        let count = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(count).map_err(|_| error())?;
        buckets.resize_with(count, Bucket::default);
        Ok(TranspositionTable {
            buckets: buckets.into_boxed_slice(),
            age: AtomicU64::new(0),
        })
    }

    /// The number of entries.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.buckets.len() * BUCKET
    }

    /// The table's size in MB, rounded down.
    #[must_use]
    pub fn megabytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>() / (1024 * 1024)
    }

    /// Forgets everything (a new game).
    pub fn clear(&self) {
        for bucket in &*self.buckets {
            for slot in &bucket.slots {
                slot[0].store(0, Ordering::Relaxed);
                slot[1].store(0, Ordering::Relaxed);
            }
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search: older entries become the first to be replaced.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key onto the table without a division.
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// The entry stored for `key`, if any.
    #[must_use]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for slot in &self.bucket(key).slots {
            let data = slot[1].load(Ordering::Relaxed);
            let check = slot[0].load(Ordering::Relaxed);
            if check ^ data == key && bound_of(data).is_some() {
                return unpack(data);
            }
        }
        None
    }

    /// Stores a result for `key`, replacing the least useful entry of its bucket. A result
    /// without a move keeps the move already stored for the same key.
    pub fn store(
        &self,
        key: u64,
        move_index: Option<u16>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let age = self.age.load(Ordering::Relaxed) & 0x3F;
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for (i, slot) in bucket.slots.iter().enumerate() {
            let data = slot[1].load(Ordering::Relaxed);
            let check = slot[0].load(Ordering::Relaxed);
            if bound_of(data).is_none() {
                victim = i;
                victim_worth = i32::MIN;
                continue;
            }
            if check ^ data == key {
                // Same position: keep a deeper result of this search unless ours is exact.
                if bound != Bound::Exact && depth + 2 < depth_of(data) && age_of(data) == age {
                    return;
                }
                let move_index = move_index.or_else(|| unpack(data).and_then(|e| e.move_index));
                let new = pack(move_index, score, eval, depth, bound, age);
                slot[1].store(new, Ordering::Relaxed);
                slot[0].store(key ^ new, Ordering::Relaxed);
                return;
            }
            let stale = (age.wrapping_sub(age_of(data)) & 0x3F) as i32;
            let worth = depth_of(data) - 8 * stale;
            if worth < victim_worth {
                victim = i;
                victim_worth = worth;
            }
        }
        let new = pack(move_index, score, eval, depth, bound, age);
        let slot = &bucket.slots[victim];
        slot[1].store(new, Ordering::Relaxed);
        slot[0].store(key ^ new, Ordering::Relaxed);
    }

    /// Thousandths of a sample of entries written in the current search (UCI `hashfull`).
    #[must_use]
    pub fn permille_full(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed) & 0x3F;
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for bucket in &self.buckets[..sample] {
            for slot in &bucket.slots {
                let data = slot[1].load(Ordering::Relaxed);
                if bound_of(data).is_some() && age_of(data) == age {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * BUCKET).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_entries_come_back_exactly() {
        let tt = TranspositionTable::new(1);
        tt.store(42, Some(7), -29_990, -350, 9, Bound::Lower);
        assert_eq!(
            tt.probe(42),
            Some(Entry {
                move_index: Some(7),
                score: -29_990,
                eval: -350,
                depth: 9,
                bound: Bound::Lower
            })
        );
        tt.store(43, None, 5, 6, 0, Bound::Upper);
        let e = tt.probe(43).unwrap();
        assert_eq!((e.move_index, e.bound, e.depth), (None, Bound::Upper, 0));
    }

    #[test]
    fn a_torn_entry_reads_as_a_miss() {
        let tt = TranspositionTable::new(1);
        let key = 0x1234_5678_9ABC_DEF0;
        tt.store(key, Some(1), 10, 10, 3, Bound::Exact);
        // Another thread overwrote the data word but not the check word yet.
        let slot = tt
            .bucket(key)
            .slots
            .iter()
            .find(|s| s[1].load(Ordering::Relaxed) != 0)
            .unwrap();
        slot[1].store(pack(Some(2), 99, 0, 8, Bound::Exact, 0), Ordering::Relaxed);
        assert_eq!(tt.probe(key), None);
    }

    #[test]
    fn a_result_without_a_move_keeps_the_old_move() {
        let tt = TranspositionTable::new(1);
        tt.store(5, Some(11), 0, 0, 4, Bound::Exact);
        tt.store(5, None, 30, 0, 5, Bound::Upper);
        let e = tt.probe(5).unwrap();
        assert_eq!((e.move_index, e.score, e.depth), (Some(11), 30, 5));
    }

    #[test]
    fn shallower_bounds_do_not_replace_deep_results_of_the_same_search() {
        let tt = TranspositionTable::new(1);
        tt.store(9, Some(1), 50, 0, 10, Bound::Exact);
        tt.store(9, Some(2), -50, 0, 2, Bound::Upper);
        assert_eq!(tt.probe(9).unwrap().depth, 10);
        // In a later search the old entry gives way.
        tt.new_search();
        tt.store(9, Some(2), -50, 0, 2, Bound::Upper);
        assert_eq!(tt.probe(9).unwrap().depth, 2);
    }

    #[test]
    fn full_buckets_replace_the_shallowest_entry() {
        // One bucket only: every key lands in it.
        let tt = TranspositionTable {
            buckets: vec![Bucket::default()].into_boxed_slice(),
            age: AtomicU64::new(0),
        };
        for (key, depth) in [(1u64, 5), (2, 1), (3, 7), (4, 6)] {
            tt.store(key, None, 0, 0, depth, Bound::Exact);
        }
        tt.store(5, None, 0, 0, 3, Bound::Exact);
        assert!(tt.probe(2).is_none(), "the depth-1 entry is replaced");
        for key in [1, 3, 4, 5] {
            assert!(tt.probe(key).is_some(), "key {key} kept");
        }
        tt.clear();
        assert!(tt.probe(5).is_none());
    }

    #[test]
    fn concurrent_writers_never_produce_foreign_data() {
        let tt = TranspositionTable {
            buckets: (0..2).map(|_| Bucket::default()).collect(),
            age: AtomicU64::new(0),
        };
        std::thread::scope(|s| {
            for t in 0..2u64 {
                let tt = &tt;
                s.spawn(move || {
                    for i in 0..20_000u64 {
                        let key = (i % 64).wrapping_mul(0x9E37_79B9_7F4A_7C15) + t;
                        // The score encodes the key, so a mixed-up entry is detectable.
                        tt.store(
                            key,
                            Some((key % 1000) as u16),
                            (key % 977) as i32,
                            0,
                            1,
                            Bound::Exact,
                        );
                        if let Some(e) = tt.probe(key ^ 1) {
                            let k = key ^ 1;
                            assert_eq!(e.score, (k % 977) as i32);
                            assert_eq!(e.move_index, Some((k % 1000) as u16));
                        }
                    }
                });
            }
        });
    }
}
