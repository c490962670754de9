//! RGBA8 images: the preview's output (PNG through the `png` crate), the material textures it
//! reads (PNG, and TGA as the original tool's assets and kiln's demo use), and PSNR.
//!
//! Each function's error is a [`GpuError::Image`] holding an [`ImageError`].

use std::sync::Arc;

use crate::GpuError;

/// An RGBA8 image, rows top to bottom.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
}

impl Image {
    /// An image of one colour.
    pub fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Image {
        Image {
            width,
            height,
            rgba: rgba
                .iter()
                .copied()
                .cycle()
                .take(width as usize * height as usize * 4)
                .collect(),
        }
    }

    /// The pixel at `(x, y)`.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.rgba.get(i..i + 4).map(|p| [p[0], p[1], p[2], p[3]])
    }
}

/// Why an image could not be encoded, decoded or compared. Sizes are in pixels.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ImageError {
    /// The `png` crate refused to encode the image (its pixel data is not `width × height ×
    /// 4` bytes, a side is zero, …).
    #[error("encoding the PNG: {0}")]
    PngEncode(#[source] PngError<png::EncodingError>),
    /// The `png` crate could not read the file (not a PNG, truncated, corrupt).
    #[error("PNG: {0}")]
    PngDecode(#[source] PngError<png::DecodingError>),
    /// A PNG of more pixels than a texture may have (64 Mi).
    #[error("PNG: {width}×{height} pixels is too large")]
    PngTooLarge {
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// A PNG whose decoded size does not fit in memory's address range.
    #[error("PNG: too large")]
    PngBufferTooLarge,
    /// A palette PNG the decoder left unexpanded.
    #[error("PNG: palette was not expanded")]
    PngPaletteNotExpanded,
    /// A PNG whose decoded rows hold fewer pixels than its size.
    #[error("PNG: truncated image data")]
    PngTruncated,
    /// A TGA shorter than its 18-byte header.
    #[error("TGA: shorter than its header")]
    TgaHeader,
    /// A TGA image type other than true-colour or greyscale (2, 3, 10, 11).
    #[error("TGA: image type {kind} is not supported")]
    TgaImageType {
        /// The header's image type.
        kind: u8,
    },
    /// A TGA with a colour map.
    #[error("TGA: colour-mapped images are not supported")]
    TgaColourMapped,
    /// A TGA of a depth other than 8 (greyscale), 24 or 32 bits.
    #[error("TGA: {depth} bits per pixel is not supported")]
    TgaDepth {
        /// The header's bits per pixel.
        depth: u8,
    },
    /// A TGA with a side of zero or more pixels than a texture may have (64 Mi).
    #[error("TGA: {width}×{height} pixels")]
    TgaSize {
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// A run-length encoded TGA whose packets end before its last pixel.
    #[error("TGA: RLE data ends early")]
    TgaRleTruncated,
    /// An uncompressed TGA whose pixel data ends before its last pixel.
    #[error("TGA: pixel data ends early")]
    TgaPixelsTruncated,
    /// A texture that is neither PNG nor TGA ([`decode_texture`]).
    #[error("{file_name}: only PNG and TGA textures are read by the preview")]
    UnsupportedFormat {
        /// The file name it was given by.
        file_name: String,
    },
    /// Two images of different sizes given to [`psnr`].
    #[error("images of {}×{} and {}×{}", .first[0], .first[1], .second[0], .second[1])]
    SizeMismatch {
        /// Width and height of the first.
        first: [u32; 2],
        /// Width and height of the second.
        second: [u32; 2],
    },
}

/// An error of the `png` crate, held behind an [`Arc`] so that [`ImageError`] (and
/// [`GpuError`]) can be `Clone` and `PartialEq`, which the `png` crate's errors are not. It
/// prints as the error it holds and has that error's source; two are equal when they print
/// the same.
#[derive(Debug)]
pub struct PngError<E>(Arc<E>);

impl<E> PngError<E> {
    fn new(e: E) -> PngError<E> {
        PngError(Arc::new(e))
    }

    /// The `png` crate's error.
    pub fn get(&self) -> &E {
        &self.0
    }
}

impl<E> Clone for PngError<E> {
    fn clone(&self) -> Self {
        PngError(Arc::clone(&self.0))
    }
}

impl<E: std::fmt::Display> PartialEq for PngError<E> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl<E: std::fmt::Display> std::fmt::Display for PngError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: std::error::Error> std::error::Error for PngError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

fn encoding(e: png::EncodingError) -> ImageError {
    ImageError::PngEncode(PngError::new(e))
}

fn decoding(e: png::DecodingError) -> ImageError {
    ImageError::PngDecode(PngError::new(e))
}

/// Encodes `image` as an RGBA8 PNG.
pub fn encode_png(image: &Image) -> Result<Vec<u8>, GpuError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(encoding)?;
        writer.write_image_data(&image.rgba).map_err(encoding)?;
        writer.finish().map_err(encoding)?;
    }
    Ok(out)
}

/// Most pixels a texture may have (64 Mi), so a file cannot make the reader allocate without
/// bound.
const MAX_PIXELS: u64 = 1 << 26;

/// Decodes a PNG of any colour type and depth into RGBA8.
pub fn decode_png(bytes: &[u8]) -> Result<Image, GpuError> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(decoding)?;
    let (w, h) = {
        let info = reader.info();
        (info.width, info.height)
    };
    if w as u64 * h as u64 > MAX_PIXELS {
        return Err(ImageError::PngTooLarge {
            width: w,
            height: h,
        }
        .into());
    }
    let size = reader
        .output_buffer_size()
        .ok_or(ImageError::PngBufferTooLarge)?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(decoding)?;
    let data = &buf[..frame.buffer_size()];
    let channels = match frame.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err(ImageError::PngPaletteNotExpanded.into()),
    };
    let mut rgba = Vec::with_capacity(w as usize * h as usize * 4);
    for row in data.chunks(frame.line_size).take(h as usize) {
        for p in row.chunks_exact(channels).take(w as usize) {
            rgba.extend_from_slice(&match channels {
                1 => [p[0], p[0], p[0], 255],
                2 => [p[0], p[0], p[0], p[1]],
                3 => [p[0], p[1], p[2], 255],
                _ => [p[0], p[1], p[2], p[3]],
            });
        }
    }
    if rgba.len() != w as usize * h as usize * 4 {
        return Err(ImageError::PngTruncated.into());
    }
    Ok(Image {
        width: w,
        height: h,
        rgba,
    })
}

