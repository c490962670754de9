//! Where each texel of a bake goes on a GPU whose texture limits are smaller than the bake.
//!
//! The bake ([`kiln_anim::Bake`]) is reference `002`'s texture: `4 × bones` texels wide,
//! `frames` high, one layer per clip; texel `(4·b + r, f)` of layer `c` is row `r` of bone `b`'s
//! matrix at frame `f` of clip `c`. When that fits the adapter (width and height at most
//! `max_dimension`, layers at most `max_layers`) it is uploaded exactly so, and the shader reads
//! `(4·b + r, f, c)` as the HLSL does. Otherwise it is split, in this order:
//!
//! 1. **Rows.** Bones that do not fit one row of `max_dimension` texels are spread over
//!    `rows_per_frame` consecutive rows of `bones_per_row` bones each (balanced, so the last row
//!    is as full as the others): bone `b` of frame `f` is in row `f · rows_per_frame + b /
//!    bones_per_row`, at `x = 4 · (b mod bones_per_row) + r`.
//! 2. **Layers.** Frames that do not fit one layer's `max_dimension` rows go on to
//!    `layers_per_clip` layers of `frames_per_layer` frames each: frame `f` of clip `c` is on
//!    layer `c · layers_per_clip + f / frames_per_layer`, row `(f mod frames_per_layer) ·
//!    rows_per_frame + …`.
//! 3. **Pages.** Clips that need more than `max_layers` layers go into several textures
//!    ("pages") of `clips_per_page` clips each; a draw or dispatch binds the page of its clip and
//!    uses the clip's index within the page.
//!
//! With no split every factor is 1 and the addresses are the reference's. The layout is pure
//! arithmetic, checked on the CPU against [`kiln_anim::Bake::matrix`] in the tests.

use kiln_anim::Bake;

use crate::{GpuError, InputError, Oversize};

/// The texture limits a layout must respect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureLimits {
    /// Largest width and height of a 2D texture (WebGPU's default: 8192).
    pub max_dimension: u32,
    /// Most layers of a 2D array texture (WebGPU's default: 256).
    pub max_layers: u32,
}

impl Default for TextureLimits {
    /// WebGPU's defaults, which every adapter wgpu exposes supports.
    fn default() -> Self {
        TextureLimits {
            max_dimension: 8192,
            max_layers: 256,
        }
    }
}

impl std::fmt::Display for TextureLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "textures of at most {0}×{0} texels and {1} layers",
            self.max_dimension, self.max_layers
        )
    }
}

/// Texels of one matrix: four RGBA32F texels, its rows.
pub const TEXELS_PER_BONE: u32 = 4;

/// The placement of a bake in one or more 2D array textures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoneTextureLayout {
    /// Bones of the skeleton.
    pub bones: u32,
    /// Frames (rows) of the bake: the longest clip's frame count.
    pub frames: u32,
    /// Clips (layers) of the bake.
    pub clips: u32,
    /// Bones in one row of a texture.
    pub bones_per_row: u32,
    /// Rows one frame takes.
    pub rows_per_frame: u32,
    /// Frames one layer holds.
    pub frames_per_layer: u32,
    /// Layers one clip takes.
    pub layers_per_clip: u32,
    /// Clips one texture (page) holds.
    pub clips_per_page: u32,
    /// Textures.
    pub pages: u32,
}

/// Where one texel lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TexelAddress {
    /// The texture (page) it is in.
    pub page: u32,
    /// Its column in that texture.
    pub x: u32,
    /// Its row in that texture.
    pub y: u32,
    /// Its array layer in that texture.
    pub layer: u32,
}

