//! Base64 (standard alphabet, `=` padding) for ASCII `Content:` blobs, which the exporters
//! split over several quoted strings: quotes, commas and blanks between the pieces are skipped.

use alloc::vec::Vec;

use crate::error::ErrorKind;

fn sextet(c: u8) -> Option<u32> {
    Some(u32::from(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    }))
}

/// Decodes `text`; the output is at most 3/4 of the input.
pub(crate) fn decode(text: &[u8]) -> Result<Vec<u8>, ErrorKind> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for (index, &c) in text.iter().enumerate() {
        match c {
            b'"' | b',' | b' ' | b'\t' | b'\r' | b'\n' => continue,
            // Padding ends a quantum: drop its leftover bits (a later piece starts afresh).
            b'=' => {
                acc = 0;
                bits = 0;
                continue;
            }
            _ => {}
        }
        let Some(v) = sextet(c) else {
            return Err(ErrorKind::Base64 { index });
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_pieces_split_over_strings() {
        assert_eq!(decode(b"\"aGVsbG8=\"").unwrap(), b"hello");
        assert_eq!(
            decode(b"\"aGVs\",\n \"bG8gd29y\",\"bGQ=\"").unwrap(),
            b"hello world"
        );
        assert_eq!(decode(b"").unwrap(), b"");
        assert!(decode(b"\"a*b\"").is_err());
    }
}
