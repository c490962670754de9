//! XXH3-128 of a file whose header's checksum is written last, computed while the file is
//! written, in one pass.
//!
//! A kiln-layout `.mesh` starts with an 8-byte checksum of everything after the header
//! ([`CHECKSUM_OFFSET`](super::spec::CHECKSUM_OFFSET)), known only once the last byte is out;
//! a manifest records the XXH3-128 of the whole file, checksum included. Hashed in the file's
//! order, the second hash has to wait for the first and then read the whole file again (at
//! 400k triangles, 55 MB from the page cache, 14-20 ms of one core after everything else is
//! done). [`PatchedXxh3`] hashes the bytes as they are written instead, with the 8 unknown
//! bytes as zeros, and corrects for them at the end.
//!
//! Why that is possible, and why no crate does it. XXH3 on inputs over 240 bytes keeps eight
//! 64-bit accumulators. Each 64-byte stripe adds to lane `i` the product of the halves of its
//! `i`-th word (xor a key) and the raw `i ^ 1`-th word; after every 16 stripes (a block) each
//! lane is scrambled on its own. So the 8 bytes at offsets 8..16 (word 1 of the first stripe)
//! reach lanes 0 and 1 only, and lanes 2 to 7 never see them. Lanes 0 and 1 are rebuilt at the
//! end from what each block added to them, which does not depend on the lanes' values: one
//! addition and one scramble per block (55 thousand at 400k triangles, well under a
//! millisecond). The XXH3 crates keep their accumulators private, so the hash is written out
//! here, from the XXH3 specification (`doc/xxhash_spec.md` in the xxHash repository); the
//! tests check it against `xxhash-rust` on every length class. An input of 240 bytes or fewer
//! (XXH3's short paths; never a `.mesh`) is kept whole and hashed by `xxhash-rust` at the
//! end, so a caller needs no second way to hash a short file.

use alloc::vec::Vec;

/// The default secret of XXH3 (the specification's `kSecret`).
const SECRET: [u8; 192] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
];

const PRIME32_1: u64 = 0x9E37_79B1;
const PRIME32_2: u64 = 0x85EB_CA77;
const PRIME32_3: u64 = 0xC2B2_AE3D;
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;

const STRIPE: usize = 64;
/// Stripes a block: `(secret length - 64) / 8`.
const STRIPES: usize = 16;
const BLOCK: usize = STRIPE * STRIPES;
/// Inputs up to this length take XXH3's short paths: kept whole and hashed by
/// `xxhash-rust` at the end (a `.mesh` never is one: its header and table are longer).
const SHORT: usize = 240;
/// The patched word: bytes 8..16, word 1 of the first stripe.
const PATCH_AT: usize = 8;

/// Lanes 0 and 1's starting values and additions; the other six lanes in [`PatchedXxh3::acc`].
const INITIAL: [u64; 8] = [
    PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1,
];

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The product of a keyed word's halves, as a stripe adds it to its own lane.
#[inline(always)]
fn halves(v: u64, key: u64) -> u64 {
    let k = v ^ key;
    (k & 0xFFFF_FFFF).wrapping_mul(k >> 32)
}

/// One stripe into the eight lanes with the secret from `key_at`.
#[inline(always)]
fn accumulate(acc: &mut [u64; 8], stripe: &[u8], key_at: usize) {
    let stripe: &[u8; STRIPE] = stripe.try_into().expect("a stripe is 64 bytes");
    let key: &[u8; STRIPE] = SECRET[key_at..key_at + STRIPE]
        .try_into()
        .expect("the secret holds every stripe's key");
    for i in 0..8 {
        let v = u64::from_le_bytes(stripe[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]));
        let k = u64::from_le_bytes(key[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]));
        acc[i ^ 1] = acc[i ^ 1].wrapping_add(v);
        acc[i] = acc[i].wrapping_add(halves(v, k));
    }
}

/// The end of a block, lane `i` of `acc`.
#[inline(always)]
fn scramble(acc: u64, i: usize) -> u64 {
    let key = word(&SECRET, SECRET.len() - STRIPE + 8 * i);
    ((acc ^ (acc >> 47)) ^ key).wrapping_mul(PRIME32_1)
}

fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(0x1656_6791_9E37_79F9);
    h ^ (h >> 32)
}

fn merge(acc: &[u64; 8], key_at: usize, start: u64) -> u64 {
    let mut h = start;
    for pair in 0..4 {
        let a = acc[2 * pair] ^ word(&SECRET, key_at + 16 * pair);
        let b = acc[2 * pair + 1] ^ word(&SECRET, key_at + 16 * pair + 8);
        let product = u128::from(a) * u128::from(b);
        h = h.wrapping_add((product as u64) ^ ((product >> 64) as u64));
    }
    avalanche(h)
}

