//! Morph targets on the GPU: the baked weights ([`kiln_anim::WeightBake`]) as an `R32F` texture
//! array, and a model's shapes as the buffers `skin_morph` (in `skin.wgsl`) reads: a shape table,
//! and per vertex the list of deltas that move it.
//!
//! The deltas are grouped by vertex (a counting sort of every shape's sparse or dense deltas),
//! so that one invocation per vertex and sample sums its own list, in the CPU's order: target by
//! target, shapes ascending. A delta whose vertex is past its part, or beyond the shorter of a
//! shape's vertex list and delta list, is left out, as kiln-anim's `apply_morphs` skips it.

use std::ops::Range;

use kiln_anim::{MorphShape, WeightBake, apply_morphs, part_shapes, targets_of};
use kiln_format::{Model, Vertex};

use crate::{Gpu, GpuError, InputError};

/// The bind-group-layout entry of the weight texture: R32F is not filterable without an
/// optional feature, and the shader only `textureLoad`s it.
pub(crate) fn weight_texture_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2Array,
            multisampled: false,
        },
        count: None,
    }
}

/// A weight bake uploaded as one `R32F` 2D array texture: `width` targets, `height` frames, one
/// layer per clip, exactly the bake's layout.
#[derive(Debug)]
pub struct WeightTexture {
    view: wgpu::TextureView,
    layers: u32,
}

impl WeightTexture {
    /// Uploads `weights`; it must fit one texture of the GPU (it is not split).
    pub fn upload(gpu: &Gpu, weights: &WeightBake) -> Result<WeightTexture, GpuError> {
        let malformed = |what| InputError::MalformedWeights {
            what,
            texels: weights.texels.len(),
            width: weights.width,
            height: weights.height,
            layers: weights.layers,
        };
        let expected = weights.width as u64 * weights.height as u64 * weights.layers as u64;
        if weights.texels.len() as u64 != expected {
            return Err(malformed("texel count").into());
        }
        if weights.width == 0 || weights.height == 0 || weights.layers == 0 {
            return Err(malformed("empty").into());
        }
        if weights.frame_counts.len() != weights.layers as usize {
            return Err(malformed("frame counts").into());
        }
        let limits = gpu.texture_limits();
        if weights.width > limits.max_dimension
            || weights.height > limits.max_dimension
            || weights.layers > limits.max_layers
        {
            return Err(InputError::WeightsTooLarge {
                width: weights.width,
                height: weights.height,
                layers: weights.layers,
                limits,
            }
            .into());
        }
        let size = wgpu::Extent3d {
            width: weights.width,
            height: weights.height,
            depth_or_array_layers: weights.layers,
        };
        let view = gpu.scoped("uploading the weight texture", || {
            gpu.texture_with_data(
                "kiln morph weights",
                size,
                wgpu::TextureFormat::R32Float,
                bytemuck::cast_slice(&weights.texels),
                weights.width * 4,
                wgpu::TextureViewDimension::D2Array,
            )
        })?;
        Ok(WeightTexture {
            view,
            layers: weights.layers,
        })
    }

    pub(crate) fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// Layers (clips) of the texture.
    pub fn layers(&self) -> u32 {
        self.layers
    }
}

/// Flag of a vertex range: renormalise the vertex's normal (its part has targets).
pub(crate) const RENORMALISE: u32 = 0x8000_0000;
/// Words of one entry: shape, position delta, normal delta (f32 bits), padding.
pub(crate) const ENTRY_WORDS: usize = 8;

/// A model's shapes, laid out for `skin_morph`, on the CPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct MorphLayout {
    /// Per shape (over the whole model): the column of its target, its target's first shape,
    /// its target's shape count, its full weight (bits).
    pub shapes: Vec<[u32; 4]>,
    /// Per vertex of the model (parts in order): first entry, entry count | [`RENORMALISE`].
    pub ranges: Vec<[u32; 2]>,
    /// [`ENTRY_WORDS`] words per entry, grouped by vertex: the shape, then the deltas' bits
    /// (the shader reads `u32`s and bitcasts, so no float, denormal or not, is reinterpreted).
    pub entries: Vec<u32>,
}

