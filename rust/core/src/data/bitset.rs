//! Plain word bitsets (`u64` words, bit `i` lives in word `i / 64`, bit `i % 64`).
//!
//! Invariant: a bitset of `len` bits is stored in exactly `words_for(len)` words and every bit at
//! a position `>= len` is zero, so `count_ones` and equality never see padding.

/// Bits per word.
pub const WORD_BITS: usize = 64;

/// Number of words needed to hold `len` bits.
#[inline]
pub fn words_for(len: usize) -> usize {
    len.div_ceil(WORD_BITS)
}

/// Mask of the valid bits in word `w` of a bitset of `len` bits.
#[inline]
pub fn valid_mask(len: usize, w: usize) -> u64 {
    let start = w * WORD_BITS;
    if start + WORD_BITS <= len {
        !0
    } else if start >= len {
        0
    } else {
        (1u64 << (len - start)) - 1
    }
}

#[inline]
pub fn get(words: &[u64], i: usize) -> bool {
    words[i / WORD_BITS] >> (i % WORD_BITS) & 1 == 1
}

#[inline]
pub fn set(words: &mut [u64], i: usize) {
    words[i / WORD_BITS] |= 1u64 << (i % WORD_BITS);
}

/// Mask of bits `lo..hi` within one word (`lo <= hi <= 64`).
#[inline]
fn word_mask(lo: usize, hi: usize) -> u64 {
    let upper = if hi >= WORD_BITS {
        !0
    } else {
        (1u64 << hi) - 1
    };
    upper & !((1u64 << lo) - 1)
}

/// Sets bits `start..end`.
#[inline]
pub fn set_range(words: &mut [u64], start: usize, end: usize) {
    let mut i = start;
    while i < end {
        let w = i / WORD_BITS;
        let hi = (end - w * WORD_BITS).min(WORD_BITS);
        words[w] |= word_mask(i % WORD_BITS, hi);
        i = (w + 1) * WORD_BITS;
    }
}

/// Number of set bits in `start..end`.
#[inline]
pub fn count_range(words: &[u64], start: usize, end: usize) -> usize {
    let mut n = 0;
    let mut i = start;
    while i < end {
        let w = i / WORD_BITS;
        let hi = (end - w * WORD_BITS).min(WORD_BITS);
        n += (words[w] & word_mask(i % WORD_BITS, hi)).count_ones() as usize;
        i = (w + 1) * WORD_BITS;
    }
    n
}

/// Calls `f` with every index in `start..end` whose bit equals `value`, in increasing order.
#[inline]
pub fn for_each_in_range(
    words: &[u64],
    start: usize,
    end: usize,
    value: bool,
    mut f: impl FnMut(usize),
) {
    let mut i = start;
    while i < end {
        let w = i / WORD_BITS;
        let hi = (end - w * WORD_BITS).min(WORD_BITS);
        let word = if value { words[w] } else { !words[w] };
        let mut x = word & word_mask(i % WORD_BITS, hi);
        while x != 0 {
            f(w * WORD_BITS + x.trailing_zeros() as usize);
            x &= x - 1;
        }
        i = (w + 1) * WORD_BITS;
    }
}

/// Bits `start..start + len` as one word (`len <= 64`), bit `i` of the result being bit
/// `start + i`.
#[inline]
pub fn extract(words: &[u64], start: usize, len: usize) -> u64 {
    debug_assert!(len <= WORD_BITS);
    if len == 0 {
        return 0;
    }
    let (w, b) = (start / WORD_BITS, start % WORD_BITS);
    let mut x = words[w] >> b;
    if b + len > WORD_BITS {
        x |= words[w + 1] << (WORD_BITS - b);
    }
    if len < WORD_BITS {
        x &= (1u64 << len) - 1;
    }
    x
}

/// Total number of set bits.
#[inline]
pub fn count_ones(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// Calls `f` with the index of every set bit, in increasing order.
#[inline]
pub fn for_each_one(words: &[u64], mut f: impl FnMut(usize)) {
    for (w, &word) in words.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let b = x.trailing_zeros() as usize;
            f(w * WORD_BITS + b);
            x &= x - 1;
        }
    }
}

/// Indices of the set bits, in increasing order.
#[cfg(test)]
pub fn ones(words: &[u64]) -> Vec<usize> {
    let mut out = Vec::new();
    for_each_one(words, |i| out.push(i));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_ranges() {
        assert_eq!(words_for(0), 0);
        assert_eq!(words_for(64), 1);
        assert_eq!(words_for(65), 2);
        assert_eq!(valid_mask(70, 0), !0);
        assert_eq!(valid_mask(70, 1), 0b11_1111);
        assert_eq!(valid_mask(64, 1), 0);
        let mut w = vec![0u64; 2];
        set_range(&mut w, 60, 70);
        assert_eq!(count_ones(&w), 10);
        assert_eq!(count_range(&w, 0, 65), 5);
        assert_eq!(ones(&w), (60..70).collect::<Vec<_>>());
        assert!(get(&w, 69) && !get(&w, 70));
        let mut seen = Vec::new();
        for_each_in_range(&w, 58, 72, false, |i| seen.push(i));
        assert_eq!(seen, vec![58, 59, 70, 71]);
        assert_eq!(extract(&w, 58, 14), 0b0011_1111_1111_00);
        assert_eq!(extract(&w, 60, 4), 0b1111);
        let mut w = vec![0u64; 3];
        set_range(&mut w, 3, 190);
        assert_eq!(count_ones(&w), 187);
        assert_eq!(count_range(&w, 0, 192), 187);
        assert_eq!(count_range(&w, 64, 128), 64);
    }
}
