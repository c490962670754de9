//! GenUVCoords (Assimp 5.2.5 `ComputeUVMappingProcess.cpp`).

use crate::{ProcessError, check};
use core::f32::consts::PI;
use kiln_scene::assimp_math::mat4::transform_point;
use kiln_scene::assimp_math::{array_bounds, bounds_of, cross, dot, normalize};
use kiln_scene::{MAX_UV_CHANNELS, Mat4, Mesh, PropertyValue, Scene, UvChannel, Vec3};

/// `aiTextureMapping` values as stored in a `$tex.mapping` property.
const MAPPING_UV: i64 = 0;
const MAPPING_SPHERE: i64 = 1;
const MAPPING_CYLINDER: i64 = 2;
const MAPPING_BOX: i64 = 3;
const MAPPING_PLANE: i64 = 4;

/// Assimp's `aiProcess_GenUVCoords` as in 5.2.5 (`ComputeUVMappingProcess`).
///
/// It only acts on materials with a `$tex.mapping` property ([`kiln_scene::Material::properties`],
/// an integer `aiTextureMapping`) other than UV (0) and OTHER (5); OBJ and FBX imports normally
/// have none, so it is usually a no-op. For each such property, in property order:
///
/// - the mapping axis is the `$tex.mapaxis` vector of the same texture, default (0, 1, 0).
///   kiln properties carry no texture slot, so "the same texture" is the nearest `$tex.mapaxis`
///   after this `$tex.mapping` and before the next one, else the nearest one before it and after
///   the previous `$tex.mapping`;
/// - unless the material already computed the same mapping and axis, every mesh of the material
///   with vertices and a free UV slot (fewer than 8 channels) gets a new last UV channel: sphere
///   (longitude/latitude around the bounding-box centre, seams fixed as Assimp's
///   `RemoveUVSeams`), cylinder (angle around the axis and height along it, seams fixed), plane
///   (bounding-box-normalised coordinates across the axis) or box (Assimp does not implement it
///   and leaves the channel all zeros). The fast paths for axes within 0.95 of x, y or z and the
///   general path through Assimp's `FromToMatrix` are reproduced. The new channel says 2
///   components (Assimp leaves its count unset);
/// - the property is rewritten to UV (0) and `$tex.uvwsrc` = the channel index (99999999 when no
///   mesh got one) is appended to the material.
///
/// Fails without changing anything when a mesh is malformed.
pub fn gen_uv_coords(scene: &mut Scene) -> Result<(), ProcessError> {
    check::check_meshes(scene)?;
    gen_uv_coords_unchecked(scene);
    Ok(())
}

fn mapping_of(v: &PropertyValue) -> Option<i64> {
    match v {
        PropertyValue::Int(i) => Some(*i),
        PropertyValue::Float(f) => Some(*f as i64),
        PropertyValue::Vector(v) if v.len() == 1 => Some(v[0] as i64),
        _ => None,
    }
}

fn axis_of(v: &PropertyValue) -> Option<Vec3> {
    match v {
        PropertyValue::Vector(v) if v.len() >= 3 => {
            Some(Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32))
        }
        _ => None,
    }
}

fn find_axis(props: &[(String, PropertyValue)], at: usize) -> Vec3 {
    let is_mapping = |k: &str| k == "$tex.mapping";
    for (k, v) in &props[at + 1..] {
        if is_mapping(k) {
            break;
        }
        if k == "$tex.mapaxis" {
            if let Some(a) = axis_of(v) {
                return a;
            }
        }
    }
    for (k, v) in props[..at].iter().rev() {
        if is_mapping(k) {
            break;
        }
        if k == "$tex.mapaxis" {
            if let Some(a) = axis_of(v) {
                return a;
            }
        }
    }
    Vec3::Y
}

