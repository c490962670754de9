//! A [`Bake`] (and a [`WeightBake`], as `R32_FLOAT`) as a DirectDraw Surface file that Direct3D loaders (DirectXTex, DDSTextureLoader)
//! open as is: the `DX10` extended header, `DXGI_FORMAT_R32G32B32A32_FLOAT`, a 2D texture array
//! of one layer per clip, one mip level.
//!
//! ```text
//! u32 magic "DDS "
//! DDS_HEADER (124 bytes): size 124, flags CAPS|HEIGHT|WIDTH|PITCH|PIXELFORMAT|MIPMAPCOUNT,
//!     height, width, pitch = width × 16, depth 0, mipMapCount 1, reserved[11],
//!     pixel format { size 32, flags FOURCC, fourCC "DX10", 0 × 5 }, caps TEXTURE, 0 × 4
//! DDS_HEADER_DXT10 (20 bytes): dxgiFormat 2 (R32G32B32A32_FLOAT), resourceDimension 3
//!     (TEXTURE2D), miscFlag 0, arraySize = layers, miscFlags2 0
//! layer 0 rows, layer 1 rows, …   (16 bytes per texel: R, G, B, A as little-endian f32)
//! ```

use alloc::vec::Vec;

use crate::bake::Bake;
use crate::weights::WeightBake;

/// `"DDS "`.
pub const DDS_MAGIC: u32 = 0x2053_4444;
/// `DXGI_FORMAT_R32G32B32A32_FLOAT`.
pub const DXGI_FORMAT_R32G32B32A32_FLOAT: u32 = 2;
/// `DXGI_FORMAT_R32_FLOAT`: the morph-weight texture ([`write_weights_dds`]).
pub const DXGI_FORMAT_R32_FLOAT: u32 = 41;
/// `D3D10_RESOURCE_DIMENSION_TEXTURE2D`.
pub const RESOURCE_DIMENSION_TEXTURE2D: u32 = 3;
/// Bytes before the texels: magic, `DDS_HEADER`, `DDS_HEADER_DXT10`.
pub const DDS_HEADER_SIZE: usize = 4 + 124 + 20;

const DDSD_CAPS: u32 = 0x1;
const DDSD_HEIGHT: u32 = 0x2;
const DDSD_WIDTH: u32 = 0x4;
const DDSD_PITCH: u32 = 0x8;
const DDSD_PIXELFORMAT: u32 = 0x1000;
const DDSD_MIPMAPCOUNT: u32 = 0x2_0000;
const DDPF_FOURCC: u32 = 0x4;
const DDSCAPS_TEXTURE: u32 = 0x1000;
const FOURCC_DX10: u32 = u32::from_le_bytes(*b"DX10");

/// The DDS file of a bake.
pub fn write_dds(bake: &Bake) -> Vec<u8> {
    let mut out = header(
        bake.width,
        bake.height,
        bake.layers,
        16,
        DXGI_FORMAT_R32G32B32A32_FLOAT,
        bake.texels.len() * 16,
    );
    push_texels(&mut out, &bake.texels);
    out
}

