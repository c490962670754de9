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
    fn bomb_bound_covers_real_streams() {
        let zeros = alloc::vec![0u8; 10_000_000];
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&zeros, 10);
        assert!(max_inflated(z.len() as u64) >= zeros.len() as u64);
        assert!(max_inflated(z.len() as u64) < 1100 * z.len() as u64);
    }
}