pub(crate) fn gen_uv_coords_unchecked(scene: &mut Scene) {
    for mi in 0..scene.materials.len() {
        let mut stack: Vec<(i64, Vec3, i64)> = Vec::new();
        let mut a = 0;
        while a < scene.materials[mi].properties.len() {
            let (key, value) = &scene.materials[mi].properties[a];
            let mapping = match mapping_of(value) {
                Some(m) if key == "$tex.mapping" && m != MAPPING_UV => m,
                _ => {
                    a += 1;
                    continue;
                }
            };
            if !matches!(
                mapping,
                MAPPING_SPHERE | MAPPING_CYLINDER | MAPPING_BOX | MAPPING_PLANE
            ) {
                // aiTextureMapping_OTHER (or unknown): left alone.
                a += 1;
                continue;
            }
            let axis = find_axis(&scene.materials[mi].properties, a);
            let idx = if let Some(&(_, _, idx)) =
                stack.iter().find(|(m, ax, _)| *m == mapping && *ax == axis)
            {
                idx
            } else {
                let mut idx: i64 = 99_999_999;
                for mesh in scene.meshes.iter_mut().filter(|m| m.material == mi) {
                    let out = mesh.uv_channels.len();
                    if out >= MAX_UV_CHANNELS || mesh.positions.is_empty() {
                        continue;
                    }
                    let coords = match mapping {
                        MAPPING_SPHERE => sphere(mesh, axis),
                        MAPPING_CYLINDER => cylinder(mesh, axis),
                        MAPPING_PLANE => plane(mesh, axis),
                        // MAPPING_BOX: "Mapping type currently not implemented" in Assimp,
                        // which still adds the (zeroed) channel.
                        _ => vec![Vec3::ZERO; mesh.positions.len()],
                    };
                    mesh.uv_channels.push(UvChannel {
                        components: 2,
                        coords,
                        name: String::new(),
                    });
                    idx = out as i64;
                }
                stack.push((mapping, axis, idx));
                idx
            };
            let props = &mut scene.materials[mi].properties;
            props[a].1 = PropertyValue::Int(MAPPING_UV);
            props.push(("$tex.uvwsrc".into(), PropertyValue::Int(idx)));
            a += 1;
        }
    }
}

const ANGLE_EPSILON: f32 = 0.95;
const TWO_PI: f32 = PI * 2.0;
const HALF_PI: f32 = PI * 0.5;

fn center_of(points: impl Iterator<Item = Vec3>, sentinel: f32) -> (Vec3, Vec3, Vec3) {
    let (min, max) = bounds_of(points, sentinel);
    (min + (max - min) * 0.5, min, max)
}

fn mesh_center(mesh: &Mesh) -> (Vec3, Vec3, Vec3) {
    let (min, max) = array_bounds(&mesh.positions);
    (min + (max - min) * 0.5, min, max)
}

/// `aiMatrix3x3::FromToMatrix` (Möller & Hughes), as a 4x4 with no translation. (Some Assimp
/// versions pick the helper axis wrongly in the "nearly parallel" branch; 5.2.5's results, e.g.
/// for an axis of (0, −1, 0), match the correct choice used here.)
fn from_to(from: Vec3, to: Vec3) -> Mat4 {
    let e = dot(from, to);
    let f = e.abs();
    let mut m = [[0f32; 3]; 3];
    if f > 1.0 - 0.00001 {
        let mut x = Vec3::new(from.x.abs(), from.y.abs(), from.z.abs());
        if x.x < x.y {
            if x.x < x.z {
                x = Vec3::new(1.0, 0.0, 0.0);
            } else {
                x = Vec3::new(0.0, 0.0, 1.0);
            }
        } else if x.y < x.z {
            x = Vec3::new(0.0, 1.0, 0.0);
        } else {
            x = Vec3::new(0.0, 0.0, 1.0);
        }
        let u = x - from;
        let v = x - to;
        let c1 = 2.0 / dot(u, u);
        let c2 = 2.0 / dot(v, v);
        let c3 = c1 * c2 * dot(u, v);
        for (i, row) in m.iter_mut().enumerate() {
            for (j, e) in row.iter_mut().enumerate() {
                *e = -c1 * u[i] * u[j] - c2 * v[i] * v[j] + c3 * v[i] * u[j];
            }
            row[i] += 1.0;
        }
    } else {
        let v = cross(from, to);
        let h = 1.0 / (1.0 + e);
        let hvx = h * v.x;
        let hvz = h * v.z;
        let hvxy = hvx * v.y;
        let hvxz = hvx * v.z;
        let hvyz = hvz * v.y;
        m = [
            [e + hvx * v.x, hvxy - v.z, hvxz + v.y],
            [hvxy + v.z, e + h * v.y * v.y, hvyz - v.x],
            [hvxz - v.y, hvyz + v.x, e + hvz * v.z],
        ];
    }
    // Rows to glam columns.
    Mat4::from_cols_array(&[
        m[0][0], m[1][0], m[2][0], 0.0, m[0][1], m[1][1], m[2][1], 0.0, m[0][2], m[1][2], m[2][2],
        0.0, 0.0, 0.0, 0.0, 1.0,
    ])
}