/// The DDS file of a morph-weight bake: the same header with `DXGI_FORMAT_R32_FLOAT` (4 bytes
/// per texel, pitch `width × 4`), one layer per clip, one row per frame, one texel per target.
pub fn write_weights_dds(weights: &WeightBake) -> Vec<u8> {
    let mut out = header(
        weights.width,
        weights.height,
        weights.layers,
        4,
        DXGI_FORMAT_R32_FLOAT,
        weights.texels.len() * 4,
    );
    for w in &weights.texels {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

/// The weights of a morph-weight bake as raw little-endian `f32`, layer by layer and row by
/// row: its DDS file without the header.
pub fn raw_weights(weights: &WeightBake) -> Vec<u8> {
    weights
        .texels
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

/// Magic, `DDS_HEADER` and `DDS_HEADER_DXT10` of a 2D texture array, with room for `body`
/// more bytes.
fn header(
    width: u32,
    height: u32,
    layers: u32,
    texel_bytes: u32,
    format: u32,
    body: usize,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(DDS_HEADER_SIZE + body);
    let mut put = |v: u32| out.extend_from_slice(&v.to_le_bytes());
    put(DDS_MAGIC);
    // DDS_HEADER
    put(124);
    put(DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PITCH | DDSD_PIXELFORMAT | DDSD_MIPMAPCOUNT);
    put(height);
    put(width);
    put(width.wrapping_mul(texel_bytes));
    put(0); // depth
    put(1); // mip levels
    for _ in 0..11 {
        put(0);
    }
    // DDS_PIXELFORMAT
    put(32);
    put(DDPF_FOURCC);
    put(FOURCC_DX10);
    for _ in 0..5 {
        put(0);
    }
    put(DDSCAPS_TEXTURE);
    for _ in 0..4 {
        put(0); // caps2, caps3, caps4, reserved2
    }
    // DDS_HEADER_DXT10
    put(format);
    put(RESOURCE_DIMENSION_TEXTURE2D);
    put(0); // misc flag (not a cube map)
    put(layers);
    put(0); // alpha mode unknown
    debug_assert_eq!(out.len(), DDS_HEADER_SIZE);
    out
}

/// Appends texels as little-endian `f32` RGBA.
fn push_texels(out: &mut Vec<u8>, texels: &[[f32; 4]]) {
    for texel in texels {
        for c in texel {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
}

/// The texels of a bake as raw little-endian `f32` RGBA, layer by layer and row by row: the DDS
/// file without its header, for engines that create the texture themselves.
pub fn raw_texels(bake: &Bake) -> Vec<u8> {
    let mut out = Vec::with_capacity(bake.texels.len() * 16);
    push_texels(&mut out, &bake.texels);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn header_fields_sit_where_the_dds_specification_puts_them() {
        let bake = Bake {
            width: 8,
            height: 3,
            layers: 2,
            bone_count: 2,
            frame_counts: vec![3, 1],
            frame_rates: vec![30.0, 30.0],
            clip_names: vec!["a".into(), "b".into()],
            texels: (0..48).map(|i| [i as f32, 0.5, -1.0, 2.0]).collect(),
        };
        let d = write_dds(&bake);
        let u = |o: usize| u32::from_le_bytes(d[o..o + 4].try_into().unwrap());
        assert_eq!(&d[..4], b"DDS ");
        assert_eq!(u(4), 124);
        assert_eq!((u(12), u(16), u(20)), (3, 8, 128));
        assert_eq!(u(28), 1);
        assert_eq!((u(76), u(80), &d[84..88]), (32, 4, &b"DX10"[..]));
        assert_eq!(u(108), 0x1000);
        assert_eq!((u(128), u(132), u(136), u(140)), (2, 3, 0, 2));
        assert_eq!(d.len(), DDS_HEADER_SIZE + 48 * 16);
        // Texel 5 of layer 0: R = 5.0.
        let o = DDS_HEADER_SIZE + 5 * 16;
        assert_eq!(f32::from_le_bytes(d[o..o + 4].try_into().unwrap()), 5.0);
        assert_eq!(&d[DDS_HEADER_SIZE..], &raw_texels(&bake)[..]);
    }

    #[test]
    fn weight_textures_are_r32_float_with_a_four_byte_pitch() {
        let weights = WeightBake {
            width: 3,
            height: 2,
            layers: 2,
            first_target: vec![0],
            default_weights: vec![0.0; 3],
            frame_counts: vec![2, 1],
            texels: (0..12).map(|i| i as f32 * 0.25).collect(),
        };
        let d = write_weights_dds(&weights);
        let u = |o: usize| u32::from_le_bytes(d[o..o + 4].try_into().unwrap());
        assert_eq!((u(12), u(16), u(20)), (2, 3, 12));
        assert_eq!((u(128), u(132), u(140)), (41, 3, 2));
        assert_eq!(d.len(), DDS_HEADER_SIZE + 12 * 4);
        let o = DDS_HEADER_SIZE + 7 * 4;
        assert_eq!(f32::from_le_bytes(d[o..o + 4].try_into().unwrap()), 1.75);
        assert_eq!(&d[DDS_HEADER_SIZE..], &raw_weights(&weights)[..]);
    }
}
