//! The node transform chain (`GenerateTransformationNodeChain`): the FBX transform
//! properties of a model as matrices in Assimp's `TransformationComp` order, either multiplied
//! into the node's own transform or, when the model has pivots or offsets and
//! `preserve_pivots` is on, kept as `name_$AssimpFbx$_Component` helper nodes.
//!
//! Two tables drive it: [`CHAIN`], the components parent to child with their helper-node
//! names, and [`READS`], the FBX properties in the order Assimp reads them, each with how it
//! becomes a matrix (and its inverse, for pivots and geometric transforms).

use kiln_scene::assimp_math::{M4, RotOrder, rotation_matrix, sq_len};
use kiln_scene::{Node as SceneNode, NodeId, Warning};

use super::{Converter, Model};
use crate::codes;

/// The parts of a node's local transform, in Assimp's chain order (parent to child); the
/// discriminant is the position in [`CHAIN`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Comp {
    Translation = 0,
    RotationOffset,
    RotationPivot,
    PreRotation,
    Rotation,
    PostRotation,
    RotationPivotInverse,
    ScalingOffset,
    ScalingPivot,
    Scaling,
    ScalingPivotInverse,
    GeometricTranslation,
    GeometricRotation,
    GeometricScaling,
    GeometricScalingInverse,
    GeometricRotationInverse,
    GeometricTranslationInverse,
}

/// Every component in chain order, with its helper-node suffix (`NameTransformationComp`).
const CHAIN: [(Comp, &str); 17] = [
    (Comp::Translation, "Translation"),
    (Comp::RotationOffset, "RotationOffset"),
    (Comp::RotationPivot, "RotationPivot"),
    (Comp::PreRotation, "PreRotation"),
    (Comp::Rotation, "Rotation"),
    (Comp::PostRotation, "PostRotation"),
    (Comp::RotationPivotInverse, "RotationPivotInverse"),
    (Comp::ScalingOffset, "ScalingOffset"),
    (Comp::ScalingPivot, "ScalingPivot"),
    (Comp::Scaling, "Scaling"),
    (Comp::ScalingPivotInverse, "ScalingPivotInverse"),
    (Comp::GeometricTranslation, "GeometricTranslation"),
    (Comp::GeometricRotation, "GeometricRotation"),
    (Comp::GeometricScaling, "GeometricScaling"),
    (Comp::GeometricScalingInverse, "GeometricScalingInverse"),
    (Comp::GeometricRotationInverse, "GeometricRotationInverse"),
    (
        Comp::GeometricTranslationInverse,
        "GeometricTranslationInverse",
    ),
];

/// How a transform property becomes its component's matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `Translation(v)`; its inverse is `Translation(-v)`.
    Translation,
    /// `Scaling(v)`, unset when `v` is within epsilon of (1, 1, 1); its inverse is
    /// `Scaling(1 / v)`, which a zero component prevents.
    Scaling,
    /// Euler degrees in XYZ order (pre and post rotation); its inverse is the matrix inverse.
    RotationXyz,
    /// Euler degrees in the model's `RotationOrder`; its inverse is the matrix inverse.
    Rotation,
}

/// The transform properties in the order Assimp reads them (which is the order of their
/// warnings): the component each sets, the inverse component it sets too, and its kind. The
/// FBX property is [`Comp::property`] of the component.
const READS: [(Comp, Option<Comp>, Kind); 12] = [
    (Comp::PreRotation, None, Kind::RotationXyz),
    (Comp::PostRotation, None, Kind::RotationXyz),
    (
        Comp::RotationPivot,
        Some(Comp::RotationPivotInverse),
        Kind::Translation,
    ),
    (Comp::RotationOffset, None, Kind::Translation),
    (Comp::ScalingOffset, None, Kind::Translation),
    (
        Comp::ScalingPivot,
        Some(Comp::ScalingPivotInverse),
        Kind::Translation,
    ),
    (Comp::Translation, None, Kind::Translation),
    (Comp::Scaling, None, Kind::Scaling),
    (Comp::Rotation, None, Kind::Rotation),
    (
        Comp::GeometricScaling,
        Some(Comp::GeometricScalingInverse),
        Kind::Scaling,
    ),
    (
        Comp::GeometricRotation,
        Some(Comp::GeometricRotationInverse),
        Kind::Rotation,
    ),
    (
        Comp::GeometricTranslation,
        Some(Comp::GeometricTranslationInverse),
        Kind::Translation,
    ),
];

impl Comp {
    /// The helper node suffix (`NameTransformationComp`).
    pub(super) fn name(self) -> &'static str {
        CHAIN[self as usize].1
    }

    /// The FBX property (`NameTransformationCompProperty`).
    pub(super) fn property(self) -> &'static str {
        match self {
            Comp::Translation => "Lcl Translation",
            Comp::Rotation => "Lcl Rotation",
            Comp::Scaling => "Lcl Scaling",
            other => other.name(),
        }
    }

    /// This component's bit in a set of components.
    pub(super) fn bit(self) -> u32 {
        1 << (self as u32)
    }

    /// Whether its helper node goes between the model's node and its children (the inverse
    /// geometric transforms), not above the model's node.
    fn after_model(self) -> bool {
        matches!(
            self,
            Comp::GeometricScalingInverse
                | Comp::GeometricRotationInverse
                | Comp::GeometricTranslationInverse
        )
    }
}

/// `name_$AssimpFbx$_Component`.
pub(super) fn chain_node_name(name: &str, comp: Comp) -> String {
    format!("{name}_$AssimpFbx$_{}", comp.name())
}

