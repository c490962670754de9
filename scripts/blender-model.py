"""Makes a skinned, animated model with Blender and exports it with Blender's own FBX exporter,
so that the whole-conversion benchmark (issue 12) and the conformance check can run on a real
export, not only on kiln's generated one:

    apt-get install -y --no-install-recommends blender python3-numpy
    blender -b --python scripts/blender-model.py -- OUT.fbx LEVEL [BONES]
    scripts/bench-convert --model OUT.fbx

The model: Blender's monkey, Subdivision Surface applied at LEVEL (4: 126k quads, 252k
triangles, 9.4 MB; 5: 504k quads, 1M triangles, 34 MB), smooth with auto smooth at 40° (hard
edges where the monkey creases), four materials by x, the monkey's UV map, an armature of BONES
bones (100 by default) in ten chains, each vertex weighted to its four nearest bones (1/d),
and a 300-frame action of Euler keys every 100 frames (the exporter bakes every frame). Blender
3.4 (Debian 12) takes 15 s at level 4 and a minute at level 5.
"""
import math
import sys

import bpy
import numpy as np

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
if len(argv) < 2:
    sys.exit("usage: blender -b --python scripts/blender-model.py -- OUT.fbx LEVEL [BONES]")
out, level = argv[0], int(argv[1])
bones_n = int(argv[2]) if len(argv) > 2 else 100

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_monkey_add(size=2)
obj = bpy.context.active_object
sub = obj.modifiers.new("subdivision", 'SUBSURF')
sub.levels = sub.render_levels = level
bpy.ops.object.modifier_apply(modifier=sub.name)
me = obj.data
bpy.ops.object.shade_smooth()
me.use_auto_smooth = True
me.auto_smooth_angle = math.radians(40)

# Four materials, by the x of each face's centre.
for k in range(4):
    me.materials.append(bpy.data.materials.new("Mat%d" % k))
centres = np.zeros(len(me.polygons) * 3, dtype=np.float32)
me.polygons.foreach_get("center", centres)
x = centres.reshape(-1, 3)[:, 0]
me.polygons.foreach_set("material_index", np.clip(((x + 1.4) / 2.8 * 4).astype(np.int32), 0, 3))

# An armature of ten chains of bones, fanned out across the model.
arm = bpy.data.armatures.new("Armature")
rig = bpy.data.objects.new("Armature", arm)
bpy.context.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
bpy.ops.object.mode_set(mode='EDIT')
chains, per = 10, max(1, bones_n // 10)
centres_of_bones, names = [], []
for c in range(chains):
    angle = c / chains * 2 * math.pi
    z = -0.8 + 1.6 * c / chains
    parent = None
    for k in range(per):
        b = arm.edit_bones.new("B%02d_%02d" % (c, k))
        r0, r1 = k / per * 1.4, (k + 1) / per * 1.4
        b.head = (math.cos(angle) * r0, math.sin(angle) * r0 * 0.3, z)
        b.tail = (math.cos(angle) * r1, math.sin(angle) * r1 * 0.3, z)
        if parent is not None:
            b.parent, b.use_connect = parent, True
        parent = b
        centres_of_bones.append((np.array(b.head) + np.array(b.tail)) / 2)
        names.append(b.name)
bpy.ops.object.mode_set(mode='OBJECT')

# Each vertex weighted to its four nearest bones, 1/d, normalised (in slices: a million
# vertices by a hundred bones at once would be gigabytes).
nv = len(me.vertices)
co = np.zeros(nv * 3, dtype=np.float32)
me.vertices.foreach_get("co", co)
co = co.reshape(-1, 3)
bone_centres = np.array(centres_of_bones, dtype=np.float32)
near = np.zeros((nv, 4), dtype=np.int64)
weights = np.zeros((nv, 4), dtype=np.float32)
for a in range(0, nv, 65536):
    d = np.linalg.norm(co[a:a + 65536, None, :] - bone_centres[None, :, :], axis=2)
    nn = np.argpartition(d, 4, axis=1)[:, :4]
    near[a:a + 65536] = nn
    weights[a:a + 65536] = 1.0 / (np.take_along_axis(d, nn, axis=1) + 1e-3)
weights /= weights.sum(axis=1, keepdims=True)
groups = [obj.vertex_groups.new(name=n) for n in names]
for b, group in enumerate(groups):
    for j in range(4):
        sel = np.nonzero(near[:, j] == b)[0]
        # One call per distinct weight (to 3 decimals) instead of one per vertex.
        w = np.round(weights[sel, j], 3)
        for value in np.unique(w):
            group.add(sel[w == value].tolist(), float(value), 'ADD')
obj.parent = rig
obj.modifiers.new("armature", 'ARMATURE').object = rig

# A 300-frame action: Euler keys every 100 frames on every bone.
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 300
for i, pb in enumerate(rig.pose.bones):
    pb.rotation_mode = 'XYZ'
    for f in (1, 100, 200, 300):
        pb.rotation_euler = (0.2 * math.sin(f * 0.05 + i), 0.1 * math.cos(f * 0.03 + i), 0.0)
        pb.keyframe_insert("rotation_euler", frame=f)

bpy.ops.export_scene.fbx(filepath=out, use_selection=False, bake_anim=True)
print("%s: %d faces, %d vertices, %d bones" % (out, len(me.polygons), nv, len(names)))