impl MorphLayout {
    /// The layout of `model`'s targets, whose columns `weights` gives.
    pub fn new(model: &Model, weights: &WeightBake) -> Result<MorphLayout, GpuError> {
        let mut shapes = Vec::new();
        // (global vertex, shape, position delta, normal delta), in shape order.
        let mut deltas: Vec<(usize, u32, [f32; 3], [f32; 3])> = Vec::new();
        let mut renormalise = Vec::new();
        let mut base = 0usize;
        for (p, part) in model.meshes.iter().enumerate() {
            let n = part.vertices.len();
            renormalise.push((base..base + n, !part.morph_targets.is_empty()));
            for (t, target) in part.morph_targets.iter().enumerate() {
                let column = weights.column(p, t).ok_or(InputError::MalformedWeights {
                    what: "fewer columns than the model's targets",
                    texels: weights.texels.len(),
                    width: weights.width,
                    height: weights.height,
                    layers: weights.layers,
                })? as u32;
                let first = shapes.len() as u32;
                let count = target.shapes.len() as u32;
                for shape in &target.shapes {
                    let index = shapes.len() as u32;
                    shapes.push([column, first, count, shape.full_weight.to_bits()]);
                    let normal = |k: usize| shape.normals.get(k).copied().unwrap_or([0.0; 3]);
                    if shape.vertices.is_empty() {
                        for (v, d) in shape.positions.iter().enumerate().take(n) {
                            deltas.push((base + v, index, *d, normal(v)));
                        }
                    } else {
                        for (k, (&v, d)) in shape.vertices.iter().zip(&shape.positions).enumerate()
                        {
                            if (v as usize) < n {
                                deltas.push((base + v as usize, index, *d, normal(k)));
                            }
                        }
                    }
                }
            }
            base += n;
        }
        let mut counts = vec![0u32; base];
        for d in &deltas {
            counts[d.0] += 1;
        }
        let mut ranges = Vec::with_capacity(base);
        let mut start = 0u32;
        for &c in &counts {
            ranges.push([start, c]);
            start += c;
        }
        let mut next: Vec<u32> = ranges.iter().map(|r| r[0]).collect();
        let mut entries = vec![0u32; deltas.len() * ENTRY_WORDS];
        for (v, shape, d, nd) in deltas {
            let e = next[v] as usize * ENTRY_WORDS;
            next[v] += 1;
            entries[e] = shape;
            for k in 0..3 {
                entries[e + 1 + k] = d[k].to_bits();
                entries[e + 4 + k] = nd[k].to_bits();
            }
        }
        for (range, flag) in renormalise {
            if flag {
                for r in &mut ranges[range] {
                    r[1] |= RENORMALISE;
                }
            }
        }
        Ok(MorphLayout {
            shapes,
            ranges,
            entries,
        })
    }
}

/// A model's morph targets on the CPU, made once and applied at many weights: what the
/// verifier's reference and the preview's tiles morph with (`kiln_anim::apply_morphs`, part by
/// part, over the vertices of every part in order, as [`crate::verify::model_vertices`] lays
/// them out).
pub(crate) struct CpuMorphs<'a> {
    parts: Vec<PartMorphs<'a>>,
}

struct PartMorphs<'a> {
    part: usize,
    range: Range<usize>,
    targets: &'a [kiln_format::MorphTarget],
    shapes: Vec<Vec<MorphShape<'a>>>,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