/// Helper nodes: names and local matrices, parent first.
type NodeChain = Vec<(String, M4)>;

impl<'d, 'a> Converter<'_, 'd, 'a> {
    /// Adds the chain of nodes for `model` under `parent`: returns the node that carries the
    /// meshes and the node its children hang from.
    pub(super) fn convert_model_node(
        &mut self,
        model: &Model<'d, 'a>,
        parent: NodeId,
    ) -> (NodeId, NodeId) {
        let (chain, post) = self.transformation_chain(model);
        let mut last = parent;
        for (name, m) in chain {
            let mut n = SceneNode::new(name);
            n.transform = m.to_glam();
            last = self.scene.add_child(last, n);
        }
        let mesh_node = last;
        let has_children = self.g.sources_of(model.id, "Model").next().is_some();
        if has_children {
            for (name, m) in post {
                let mut n = SceneNode::new(name);
                n.transform = m.to_glam();
                last = self.scene.add_child(last, n);
            }
        }
        (mesh_node, last)
    }

    /// The model's vector property `prop`, unless it is unset or not finite (which warns).
    fn check_vec(&mut self, model: &Model<'d, 'a>, prop: &str) -> Option<[f32; 3]> {
        let v = model.props.vec3_f32(prop)?;
        if v.iter().all(|x| x.is_finite()) {
            Some(v)
        } else {
            self.warn(
                Warning::new(
                    codes::TRANSFORM_NOT_FINITE,
                    format!(
                        "Model '{}' (id {}): {prop} is not finite ({v:?}); treated as unset",
                        model.name, model.id
                    ),
                )
                .at(format!("Model '{}' (id {})", model.name, model.id)),
            );
            None
        }
    }

    /// `GenerateTransformationNodeChain`: the nodes (name, local matrix) from the parent down
    /// to the node named after the model, and the geometric inverse nodes that go between it
    /// and its children.
    fn transformation_chain(&mut self, model: &Model<'d, 'a>) -> (NodeChain, NodeChain) {
        let eps = f32::EPSILON;
        let mut chain = [M4::IDENTITY; 17];
        let mut bits = 0u32;
        let mut set = |comp: Comp, m: M4, bits: &mut u32| {
            chain[comp as usize] = m;
            *bits |= comp.bit();
        };
        for (comp, inverse, kind) in READS {
            let Some(v) = self.check_vec(model, comp.property()) else {
                continue;
            };
            // Unset when it is the identity's value, within epsilon (`v` is finite).
            let offset = if kind == Kind::Scaling {
                [v[0] - 1.0, v[1] - 1.0, v[2] - 1.0]
            } else {
                v
            };
            if sq_len(offset) <= eps {
                continue;
            }
            let m = match kind {
                Kind::Translation => M4::translation(v),
                Kind::Scaling => M4::scaling(v),
                Kind::RotationXyz => rotation_matrix(RotOrder::Xyz, v),
                Kind::Rotation => rotation_matrix(model.rot_order, v),
            };
            set(comp, m, &mut bits);
            let Some(inverse) = inverse else { continue };
            let inverted = match kind {
                Kind::Translation => M4::translation([-v[0], -v[1], -v[2]]),
                Kind::Scaling if v.iter().all(|x| x.abs() > eps) => {
                    M4::scaling([1.0 / v[0], 1.0 / v[1], 1.0 / v[2]])
                }
                Kind::Scaling => {
                    self.warn(
                        Warning::new(
                            codes::GEOMETRIC_SCALING_SINGULAR,
                            format!(
                                "Model '{}' (id {}): {} has a zero component and cannot be inverted",
                                model.name,
                                model.id,
                                comp.property()
                            ),
                        )
                        .at(format!("Model '{}' (id {})", model.name, model.id)),
                    );
                    continue;
                }
                Kind::RotationXyz | Kind::Rotation => m.inverse(),
            };
            set(inverse, inverted, &mut bits);
        }
        let simple = Comp::Translation.bit() | Comp::Rotation.bit() | Comp::Scaling.bit();
        let complex = ((1u32 << 17) - 1) & !simple;
        let name = model.name.clone();
        if bits & complex != 0 && self.options.preserve_pivots {
            let anim_bits = self.anim_chain_bits.get(&name).copied().unwrap_or(0);
            let mut out = Vec::new();
            let mut post = Vec::new();
            for (comp, _) in CHAIN {
                if bits & comp.bit() == 0 && anim_bits & comp.bit() == 0 {
                    continue;
                }
                let mut m = chain[comp as usize];
                if comp == Comp::PostRotation {
                    m = m.inverse();
                }
                let entry = (chain_node_name(&name, comp), m);
                if comp.after_model() {
                    post.push(entry);
                } else {
                    out.push(entry);
                }
            }
            out.push((name, M4::IDENTITY));
            return (out, post);
        }
        let mut m = M4::IDENTITY;
        for c in &chain[..Comp::GeometricScalingInverse as usize] {
            m = m.mul(c);
        }
        (vec![(name, m)], Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_follow_the_chain_order() {
        for (i, (comp, name)) in CHAIN.iter().enumerate() {
            assert_eq!(*comp as usize, i, "{name}");
            assert_eq!(comp.name(), *name);
        }
        // Every component but the inverses is read from a property, once.
        let mut read = 0u32;
        for (comp, inverse, _) in READS {
            assert_eq!(read & comp.bit(), 0, "{comp:?}");
            read |= comp.bit();
            if let Some(i) = inverse {
                read |= i.bit();
            }
        }
        assert_eq!(read, (1 << 17) - 1);
    }
}