impl BoneTextureLayout {
    /// The layout of a bake of `bones × frames × clips` under `limits`.
    pub fn new(
        bones: u32,
        frames: u32,
        clips: u32,
        limits: TextureLimits,
    ) -> Result<BoneTextureLayout, GpuError> {
        if bones == 0 || frames == 0 || clips == 0 {
            return Err(InputError::EmptyBake {
                bones,
                frames,
                clips,
            }
            .into());
        }
        let too_big = |what: Oversize| GpuError::TextureLimits { what, limits };
        let max_bones_per_row = limits.max_dimension / TEXELS_PER_BONE;
        if max_bones_per_row == 0 || limits.max_layers == 0 {
            return Err(too_big(Oversize::Bone));
        }
        let rows_per_frame = bones.div_ceil(max_bones_per_row);
        if rows_per_frame > limits.max_dimension {
            return Err(too_big(Oversize::Bones {
                bones,
                rows_per_frame,
                max_bones_per_row,
            }));
        }
        // Balanced: as few bones per row as the row count allows.
        let bones_per_row = bones.div_ceil(rows_per_frame);
        let frames_per_layer = (limits.max_dimension / rows_per_frame).min(frames);
        let layers_per_clip = frames.div_ceil(frames_per_layer);
        if layers_per_clip > limits.max_layers {
            return Err(too_big(Oversize::Frames {
                frames,
                bones,
                layers_per_clip,
                frames_per_layer,
            }));
        }
        let clips_per_page = (limits.max_layers / layers_per_clip).min(clips);
        let pages = clips.div_ceil(clips_per_page);
        Ok(BoneTextureLayout {
            bones,
            frames,
            clips,
            bones_per_row,
            rows_per_frame,
            frames_per_layer,
            layers_per_clip,
            clips_per_page,
            pages,
        })
    }

    /// The layout of `bake` under `limits`.
    pub fn of_bake(bake: &Bake, limits: TextureLimits) -> Result<BoneTextureLayout, GpuError> {
        BoneTextureLayout::new(bake.bone_count, bake.height, bake.layers, limits)
    }

    /// Whether the bake is uploaded exactly as the reference lays it out (no split).
    pub fn is_reference(&self) -> bool {
        self.rows_per_frame == 1 && self.layers_per_clip == 1 && self.pages == 1
    }

    /// Width of every page, in texels.
    pub fn width(&self) -> u32 {
        TEXELS_PER_BONE * self.bones_per_row
    }

    /// Height of every page, in texels.
    pub fn height(&self) -> u32 {
        self.frames_per_layer * self.rows_per_frame
    }

    /// Layers of page `page`.
    pub fn page_layers(&self, page: u32) -> u32 {
        let first = page * self.clips_per_page;
        self.clips_per_page.min(self.clips.saturating_sub(first)) * self.layers_per_clip
    }

    /// The page holding clip `clip`, and the clip's index within it.
    pub fn page_of_clip(&self, clip: u32) -> (u32, u32) {
        (clip / self.clips_per_page, clip % self.clips_per_page)
    }

    /// Where texel `r` (0..4) of bone `bone` at frame `frame` of clip `clip` lives. The shaders
    /// compute the same from the clip's index within its page.
    pub fn locate(&self, clip: u32, frame: u32, bone: u32, r: u32) -> TexelAddress {
        let (page, local) = self.page_of_clip(clip);
        TexelAddress {
            page,
            x: TEXELS_PER_BONE * (bone % self.bones_per_row) + r,
            y: (frame % self.frames_per_layer) * self.rows_per_frame + bone / self.bones_per_row,
            layer: local * self.layers_per_clip + frame / self.frames_per_layer,
        }
    }

    /// Bytes of all pages together (RGBA32F).
    pub fn bytes(&self) -> u64 {
        (0..self.pages)
            .map(|p| self.width() as u64 * self.height() as u64 * self.page_layers(p) as u64 * 16)
            .sum()
    }

    /// The texels of page `page`, layer by layer, row by row, from `bake` (which must have this
    /// layout's shape). Texels no bone or frame uses are zero.
    pub fn pack_page(&self, bake: &Bake, page: u32) -> Vec<[f32; 4]> {
        let (w, h) = (self.width() as usize, self.height() as usize);
        let layers = self.page_layers(page) as usize;
        let mut out = vec![[0f32; 4]; w * h * layers];
        let first = page * self.clips_per_page;
        let last = (first + self.clips_per_page).min(self.clips);
        let bones = self.bones as usize;
        for clip in first..last {
            for frame in 0..self.frames {
                let Some(row) = bake.row(clip as usize, frame as usize) else {
                    continue;
                };
                for (bone, block) in row.chunks_exact(4).enumerate().take(bones) {
                    let a = self.locate(clip, frame, bone as u32, 0);
                    let start = (a.layer as usize * h + a.y as usize) * w + a.x as usize;
                    out[start..start + 4].copy_from_slice(block);
                }
            }
        }
        out
    }