impl<'a> CpuMorphs<'a> {
    /// The targets of `model`'s parts; `None` when no part has any.
    pub fn new(model: &'a Model) -> Option<CpuMorphs<'a>> {
        let mut parts = Vec::new();
        let mut start = 0;
        for (p, part) in model.meshes.iter().enumerate() {
            let range = start..start + part.vertices.len();
            start = range.end;
            if part.morph_targets.is_empty() {
                continue;
            }
            parts.push(PartMorphs {
                part: p,
                range,
                targets: &part.morph_targets,
                shapes: part_shapes(part),
                positions: part.vertices.iter().map(|v| v.position).collect(),
                normals: part.vertices.iter().map(|v| v.normal).collect(),
            });
        }
        (!parts.is_empty()).then_some(CpuMorphs { parts })
    }

    /// Writes into `out` (the model's vertices, as [`CpuMorphs::new`]'s model holds them) every
    /// part with targets morphed at the weights `weights(part, targets, out)` gives, one per
    /// target of the part; other vertices are left as they are.
    pub fn apply(
        &self,
        mut weights: impl FnMut(usize, &[kiln_format::MorphTarget], &mut [f32]),
        out: &mut [Vertex],
    ) -> Result<(), GpuError> {
        for p in &self.parts {
            let mut w = vec![0.0; p.targets.len()];
            weights(p.part, p.targets, &mut w);
            let (mut positions, mut normals) = (p.positions.clone(), p.normals.clone());
            apply_morphs(
                &p.positions,
                &p.normals,
                &targets_of(&p.shapes),
                &w,
                &mut positions,
                &mut normals,
            )
            .map_err(InputError::Morph)?;
            let Some(vertices) = out.get_mut(p.range.clone()) else {
                continue;
            };
            for ((v, position), normal) in vertices.iter_mut().zip(positions).zip(normals) {
                v.position = position;
                v.normal = normal;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_format::{MeshPart, MorphShape, MorphTarget, Vertex};

    #[test]
    fn deltas_are_grouped_by_vertex_in_shape_order() {
        let part = |n: usize, targets: Vec<MorphTarget>| MeshPart {
            vertices: vec![Vertex::default(); n],
            morph_targets: targets,
            ..MeshPart::default()
        };
        let shape = |fw: f32, vertices: Vec<u32>, positions: Vec<[f32; 3]>| MorphShape {
            name: String::new(),
            full_weight: fw,
            vertices,
            positions,
            normals: Vec::new(),
        };
        let model = Model {
            meshes: vec![
                part(2, Vec::new()),
                part(
                    3,
                    vec![
                        MorphTarget {
                            name: "a".into(),
                            default_weight: 0.0,
                            shapes: vec![
                                // Vertex 7 is past the part: left out.
                                shape(0.5, vec![2, 7], vec![[1.0; 3], [9.0; 3]]),
                                shape(1.0, vec![2], vec![[2.0; 3]]),
                            ],
                        },
                        MorphTarget {
                            name: "b".into(),
                            default_weight: 0.0,
                            // Dense.
                            shapes: vec![shape(1.0, Vec::new(), vec![[3.0; 3]; 3])],
                        },
                    ],
                ),
            ],
            ..Model::default()
        };
        let weights = kiln_anim::bake_weights(&model, &[], 1).unwrap();
        let l = MorphLayout::new(&model, &weights).unwrap();
        assert_eq!(
            l.shapes,
            [
                [0, 0, 2, 0.5f32.to_bits()],
                [0, 0, 2, 1.0f32.to_bits()],
                [1, 2, 1, 1.0f32.to_bits()]
            ]
        );
        let r = RENORMALISE;
        assert_eq!(
            l.ranges,
            [[0, 0], [0, 0], [0, 1 | r], [1, 1 | r], [2, 3 | r]]
        );
        let shape_of = |e: usize| l.entries[e * ENTRY_WORDS];
        let delta_of = |e: usize| f32::from_bits(l.entries[e * ENTRY_WORDS + 1]);
        // Vertex 4 (the part's vertex 2): shape 0, shape 1, then the dense shape 2.
        assert_eq!([shape_of(2), shape_of(3), shape_of(4)], [0, 1, 2]);
        assert_eq!([delta_of(2), delta_of(3), delta_of(4)], [1.0, 2.0, 3.0]);
        assert_eq!(l.entries.len(), 5 * ENTRY_WORDS);
    }
}
