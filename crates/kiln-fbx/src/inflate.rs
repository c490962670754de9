//! zlib inflation into a buffer of exactly the declared size, with `miniz_oxide` (see the crate
//! docs for why that inflater). A stream that would produce more is stopped when the buffer is
//! full, so a zlib bomb costs no more than the array's declared size, which the parser has
//! already bounded by the compressed size ([`max_inflated`]).

use alloc::boxed::Box;

use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};

use crate::error::ErrorKind;

/// Deflate's greatest expansion: a 258-byte match costs at least 2 bits, so 1032:1; with a
/// margin for the stream's first block.
pub(crate) fn max_inflated(compressed: u64) -> u64 {
    compressed.saturating_mul(1032).saturating_add(1032)
}

/// Inflates the zlib stream `src` into `out`, which must come out exactly full.
pub(crate) fn inflate_exact(src: &[u8], out: &mut [u8]) -> Result<(), ErrorKind> {
    let mut state = Box::<DecompressorOxide>::default();
    let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER
        | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (status, _read, written) = decompress(&mut state, src, out, 0, flags);
    let expected = out.len() as u64;
    match status {
        TINFLStatus::Done if written == out.len() => Ok(()),
        TINFLStatus::Done => Err(ErrorKind::InflatedSizeMismatch {
            expected,
            found: written as u64,
        }),
        TINFLStatus::HasMoreOutput => Err(ErrorKind::InflatedTooLarge { expected }),
        TINFLStatus::Adler32Mismatch => Err(ErrorKind::Inflate("Adler-32 checksum mismatch")),
        TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
            Err(ErrorKind::Inflate("the stream is truncated"))
        }
        _ => Err(ErrorKind::Inflate("invalid zlib header or deflate data")),
    }
}

/// Inflates the zlib stream `src`, which must produce exactly `expected` bytes, through a
/// 64 KiB ring buffer: `sink` receives the output in order, in runs whose lengths are
/// multiples of `unit` (a run's tail that splits an element is carried into the next run).
/// The memory used does not grow with the output, so a converting reader (f64 → f32) needs
/// no full-size temporary.
pub(crate) fn inflate_streaming(
    src: &[u8],
    expected: usize,
    unit: usize,
    mut sink: impl FnMut(&[u8]),
) -> Result<(), ErrorKind> {
    const RING: usize = 1 << 16;
    let mut state = Box::<DecompressorOxide>::default();
    let mut ring = alloc::vec![0u8; RING];
    let mut carry = [0u8; 16];
    let mut carried = 0usize;
    let unit = unit.clamp(1, carry.len());
    let (mut input, mut pos, mut total) = (src, 0usize, 0usize);
    loop {
        let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER;
        let (status, read, written) = decompress(&mut state, input, &mut ring, pos, flags);
        input = &input[read.min(input.len())..];
        total += written;
        if total > expected {
            return Err(ErrorKind::InflatedTooLarge {
                expected: expected as u64,
            });
        }
        let mut run = &ring[pos..pos + written];
        // Complete the element split across the previous run, then pass whole elements.
        if carried != 0 {
            let take = (unit - carried).min(run.len());
            carry[carried..carried + take].copy_from_slice(&run[..take]);
            carried += take;
            run = &run[take..];
            if carried == unit {
                sink(&carry[..unit]);
                carried = 0;
            }
        }
        let whole = run.len() - run.len() % unit;
        if whole != 0 {
            sink(&run[..whole]);
        }
        let rest = &run[whole..];
        carry[carried..carried + rest.len()].copy_from_slice(rest);
        carried += rest.len();
        pos = (pos + written) & (RING - 1);
        match status {
            TINFLStatus::HasMoreOutput => {}
            TINFLStatus::Done if total == expected => return Ok(()),
            TINFLStatus::Done => {
                return Err(ErrorKind::InflatedSizeMismatch {
                    expected: expected as u64,
                    found: total as u64,
                });
            }
            TINFLStatus::Adler32Mismatch => {
                return Err(ErrorKind::Inflate("Adler-32 checksum mismatch"));
            }
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                return Err(ErrorKind::Inflate("the stream is truncated"));
            }
            _ => return Err(ErrorKind::Inflate("invalid zlib header or deflate data")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_size_too_large_and_too_small() {
        let data: alloc::vec::Vec<u8> = (0..1000u32).map(|i| (i % 7) as u8).collect();
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&data, 6);
        let mut out = [0u8; 1000];
        inflate_exact(&z, &mut out).unwrap();
        assert_eq!(&out[..], &data[..]);
        let mut small = [0u8; 999];
        assert_eq!(
            inflate_exact(&z, &mut small),
            Err(ErrorKind::InflatedTooLarge { expected: 999 })
        );
        let mut big = [0u8; 1001];
        assert_eq!(
            inflate_exact(&z, &mut big),
            Err(ErrorKind::InflatedSizeMismatch {
                expected: 1001,
                found: 1000
            })
        );
        let mut out = [0u8; 1000];
        assert!(matches!(
            inflate_exact(&z[..z.len() - 5], &mut out),
            Err(ErrorKind::Inflate(_))
        ));
        let mut bad = z.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert_eq!(
            inflate_exact(&bad, &mut out),
            Err(ErrorKind::Inflate("Adler-32 checksum mismatch"))
        );
    }

    #[test]
    fn streaming_matches_exact_and_keeps_elements_whole() {
        let data: alloc::vec::Vec<u8> = (0..300_001u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&data, 6);
        for unit in [1, 3, 8] {
            let mut got = alloc::vec::Vec::new();
            inflate_streaming(&z, data.len(), unit, |run| {
                assert_eq!(run.len() % unit, 0);
                got.extend_from_slice(run);
            })
            .unwrap();
            let whole = data.len() - data.len() % unit;
            assert_eq!(got, &data[..whole]);
        }
        assert_eq!(
            inflate_streaming(&z, data.len() - 1, 1, |_| {}),
            Err(ErrorKind::InflatedTooLarge {
                expected: data.len() as u64 - 1
            })
        );
        assert_eq!(
            inflate_streaming(&z, data.len() + 1, 1, |_| {}),
            Err(ErrorKind::InflatedSizeMismatch {
                expected: data.len() as u64 + 1,
                found: data.len() as u64
            })
        );
        assert!(inflate_streaming(&z[..z.len() - 5], data.len(), 1, |_| {}).is_err());
    }

    #[test]
    fn bomb_bound_covers_real_streams() {
        let zeros = alloc::vec![0u8; 10_000_000];
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&zeros, 10);
        assert!(max_inflated(z.len() as u64) >= zeros.len() as u64);
        assert!(max_inflated(z.len() as u64) < 1100 * z.len() as u64);
    }
}