/// XXH3-128 (default secret, seed 0) of a stream of bytes whose bytes 8..16 are given only at
/// the end ([`PatchedXxh3::finish`]); [`PatchedXxh3::update`] takes them as written, whatever
/// they are (a placeholder).
#[derive(Clone, Debug)]
pub struct PatchedXxh3 {
    /// Lanes 2 to 7; lanes 0 and 1 hold what the block under way added to them.
    acc: [u64; 8],
    /// What each finished block added to lanes 0 and 1 before its scramble.
    blocks: Vec<[u64; 2]>,
    /// Bytes after the last stripe taken in: 1 to 64 once anything came (XXH3 takes a stripe
    /// in only when a byte follows it; the input's last stripe goes in at the end, with
    /// another key).
    held: [u8; STRIPE],
    held_len: usize,
    /// The input's last 64 bytes (fewer while it is shorter), the end of `last`.
    last: [u8; STRIPE],
    /// Stripes taken into the block under way.
    stripes: usize,
    /// Bytes passed to `update`.
    len: u64,
    /// The input's first [`SHORT`] bytes (all of a short one; for a longer one, the
    /// placeholder's word as `update` saw it is bytes 8..16 of these).
    head: [u8; SHORT],
}

impl Default for PatchedXxh3 {
    fn default() -> Self {
        PatchedXxh3::new()
    }
}

impl PatchedXxh3 {
    /// A hasher at the start of a file.
    pub fn new() -> Self {
        PatchedXxh3 {
            acc: [
                0, 0, INITIAL[2], INITIAL[3], INITIAL[4], INITIAL[5], INITIAL[6], INITIAL[7],
            ],
            blocks: Vec::new(),
            held: [0; STRIPE],
            held_len: 0,
            last: [0; STRIPE],
            stripes: 0,
            len: 0,
            head: [0; SHORT],
        }
    }

    /// One stripe in, at the block's next position; a block's end scrambles lanes 2 to 7 and
    /// files lanes 0 and 1 (which hold the block's additions only).
    #[inline(always)]
    fn stripe(&mut self, stripe: &[u8]) {
        accumulate(&mut self.acc, stripe, 8 * self.stripes);
        self.stripes += 1;
        if self.stripes == STRIPES {
            self.end_block();
        }
    }

    /// A whole block in (the block under way empty).
    #[inline(always)]
    fn block(&mut self, block: &[u8]) {
        for (s, stripe) in block.chunks_exact(STRIPE).enumerate() {
            accumulate(&mut self.acc, stripe, 8 * s);
        }
        self.end_block();
    }

    fn end_block(&mut self) {
        for (i, lane) in self.acc.iter_mut().enumerate().skip(2) {
            *lane = scramble(*lane, i);
        }
        self.blocks.push([self.acc[0], self.acc[1]]);
        self.acc[0] = 0;
        self.acc[1] = 0;
        self.stripes = 0;
    }

    /// Stripes of `bytes` (a multiple of 64 long), whole blocks at a time where they line up.
    fn stripes(&mut self, mut bytes: &[u8]) {
        while self.stripes != 0 && !bytes.is_empty() {
            let (stripe, rest) = bytes.split_at(STRIPE);
            self.stripe(stripe);
            bytes = rest;
        }
        let mut blocks = bytes.chunks_exact(BLOCK);
        for block in &mut blocks {
            self.block(block);
        }
        for stripe in blocks.remainder().chunks_exact(STRIPE) {
            self.stripe(stripe);
        }
    }

    /// The next bytes of the file.
    pub fn update(&mut self, mut bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        // (Past `usize` on a 32-bit target: no longer in the head.)
        let start = usize::try_from(self.len).unwrap_or(usize::MAX);
        self.len += bytes.len() as u64;
        // The head, which holds the placeholder's bytes too (they may come in pieces).
        if let Some(head) = self.head.get_mut(start..) {
            let n = head.len().min(bytes.len());
            head[..n].copy_from_slice(&bytes[..n]);
        }
        // The last 64 bytes.
        let keep = bytes.len().min(STRIPE);
        self.last.copy_within(keep.., 0);
        self.last[STRIPE - keep..].copy_from_slice(&bytes[bytes.len() - keep..]);
        // The held stripe completed, and taken in if a byte follows it.
        if self.held_len > 0 {
            let take = (STRIPE - self.held_len).min(bytes.len());
            self.held[self.held_len..self.held_len + take].copy_from_slice(&bytes[..take]);
            self.held_len += take;
            bytes = &bytes[take..];
            if bytes.is_empty() {
                return;
            }
            let held = self.held;
            self.stripe(&held);
            self.held_len = 0;
        }
        // Whole stripes, each with a byte after it; the rest (1 to 64 bytes) held.
        let whole = (bytes.len() - 1) / STRIPE * STRIPE;
        self.stripes(&bytes[..whole]);
        let rest = &bytes[whole..];
        self.held[..rest.len()].copy_from_slice(rest);
        self.held_len = rest.len();
    }