    /// The values the shaders need to address the texture (see the WGSL `Layout` struct).
    pub(crate) fn shader_words(&self) -> [u32; 4] {
        [
            self.bones_per_row,
            self.rows_per_frame,
            self.frames_per_layer,
            self.layers_per_clip,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_dimension: u32, max_layers: u32) -> TextureLimits {
        TextureLimits {
            max_dimension,
            max_layers,
        }
    }

    #[test]
    fn a_bake_that_fits_keeps_the_reference_layout() {
        let l = BoneTextureLayout::new(60, 100, 3, TextureLimits::default()).unwrap();
        assert!(l.is_reference());
        assert_eq!(
            (l.width(), l.height(), l.page_layers(0), l.pages),
            (240, 100, 3, 1)
        );
        assert_eq!(
            l.locate(2, 57, 13, 3),
            TexelAddress {
                page: 0,
                x: 4 * 13 + 3,
                y: 57,
                layer: 2
            }
        );
        // 2048 bones are exactly 8192 texels.
        assert!(
            BoneTextureLayout::new(2048, 8192, 256, TextureLimits::default())
                .unwrap()
                .is_reference()
        );
    }

    #[test]
    fn wide_tall_and_many_clip_bakes_split_into_rows_layers_and_pages() {
        // 2049 bones: two rows of 1025 bones per frame.
        let l = BoneTextureLayout::new(2049, 10, 1, TextureLimits::default()).unwrap();
        assert_eq!(
            (l.rows_per_frame, l.bones_per_row, l.width()),
            (2, 1025, 4100)
        );
        assert_eq!(l.locate(0, 3, 2048, 1).y, 7);
        assert_eq!(l.locate(0, 3, 2048, 1).x, 4 * 1023 + 1);
        // 5 bones, 7 frames, 5 clips in 8×8 textures of 4 layers: 2 bones per row, 3 rows per
        // frame, 2 frames per layer, 4 layers per clip, 1 clip per page.
        let l = BoneTextureLayout::new(5, 7, 5, limits(8, 4)).unwrap();
        assert_eq!(
            (
                l.bones_per_row,
                l.rows_per_frame,
                l.frames_per_layer,
                l.layers_per_clip,
                l.clips_per_page,
                l.pages
            ),
            (2, 3, 2, 4, 1, 5)
        );
        assert_eq!((l.width(), l.height()), (8, 6));
        assert_eq!(
            l.locate(3, 5, 4, 2),
            TexelAddress {
                page: 3,
                x: 2,
                y: 3 + 2,
                layer: 2
            }
        );
    }

    #[test]
    fn every_texel_has_its_own_address() {
        let l = BoneTextureLayout::new(5, 7, 5, limits(8, 9)).unwrap();
        let mut seen = std::collections::HashSet::new();
        for c in 0..5 {
            for f in 0..7 {
                for b in 0..5 {
                    for r in 0..4 {
                        let a = l.locate(c, f, b, r);
                        assert!(a.x < l.width() && a.y < l.height());
                        assert!(a.layer < l.page_layers(a.page));
                        assert!(seen.insert(a), "{a:?} twice");
                    }
                }
            }
        }
    }

    #[test]
    fn bakes_past_the_limits_are_refused_with_the_reason() {
        let e = BoneTextureLayout::new(100, 1, 1, limits(8, 4)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "100 bones (50 rows of 2 bones per frame): more than the GPU's texture limits allow (textures of at most 8×8 texels and 4 layers)"
        );
        let e = BoneTextureLayout::new(2, 40, 1, limits(8, 4)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("40 frames of 2 bones (5 layers of 8 frames per clip)")
        );
        assert!(BoneTextureLayout::new(1, 1, 1, limits(3, 4)).is_err());
        assert!(BoneTextureLayout::new(0, 1, 1, TextureLimits::default()).is_err());
    }
}