/// Decodes a TGA: true-colour (24 or 32 bits) or greyscale (8 bits), uncompressed or RLE.
pub fn decode_tga(bytes: &[u8]) -> Result<Image, GpuError> {
    let header = bytes.get(..18).ok_or(ImageError::TgaHeader)?;
    let id_len = header[0] as usize;
    let color_map = header[1];
    let kind = header[2];
    let w = u16::from_le_bytes([header[12], header[13]]) as u32;
    let h = u16::from_le_bytes([header[14], header[15]]) as u32;
    let depth = header[16];
    let top_down = header[17] & 0x20 != 0;
    let (rle, grey) = match kind {
        2 => (false, false),
        3 => (false, true),
        10 => (true, false),
        11 => (true, true),
        _ => return Err(ImageError::TgaImageType { kind }.into()),
    };
    if color_map != 0 {
        return Err(ImageError::TgaColourMapped.into());
    }
    let bpp = match (grey, depth) {
        (true, 8) => 1,
        (false, 24) => 3,
        (false, 32) => 4,
        _ => return Err(ImageError::TgaDepth { depth }.into()),
    };
    if w == 0 || h == 0 || w as u64 * h as u64 > MAX_PIXELS {
        return Err(ImageError::TgaSize {
            width: w,
            height: h,
        }
        .into());
    }
    let pixels = w as usize * h as usize;
    let mut data = bytes.get(18 + id_len..).unwrap_or_default();
    let mut raw = Vec::with_capacity(pixels * bpp);
    if rle {
        while raw.len() < pixels * bpp {
            let (&packet, rest) = data.split_first().ok_or(ImageError::TgaRleTruncated)?;
            let count = (packet & 0x7f) as usize + 1;
            if packet & 0x80 != 0 {
                let p = rest.get(..bpp).ok_or(ImageError::TgaRleTruncated)?;
                for _ in 0..count {
                    raw.extend_from_slice(p);
                }
                data = &rest[bpp..];
            } else {
                let n = count * bpp;
                let p = rest.get(..n).ok_or(ImageError::TgaRleTruncated)?;
                raw.extend_from_slice(p);
                data = &rest[n..];
            }
        }
        raw.truncate(pixels * bpp);
    } else {
        raw.extend_from_slice(
            data.get(..pixels * bpp)
                .ok_or(ImageError::TgaPixelsTruncated)?,
        );
    }
    let mut rgba = vec![0u8; pixels * 4];
    for y in 0..h as usize {
        let src_row = if top_down { y } else { h as usize - 1 - y };
        for x in 0..w as usize {
            let s = (src_row * w as usize + x) * bpp;
            let p = &raw[s..s + bpp];
            let d = (y * w as usize + x) * 4;
            rgba[d..d + 4].copy_from_slice(&match bpp {
                1 => [p[0], p[0], p[0], 255],
                3 => [p[2], p[1], p[0], 255],
                _ => [p[2], p[1], p[0], p[3]],
            });
        }
    }
    Ok(Image {
        width: w,
        height: h,
        rgba,
    })
}