fn sphere(mesh: &Mesh, axis: Vec3) -> Vec<Vec3> {
    let (center, _, _) = mesh_center(mesh);
    let map = |a: f32, b: f32, c: f32| {
        Vec3::new((a.atan2(b) + PI) / TWO_PI, (c.asin() + HALF_PI) / PI, 0.0)
    };
    let mut out: Vec<Vec3> = if dot(axis, Vec3::X) >= ANGLE_EPSILON {
        mesh.positions
            .iter()
            .map(|&p| {
                let d = normalize(p - center);
                map(d.z, d.y, d.x)
            })
            .collect()
    } else if dot(axis, Vec3::Y) >= ANGLE_EPSILON {
        mesh.positions
            .iter()
            .map(|&p| {
                let d = normalize(p - center);
                map(d.x, d.z, d.y)
            })
            .collect()
    } else if dot(axis, Vec3::Z) >= ANGLE_EPSILON {
        mesh.positions
            .iter()
            .map(|&p| {
                let d = normalize(p - center);
                map(d.y, d.x, d.z)
            })
            .collect()
    } else {
        let t = from_to(axis, Vec3::Y);
        mesh.positions
            .iter()
            .map(|&p| {
                let d = normalize(transform_point(&t, p) - center);
                map(d.y, d.x, d.z)
            })
            .collect()
    };
    remove_seams(mesh, &mut out);
    out
}

fn cylinder(mesh: &Mesh, axis: Vec3) -> Vec<Vec3> {
    let mut out = vec![Vec3::ZERO; mesh.positions.len()];
    let fill = |out: &mut [Vec3], f: &dyn Fn(Vec3) -> Vec3| {
        for (o, &p) in out.iter_mut().zip(&mesh.positions) {
            *o = f(p);
        }
    };
    if dot(axis, Vec3::X) >= ANGLE_EPSILON {
        let (c, min, max) = mesh_center(mesh);
        let diff = max.x - min.x;
        fill(&mut out, &|p| {
            Vec3::new(
                ((p.z - c.z).atan2(p.y - c.y) + PI) / TWO_PI,
                (p.x - min.x) / diff,
                0.0,
            )
        });
    } else if dot(axis, Vec3::Y) >= ANGLE_EPSILON {
        let (c, min, max) = mesh_center(mesh);
        let diff = max.y - min.y;
        fill(&mut out, &|p| {
            Vec3::new(
                ((p.x - c.x).atan2(p.z - c.z) + PI) / TWO_PI,
                (p.y - min.y) / diff,
                0.0,
            )
        });
    } else if dot(axis, Vec3::Z) >= ANGLE_EPSILON {
        let (c, min, max) = mesh_center(mesh);
        let diff = max.z - min.z;
        fill(&mut out, &|p| {
            Vec3::new(
                ((p.y - c.y).atan2(p.x - c.x) + PI) / TWO_PI,
                (p.z - min.z) / diff,
                0.0,
            )
        });
    } else {
        let t = from_to(axis, Vec3::Y);
        let (c, min, max) = center_of(
            mesh.positions.iter().map(|&p| transform_point(&t, p)),
            10e10,
        );
        let diff = max.y - min.y;
        fill(&mut out, &|p| {
            let p = transform_point(&t, p);
            Vec3::new(
                ((p.x - c.x).atan2(p.z - c.z) + PI) / TWO_PI,
                (p.y - min.y) / diff,
                0.0,
            )
        });
    }
    remove_seams(mesh, &mut out);
    out
}

fn plane(mesh: &Mesh, axis: Vec3) -> Vec<Vec3> {
    let map = |(du, dv): (f32, f32), u: f32, v: f32| Vec3::new(u / du, v / dv, 0.0);
    if dot(axis, Vec3::X) >= ANGLE_EPSILON {
        let (_, min, max) = mesh_center(mesh);
        let d = (max.z - min.z, max.y - min.y);
        mesh.positions
            .iter()
            .map(|p| map(d, p.z - min.z, p.y - min.y))
            .collect()
    } else if dot(axis, Vec3::Y) >= ANGLE_EPSILON {
        let (_, min, max) = mesh_center(mesh);
        let d = (max.x - min.x, max.z - min.z);
        mesh.positions
            .iter()
            .map(|p| map(d, p.x - min.x, p.z - min.z))
            .collect()
    } else if dot(axis, Vec3::Z) >= ANGLE_EPSILON {
        let (_, min, max) = mesh_center(mesh);
        let d = (max.x - min.x, max.y - min.y);
        mesh.positions
            .iter()
            .map(|p| map(d, p.x - min.x, p.y - min.y))
            .collect()
    } else {
        let t = from_to(axis, Vec3::Y);
        let (_, min, max) = center_of(
            mesh.positions.iter().map(|&p| transform_point(&t, p)),
            10e10,
        );
        let d = (max.x - min.x, max.z - min.z);
        mesh.positions
            .iter()
            .map(|&p| {
                let p = transform_point(&t, p);
                map(d, p.x - min.x, p.z - min.z)
            })
            .collect()
    }
}