    /// Bytes passed to [`PatchedXxh3::update`].
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was passed yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The hash, with `patch` as bytes 8..16 (those of them the input has).
    pub fn finish(&self, patch: [u8; 8]) -> u128 {
        if self.len <= SHORT as u64 {
            let mut short = self.head;
            let bytes = &mut short[..self.len as usize];
            if let Some(at) = bytes.get_mut(PATCH_AT..) {
                let n = at.len().min(8);
                at[..n].copy_from_slice(&patch[..n]);
            }
            return xxhash_rust::xxh3::xxh3_128(bytes);
        }
        // The last stripe, with its own key.
        let mut lanes = self.acc;
        accumulate(&mut lanes, &self.last, SECRET.len() - STRIPE - 7);
        let mut tail = [lanes[0], lanes[1]];
        // Lanes 0 and 1 rebuilt block by block, the first block's additions moved from the
        // placeholder to the patch (word 1 of the first stripe: raw into lane 0, its halves'
        // product into lane 1). The first block is the unfinished one in a file under 1 KiB.
        let (old, new) = (word(&self.head, PATCH_AT), u64::from_le_bytes(patch));
        let key = word(&SECRET, PATCH_AT);
        let fix = |add: &mut [u64; 2]| {
            add[0] = add[0].wrapping_sub(old).wrapping_add(new);
            add[1] = add[1]
                .wrapping_sub(halves(old, key))
                .wrapping_add(halves(new, key));
        };
        let (mut a0, mut a1) = (INITIAL[0], INITIAL[1]);
        for (k, &add) in self.blocks.iter().enumerate() {
            let mut add = add;
            if k == 0 {
                fix(&mut add);
            }
            a0 = scramble(a0.wrapping_add(add[0]), 0);
            a1 = scramble(a1.wrapping_add(add[1]), 1);
        }
        if self.blocks.is_empty() {
            fix(&mut tail);
        }
        lanes[0] = a0.wrapping_add(tail[0]);
        lanes[1] = a1.wrapping_add(tail[1]);
        let lo = merge(&lanes, 11, self.len.wrapping_mul(PRIME64_1));
        let hi = merge(
            &lanes,
            SECRET.len() - STRIPE - 11,
            !self.len.wrapping_mul(PRIME64_2),
        );
        u128::from(lo) | (u128::from(hi) << 64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// `data` with `patch` at 8..16 (what of it fits), hashed by `xxhash-rust`, against the
    /// patched hasher fed `data` (whatever its bytes 8..16) in pieces of `piece` bytes.
    fn check(data: &[u8], patch: [u8; 8], piece: usize) {
        let mut want = data.to_vec();
        if let Some(at) = want.get_mut(8..) {
            let n = at.len().min(8);
            at[..n].copy_from_slice(&patch[..n]);
        }
        let mut h = PatchedXxh3::new();
        for chunk in data.chunks(piece.max(1)) {
            h.update(chunk);
        }
        assert_eq!(h.len(), data.len() as u64);
        assert_eq!(
            h.finish(patch),
            xxhash_rust::xxh3::xxh3_128(&want),
            "{} bytes in pieces of {piece}",
            data.len()
        );
    }

    /// Every boundary that matters: just past the short paths, around a stripe, a block
    /// (with and without a byte after it), two blocks; pieces of 1 byte, odd sizes, whole.
    #[test]
    fn equals_xxh3_128_with_the_patch_in_place() {
        for n in [
            241,
            255,
            256,
            257,
            1023,
            1024,
            1025,
            1088,
            1089,
            2048,
            2049,
            4096 + 65,
        ] {
            for piece in [1, 7, 63, 64, 65, 1000, n] {
                let data = bytes(n, n as u64 * 31 + piece as u64);
                check(&data, *b"checksum", piece);
                check(&data, [0; 8], piece);
                check(&data, [0xFF; 8], piece);
            }
        }
    }

    /// The short paths (240 bytes and fewer, the patch cut off where the input ends) and the
    /// step from them to the long one.
    #[test]
    fn short_inputs_are_hashed_whole() {
        for n in 0..=241 {
            for piece in [1, 5, 64, 241] {
                let data = bytes(n, n as u64 + 7 * piece as u64);
                check(&data, *b"checksum", piece);
            }
        }
    }

    proptest! {
        #[test]
        fn equals_xxh3_128_on_any_input(
            n in 241usize..9000,
            seed in any::<u64>(),
            patch in any::<[u8; 8]>(),
            piece in 1usize..3000,
        ) {
            check(&bytes(n, seed), patch, piece);
        }
    }
}