/// Decodes a texture by the extension of `file_name` (PNG or TGA; PNG is also recognised by
/// its signature).
pub fn decode_texture(file_name: &str, bytes: &[u8]) -> Result<Image, GpuError> {
    let lower = file_name.to_ascii_lowercase();
    if bytes.starts_with(b"\x89PNG") || lower.ends_with(".png") {
        decode_png(bytes)
    } else if lower.ends_with(".tga") {
        decode_tga(bytes)
    } else {
        Err(ImageError::UnsupportedFormat {
            file_name: file_name.to_owned(),
        }
        .into())
    }
}

/// Peak signal-to-noise ratio of the RGB channels of two images of one size, in dB (infinite
/// for identical images).
pub fn psnr(a: &Image, b: &Image) -> Result<f64, GpuError> {
    if a.width != b.width || a.height != b.height || a.rgba.len() != b.rgba.len() {
        return Err(ImageError::SizeMismatch {
            first: [a.width, a.height],
            second: [b.width, b.height],
        }
        .into());
    }
    let mut sum = 0f64;
    let mut n = 0usize;
    for (p, q) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)) {
        for k in 0..3 {
            let d = p[k] as f64 - q[k] as f64;
            sum += d * d;
            n += 1;
        }
    }
    let mse = sum / n.max(1) as f64;
    Ok(if mse == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (255.0f64 * 255.0 / mse).log10()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips() {
        let mut img = Image::filled(3, 2, [10, 20, 30, 255]);
        img.rgba[4..8].copy_from_slice(&[200, 100, 0, 128]);
        let back = decode_png(&encode_png(&img).unwrap()).unwrap();
        assert_eq!(back, img);
        assert_eq!(back.pixel(1, 0), Some([200, 100, 0, 128]));
        assert_eq!(back.pixel(3, 0), None);
    }

    #[test]
    fn tga_bottom_up_and_rle() {
        // 2×2, 24 bits, bottom-up: the first stored row is the bottom one.
        let mut t = vec![0u8; 18];
        t[2] = 2;
        t[12] = 2;
        t[14] = 2;
        t[16] = 24;
        t.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        let img = decode_tga(&t).unwrap();
        assert_eq!(img.pixel(0, 0), Some([9, 8, 7, 255]));
        assert_eq!(img.pixel(1, 1), Some([6, 5, 4, 255]));
        // The same picture as RLE: one run of 2 and one raw packet of 2.
        let mut r = t[..18].to_vec();
        r[2] = 10;
        r.extend_from_slice(&[0x81, 1, 2, 3, 0x01, 7, 8, 9, 10, 11, 12]);
        let img = decode_tga(&r).unwrap();
        assert_eq!(img.pixel(1, 1), Some([3, 2, 1, 255]));
        assert_eq!(img.pixel(1, 0), Some([12, 11, 10, 255]));
        assert!(decode_tga(&r[..22]).is_err());
        assert!(decode_tga(&t[..20]).is_err());
    }

    #[test]
    fn psnr_of_a_known_error() {
        let a = Image::filled(4, 4, [100, 100, 100, 255]);
        let mut b = a.clone();
        assert_eq!(psnr(&a, &b).unwrap(), f64::INFINITY);
        // One channel of one pixel off by 48: MSE = 48² / 48 = 48.
        b.rgba[0] = 148;
        let want = 10.0 * (255.0f64 * 255.0 / 48.0).log10();
        assert!((psnr(&a, &b).unwrap() - want).abs() < 1e-9);
        assert!(psnr(&a, &Image::filled(2, 2, [0; 4])).is_err());
    }
}