/// Assimp's `RemoveUVSeams`: for faces of 3+ corners with a U below 0.1 and one above 0.9, move
/// the outliers to the other side.
fn remove_seams(mesh: &Mesh, out: &mut [Vec3]) {
    const LOWER_LIMIT: f32 = 0.1;
    const UPPER_LIMIT: f32 = 0.9;
    const LOWER_EPSILON: f32 = 10e-3;
    const UPPER_EPSILON: f32 = 1.0 - 10e-3;
    // `check_meshes` has made the face sizes add up to the index count.
    for face in mesh.faces() {
        if face.len() < 3 {
            continue;
        }
        let (mut small, mut large) = (false, false);
        let (mut zero, mut one, mut round_to_zero) = (false, false, false);
        for &i in face {
            let u = out[i as usize].x;
            if u < LOWER_LIMIT {
                small = true;
                if u <= LOWER_EPSILON {
                    zero = true;
                } else {
                    round_to_zero = true;
                }
            }
            if u > UPPER_LIMIT {
                large = true;
                if u >= UPPER_EPSILON {
                    one = true;
                }
            }
        }
        if small && large {
            for &i in face {
                let u = &mut out[i as usize].x;
                if *u > UPPER_LIMIT && !zero {
                    *u = 0.0;
                } else if *u < LOWER_LIMIT && !one {
                    *u = 1.0;
                } else if one && zero {
                    if round_to_zero && *u >= UPPER_EPSILON {
                        *u = 0.0;
                    } else if !round_to_zero && *u <= LOWER_EPSILON {
                        *u = 1.0;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_scene::Material;

    fn scene_with_mapping(mapping: i64, axis: Option<[f64; 3]>) -> Scene {
        let mut s = Scene::with_root("r");
        let mut mat = Material::default();
        mat.properties
            .push(("$tex.mapping".into(), PropertyValue::Int(mapping)));
        if let Some(a) = axis {
            mat.properties
                .push(("$tex.mapaxis".into(), PropertyValue::Vector(a.to_vec())));
        }
        s.materials.push(mat);
        let mut m = Mesh {
            positions: vec![
                Vec3::new(-1.0, -1.0, 0.0),
                Vec3::new(1.0, -1.0, 0.0),
                Vec3::new(1.0, 1.0, 2.0),
                Vec3::new(-1.0, 1.0, 2.0),
            ],
            ..Mesh::default()
        };
        m.push_face(&[0, 1, 2, 3]);
        m.update_primitive_types();
        s.meshes.push(m);
        s
    }

    #[test]
    fn uv_mapped_materials_are_untouched() {
        let mut s = scene_with_mapping(MAPPING_UV, None);
        let before = s.clone();
        gen_uv_coords(&mut s).unwrap();
        assert_eq!(s, before);
    }

    #[test]
    fn plane_mapping_along_z() {
        let mut s = scene_with_mapping(MAPPING_PLANE, Some([0.0, 0.0, 1.0]));
        gen_uv_coords(&mut s).unwrap();
        let uv = &s.meshes[0].uv_channels[0].coords;
        assert_eq!(uv[0], Vec3::new(0.0, 0.0, 0.0));
        assert_eq!(uv[2], Vec3::new(1.0, 1.0, 0.0));
        let props = &s.materials[0].properties;
        assert_eq!(props[0].1, PropertyValue::Int(0));
        assert_eq!(
            props.last().unwrap(),
            &("$tex.uvwsrc".to_string(), PropertyValue::Int(0))
        );
    }

    #[test]
    fn sphere_and_cylinder_and_box_produce_a_channel() {
        for m in [MAPPING_SPHERE, MAPPING_CYLINDER, MAPPING_BOX] {
            for axis in [
                [0.0, 1.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0],
                [0.6, 0.0, 0.8],
            ] {
                let mut s = scene_with_mapping(m, Some(axis));
                gen_uv_coords(&mut s).unwrap();
                let uv = &s.meshes[0].uv_channels[0].coords;
                assert_eq!(uv.len(), 4);
                if m == MAPPING_BOX {
                    assert!(uv.iter().all(|&v| v == Vec3::ZERO));
                } else {
                    assert!(
                        uv.iter()
                            .all(|v| v.is_finite() && (0.0..=1.0).contains(&v.y)),
                        "{m} {axis:?} {uv:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn from_to_rotates_from_into_to() {
        for from in [
            Vec3::new(0.6, 0.0, 0.8),
            -Vec3::Y,
            Vec3::Y,
            Vec3::new(0.0, -0.99999, 0.0),
        ] {
            let m = from_to(from, Vec3::Y);
            let to = transform_point(&m, from);
            assert!((to - Vec3::Y).length() < 1e-4, "{from} -> {to}");
        }
        // Antiparallel: a reflection through the plane normal to (0, 1, 1) and (0, -1, 1),
        // i.e. diag(1, -1, -1), as Assimp 5.2.5's cylinder mapping of NFF/cylinder.nff shows.
        let m = from_to(-Vec3::Y, Vec3::Y);
        assert!(
            m.abs_diff_eq(Mat4::from_scale(Vec3::new(1.0, -1.0, -1.0)), 1e-6),
            "{m}"
        );
    }
}
