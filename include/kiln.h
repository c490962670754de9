/* kiln.h — a single-file C reader for kiln-layout .mesh and .clip files (version 1.x; it
 * knows every section of 1.1: morph targets in a .mesh, weight tracks in a .clip).
 *
 * Written from docs/format.md. C99, no allocation, no dependencies beyond the C library and
 * its math library: link with -lm (the octahedral normal decoder calls sqrtf and fabsf).
 * Little-endian hosts only (as the format: it hands out arrays in place).
 *
 * Use: in exactly one C or C++ file,
 *     #define KILN_IMPLEMENTATION
 *     #include "kiln.h"
 * and include it without the define elsewhere.
 *
 *     kiln_mesh mesh; kiln_error err;
 *     if (kiln_mesh_parse(bytes, size, &mesh, &err) != KILN_OK)
 *         fprintf(stderr, "offset %llu: %s\n", (unsigned long long)err.offset, err.message);
 *     // mesh.positions_f32[i * 3 + k], mesh.indices_u16 / indices_u32, mesh.bones[b].offset, ...
 *     if (kiln_verify_checksum(bytes, size) != KILN_OK) ...   // optional, one pass
 *
 *     // 1.1 morph targets: part p's are mesh.morph_targets[first .. first + n),
 *     uint32_t first, n = kiln_mesh_part_morph_targets(&mesh, p, &first);
 *     // a target's shapes are mesh.morph_shapes[t->first_shape ..+ t->shape_count], and a
 *     // shape's offsets (f32 or snorm16) come decoded one by one or into caller memory:
 *     kiln_mesh_morph_offset(&mesh, shape, j, &vertex, position, normal);
 *     kiln_mesh_morph_shape_decode(&mesh, shape, vertices, positions, normals);
 *     // 1.1 weight tracks of a clip: clip.weight_tracks[w], kiln_clip_weight(&clip, f, w).
 *
 * The bytes must stay alive and unchanged while the views are used, and must start at an
 * address that is a multiple of 4 (memory maps and malloc give at least 16).
 * kiln_mesh_parse checks everything docs/format.md lists in "What a reader checks", in time
 * proportional to sections + records + string bytes + indices (never the vertex streams).
 */
#ifndef KILN_H
#define KILN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_VERSION_MAJOR 1u
/* The newest minor version whose sections this reader knows (it reads every minor of 1). */
#define KILN_VERSION_MINOR 1u
#define KILN_NONE 0xFFFFFFFFu
/* kiln_morph_shape.flags bit: the shape's normal offsets are meaningful (else they are 0). */
#define KILN_SHAPE_HAS_NORMALS 1u

/* Section kinds. */
enum {
    KILN_STRINGS = 0x0001,
    KILN_BONES = 0x0101,
    KILN_PARTS = 0x0102,
    KILN_MATERIALS = 0x0103,
    KILN_TEXTURES = 0x0104,
    KILN_QUANTIZATION = 0x0105,
    KILN_POSITIONS_F32 = 0x0110,
    KILN_POSITIONS_UNORM16 = 0x0111,
    KILN_NORMALS_F32 = 0x0112,
    KILN_NORMALS_OCT16 = 0x0113,
    KILN_TANGENTS_F32 = 0x0114,
    KILN_TANGENTS_OCT16 = 0x0115,
    KILN_UVS_F32 = 0x0116,
    KILN_UVS_UNORM16 = 0x0117,
    KILN_JOINTS_U16 = 0x0118,
    KILN_WEIGHTS_F32 = 0x0119,
    KILN_WEIGHTS_UNORM8 = 0x011A,
    KILN_INDICES_U16 = 0x0120,
    KILN_INDICES_U32 = 0x0121,
    KILN_CLIP = 0x0201,
    KILN_TRACKS = 0x0202,
    KILN_FRAME_TIMES = 0x0203,
    KILN_KEYS = 0x0204,
    /* 1.1 */
    KILN_MORPH_TARGETS = 0x0130,
    KILN_MORPH_SHAPES = 0x0131,
    KILN_MORPH_VERTICES = 0x0132,
    KILN_MORPH_POSITIONS_F32 = 0x0133,
    KILN_MORPH_NORMALS_F32 = 0x0134,
    KILN_MORPH_POSITIONS_SNORM16 = 0x0135,
    KILN_MORPH_NORMALS_SNORM16 = 0x0136,
    KILN_WEIGHT_TRACKS = 0x0205,
    KILN_WEIGHTS = 0x0206
};

/* Error codes: one per check of docs/format.md. */
typedef enum {
    KILN_OK = 0,
    KILN_E_BUFFER_MISALIGNED,
    KILN_E_TRUNCATED,
    KILN_E_BAD_MAGIC,
    KILN_E_WRONG_FILE_TYPE,
    KILN_E_UNSUPPORTED_VERSION,
    KILN_E_FILE_SIZE,
    KILN_E_ELEMENT_SIZE,
    KILN_E_UNKNOWN_REQUIRED,
    KILN_E_COUNT_OVERFLOW,
    KILN_E_LENGTH,
    KILN_E_SECTION_MISALIGNED,
    KILN_E_SECTION_OVERLAP,
    KILN_E_SECTION_OUT_OF_BOUNDS,
    KILN_E_DUPLICATE_SECTION,
    KILN_E_MISSING_SECTION,
    KILN_E_INVALID_UTF8,
    KILN_E_STRING_OUT_OF_BOUNDS,
    KILN_E_COUNT_MISMATCH,
    KILN_E_BAD_QUANTIZATION,
    KILN_E_BONE_PARENT_RANGE,
    KILN_E_BONE_PARENT_CYCLE,
    KILN_E_BONE_PARENT_FORWARD,
    KILN_E_PART_BONE,
    KILN_E_REFERENCE,
    KILN_E_PART_RANGE,
    KILN_E_PARTS_INCOMPLETE,
    KILN_E_NOT_TRIANGLES,
    KILN_E_INDEX_OUT_OF_RANGE,
    KILN_E_CHECKSUM,
    KILN_E_BAD_MORPH /* 1.1: a morph target, shape or offset run breaks a rule */
} kiln_result;

typedef struct {
    kiln_result code;
    uint64_t offset;     /* byte offset of the field at fault */
    const char *message; /* static text */
} kiln_error;

typedef struct { uint32_t offset, length; } kiln_str;

typedef struct {
    int32_t parent; kiln_str name; uint32_t reserved;
    float bind[16];   /* root-space bind transform, row vectors, row-major */
    float offset[16]; /* offset (inverse bind) matrix */
} kiln_bone; /* 144 bytes */

typedef struct {
    kiln_str name, material_name;
    int32_t bone; uint32_t material;
    uint32_t first_vertex, vertex_count, first_index, index_count;
    uint32_t reserved[2];
} kiln_part; /* 48 bytes */

typedef struct {
    kiln_str name;
    uint32_t diffuse_texture, specular_texture, normal_texture, reserved[3];
    float ambient[4], diffuse[4], specular[4], emissive[4];
} kiln_material; /* 96 bytes */

typedef struct { kiln_str path; uint32_t reserved[2]; } kiln_texture; /* 16 bytes */

typedef struct {
    float position_min[4], position_extent[4], uv_min[2], uv_extent[2];
} kiln_quantization; /* 48 bytes */

typedef struct {
    kiln_str name; float duration, frame_rate; uint32_t frame_count, track_count, reserved[2];
} kiln_clip_record; /* 32 bytes */

typedef struct { kiln_str bone_name; uint32_t reserved[2]; } kiln_track; /* 16 bytes */

typedef struct { float scale[3], rotation[4], translation[3]; } kiln_key; /* 40 bytes */

/* 1.1: one morph target of a part. Targets are in part order; their shapes tile MORPH_SHAPES. */
typedef struct {
    kiln_str name; uint32_t part; float default_weight;
    uint32_t first_shape, shape_count, reserved[2];
} kiln_morph_target; /* 32 bytes */

/* 1.1: one shape of a target: offsets first_offset ..+ offset_count of the offset streams. */
typedef struct {
    kiln_str name; float full_weight;
    uint32_t first_offset, offset_count, flags; /* flags: KILN_SHAPE_HAS_NORMALS */
    float position_scale; /* with morph_positions_snorm16: what its codes decode against; else reserved (0) */
    float normal_scale;   /* with morph_normals_snorm16: likewise; else reserved (0) */
} kiln_morph_shape; /* 32 bytes */

/* 1.1: the morph target a clip's weight track drives (checked against a .mesh by its user). */
typedef struct { uint32_t part, target, reserved[2]; } kiln_weight_track; /* 16 bytes */

typedef struct {
    uint32_t kind, flags; uint64_t offset, length; uint32_t element_size, count;
} kiln_section;

typedef struct {
    const uint8_t *data; size_t size;
    uint16_t major, minor; uint32_t section_count;
    const char *strings; uint32_t strings_size;
    const kiln_bone *bones; uint32_t bone_count;
    const kiln_part *parts; uint32_t part_count;
    const kiln_material *materials; uint32_t material_count;
    const kiln_texture *textures; uint32_t texture_count;
    const kiln_quantization *quantization; /* NULL when absent */
    uint32_t vertex_count, index_count;
    /* Exactly one pointer of each attribute is set (the other is NULL). */
    const float *positions_f32; const uint16_t *positions_unorm16; /* 3 or 4 per vertex */
    const float *normals_f32; const int16_t *normals_oct16;        /* 3 or 2 */
    const float *tangents_f32; const int16_t *tangents_oct16;      /* 3 or 2 */
    const float *uvs_f32; const uint16_t *uvs_unorm16;             /* 2 */
    const uint16_t *joints;                                        /* 4 */
    const float *weights_f32; const uint8_t *weights_unorm8;       /* 4 */
    const uint16_t *indices_u16; const uint32_t *indices_u32;
    /* 1.1 morph targets: set when the file has the MORPH_* sections, else NULL and 0. A
     * shape's offsets are elements first_offset ..+ offset_count of morph_vertices (the vertex
     * moved, local to the target's part) and of one position and one normal stream (exactly
     * one pointer of each pair is set): f32 x, y, z, or snorm16 x, y, z, 0 decoding as
     * kiln_snorm16_decode(q, shape->position_scale / normal_scale). */
    const kiln_morph_target *morph_targets; uint32_t morph_target_count;
    const kiln_morph_shape *morph_shapes; uint32_t morph_shape_count;
    const uint32_t *morph_vertices; uint32_t morph_offset_count;
    const float *morph_positions_f32; const int16_t *morph_positions_snorm16; /* 3 or 4 per offset */
    const float *morph_normals_f32; const int16_t *morph_normals_snorm16;     /* 3 or 4 */
} kiln_mesh;

typedef struct {
    const uint8_t *data; size_t size;
    uint16_t major, minor; uint32_t section_count;
    const char *strings; uint32_t strings_size;
    const kiln_clip_record *clip;
    const kiln_track *tracks; uint32_t track_count;
    const float *frame_times; uint32_t frame_count;
    const kiln_key *keys; /* frame-major: keys[f * track_count + t] */
    /* 1.1 weight tracks: set when the file has WEIGHT_TRACKS and WEIGHTS, else NULL and 0. */
    const kiln_weight_track *weight_tracks; uint32_t weight_track_count;
    const float *weights; /* frame-major: weights[f * weight_track_count + w] */
} kiln_clip;

kiln_result kiln_mesh_parse(const void *data, size_t size, kiln_mesh *out, kiln_error *err);
kiln_result kiln_clip_parse(const void *data, size_t size, kiln_clip *out, kiln_error *err);
/* Section i of the table (i < section_count) of a parsed file. */
kiln_section kiln_section_at(const void *data, uint32_t i);
/* XXH3-64 (seed 0) and the check of the checksum at offset 8 over bytes 16..end. */
uint64_t kiln_xxh3_64(const void *data, size_t len);
kiln_result kiln_verify_checksum(const void *data, size_t size);
/* A string of the table (not NUL-terminated); *len receives its length. */
const char *kiln_string(const char *strings, kiln_str s, uint32_t *len);
/* Decoders of the compact encodings (docs/format.md, "Compact encodings"). */
float kiln_unorm16_decode(uint16_t q, float min, float extent);
void kiln_oct16_decode(const int16_t q[2], float out[3]);
/* Vertex i's attributes, whatever their encoding. */
void kiln_mesh_position(const kiln_mesh *m, uint32_t i, float out[3]);
void kiln_mesh_normal(const kiln_mesh *m, uint32_t i, float out[3]);
void kiln_mesh_tangent(const kiln_mesh *m, uint32_t i, float out[3]);
void kiln_mesh_uv(const kiln_mesh *m, uint32_t i, float out[2]);
void kiln_mesh_weights(const kiln_mesh *m, uint32_t i, float out[4]);
uint32_t kiln_mesh_index(const kiln_mesh *m, uint32_t i);
/* 1.1. The snorm16 decoder of morph offsets: scale * max(q / 32767, -1). */
float kiln_snorm16_decode(int16_t q, float scale);
/* Part `part`'s morph targets: returns their count, *first the index of the first (the
 * position where they would be when there are none). */
uint32_t kiln_mesh_part_morph_targets(const kiln_mesh *m, uint32_t part, uint32_t *first);
/* Offset j (< offset_count) of shape `shape` (< morph_shape_count), decoded: the vertex it
 * moves and its position and normal offsets (as stored: zeros unless KILN_SHAPE_HAS_NORMALS);
 * each out pointer may be NULL. Returns 0 (writing nothing) when shape or j is out of range. */
int kiln_mesh_morph_offset(const kiln_mesh *m, uint32_t shape, uint32_t j, uint32_t *vertex,
                           float position[3], float normal[3]);
/* All offsets of shape `shape`, decoded into caller memory: offset_count vertices, 3 *
 * offset_count position and normal floats (each pointer may be NULL). Returns the count
 * written (0 when shape is out of range). */
uint32_t kiln_mesh_morph_shape_decode(const kiln_mesh *m, uint32_t shape, uint32_t *vertices,
                                      float *positions, float *normals);
/* Weight track `track`'s weight at frame `frame`; 0 when either is out of range. */
float kiln_clip_weight(const kiln_clip *c, uint32_t frame, uint32_t track);

#ifdef __cplusplus
}
#endif

#endif /* KILN_H */

#ifdef KILN_IMPLEMENTATION
#ifndef KILN_IMPLEMENTED
#define KILN_IMPLEMENTED

#include <math.h>
#include <string.h>

static uint16_t kiln__u16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t kiln__u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t kiln__u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static kiln_result kiln__fail(kiln_error *err, kiln_result code, uint64_t offset, const char *msg) {
    if (err) { err->code = code; err->offset = offset; err->message = msg; }
    return code;
}

static uint32_t kiln__element_size(uint32_t kind) {
    switch (kind) {
    case KILN_STRINGS: return 1;
    case KILN_BONES: return 144;
    case KILN_PARTS: return 48;
    case KILN_MATERIALS: return 96;
    case KILN_TEXTURES: return 16;
    case KILN_QUANTIZATION: return 48;
    case KILN_POSITIONS_F32: case KILN_NORMALS_F32: case KILN_TANGENTS_F32: return 12;
    case KILN_POSITIONS_UNORM16: case KILN_UVS_F32: case KILN_JOINTS_U16: return 8;
    case KILN_NORMALS_OCT16: case KILN_TANGENTS_OCT16: case KILN_UVS_UNORM16:
    case KILN_WEIGHTS_UNORM8: case KILN_INDICES_U32: case KILN_FRAME_TIMES: return 4;
    case KILN_WEIGHTS_F32: return 16;
    case KILN_INDICES_U16: return 2;
    case KILN_CLIP: return 32;
    case KILN_TRACKS: return 16;
    case KILN_KEYS: return 40;
    case KILN_MORPH_TARGETS: case KILN_MORPH_SHAPES: return 32;
    case KILN_MORPH_VERTICES: case KILN_WEIGHTS: return 4;
    case KILN_MORPH_POSITIONS_F32: case KILN_MORPH_NORMALS_F32: return 12;
    case KILN_MORPH_POSITIONS_SNORM16: case KILN_MORPH_NORMALS_SNORM16: return 8;
    case KILN_WEIGHT_TRACKS: return 16;
    default: return 0;
    }
}

kiln_section kiln_section_at(const void *data, uint32_t i) {
    const uint8_t *e = (const uint8_t *)data + 32 + 32 * (size_t)i;
    kiln_section s;
    s.kind = kiln__u32(e); s.flags = kiln__u32(e + 4);
    s.offset = kiln__u64(e + 8); s.length = kiln__u64(e + 16);
    s.element_size = kiln__u32(e + 24); s.count = kiln__u32(e + 28);
    return s;
}

/* A found known section: where its entry is, and the section. */
typedef struct { int present; uint32_t kind; uint64_t entry; kiln_section s; } kiln__slot;

/* Header and table checks; calls `take` for every known kind. */
typedef kiln_result (*kiln__take_fn)(void *ctx, uint32_t kind, uint64_t entry, kiln_section s, kiln_error *err);

static kiln_result kiln__frame(const uint8_t *d, size_t size, const char *magic, const char *other,
                               uint16_t *major, uint16_t *minor, uint32_t *count,
                               kiln__take_fn take, void *ctx, kiln_error *err) {
    uint64_t table_end, prev_end, i;
    if (((uintptr_t)d & 3u) != 0) return kiln__fail(err, KILN_E_BUFFER_MISALIGNED, 0, "buffer not 4-byte aligned");
    if (size >= 8 && memcmp(d, magic, 8) != 0) {
        if (memcmp(d, other, 8) == 0) return kiln__fail(err, KILN_E_WRONG_FILE_TYPE, 0, "the other kiln file type");
        return kiln__fail(err, KILN_E_BAD_MAGIC, 0, "bad magic");
    }
    if (size < 32) return kiln__fail(err, KILN_E_TRUNCATED, 0, "shorter than the header");
    *major = kiln__u16(d + 16); *minor = kiln__u16(d + 18);
    if (*major != KILN_VERSION_MAJOR) return kiln__fail(err, KILN_E_UNSUPPORTED_VERSION, 16, "unsupported major version");
    *count = kiln__u32(d + 20);
    if (kiln__u64(d + 24) != (uint64_t)size) return kiln__fail(err, KILN_E_FILE_SIZE, 24, "file size field differs from the length");
    table_end = 32u + 32u * (uint64_t)*count;
    if (table_end > size) return kiln__fail(err, KILN_E_TRUNCATED, 32, "section table past the end");
    prev_end = table_end;
    for (i = 0; i < *count; i++) {
        uint64_t e = 32 + 32 * i, product;
        kiln_section s = kiln_section_at(d, (uint32_t)i);
        uint32_t known = kiln__element_size(s.kind);
        if (known && known != s.element_size) return kiln__fail(err, KILN_E_ELEMENT_SIZE, e + 24, "wrong element size");
        if (!known && (s.kind & 0x80000000u)) return kiln__fail(err, KILN_E_UNKNOWN_REQUIRED, e, "unknown required section");
        product = (uint64_t)s.count * (uint64_t)s.element_size;
        if (product > size) return kiln__fail(err, KILN_E_COUNT_OVERFLOW, e + 28, "count overflows the file");
        if (product != s.length) return kiln__fail(err, KILN_E_LENGTH, e + 16, "length is not count x element size");
        if (s.offset % 16 != 0) return kiln__fail(err, KILN_E_SECTION_MISALIGNED, e + 8, "section not 16-byte aligned");
        if (s.offset < prev_end) return kiln__fail(err, KILN_E_SECTION_OVERLAP, e + 8, "section overlaps");
        if (s.offset > size || s.length > size - s.offset) return kiln__fail(err, KILN_E_SECTION_OUT_OF_BOUNDS, e + 8, "section past the end");
        prev_end = s.offset + s.length;
        if (known) {
            kiln_result r = take(ctx, s.kind, e, s, err);
            if (r != KILN_OK) return r;
        }
    }
    return KILN_OK;
}

static kiln_result kiln__put(kiln__slot *slot, uint32_t kind, uint64_t entry, kiln_section s, kiln_error *err) {
    if (slot->present) return kiln__fail(err, KILN_E_DUPLICATE_SECTION, entry, "duplicate section");
    slot->present = 1; slot->kind = kind; slot->entry = entry; slot->s = s;
    return KILN_OK;
}

/* UTF-8 as Rust's str::from_utf8 accepts it; returns the offset of the first bad byte or len. */
static size_t kiln__utf8_valid_up_to(const uint8_t *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        uint8_t c = s[i];
        size_t n; uint32_t cp;
        if (c < 0x80) { i++; continue; }
        else if ((c & 0xE0) == 0xC0) { n = 2; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { n = 3; cp = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { n = 4; cp = c & 0x07; }
        else return i;
        if (len - i < n) return i;
        {
            size_t k;
            for (k = 1; k < n; k++) {
                if ((s[i + k] & 0xC0) != 0x80) return i;
                cp = (cp << 6) | (s[i + k] & 0x3F);
            }
        }
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return i;
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += n;
    }
    return len;
}

static int kiln__boundary(const char *s, uint32_t len, uint32_t at) {
    return at == len || (at < len && (((uint8_t)s[at]) & 0xC0) != 0x80);
}

static kiln_result kiln__check_str(const char *strings, uint32_t strings_size, uint64_t table, kiln_str r,
                                   uint64_t field, kiln_error *err) {
    uint64_t end = (uint64_t)r.offset + r.length;
    if (end > strings_size) return kiln__fail(err, KILN_E_STRING_OUT_OF_BOUNDS, field, "string past the table");
    if (!kiln__boundary(strings, strings_size, r.offset)) return kiln__fail(err, KILN_E_INVALID_UTF8, table + r.offset, "string cuts a character");
    if (!kiln__boundary(strings, strings_size, (uint32_t)end)) return kiln__fail(err, KILN_E_INVALID_UTF8, table + end, "string cuts a character");
    return KILN_OK;
}

static kiln_result kiln__strings(const uint8_t *d, kiln__slot *sl, const char **out, uint32_t *size, kiln_error *err) {
    size_t ok;
    *out = (const char *)(d + sl->s.offset);
    *size = sl->s.count;
    ok = kiln__utf8_valid_up_to((const uint8_t *)*out, *size);
    if (ok != *size) return kiln__fail(err, KILN_E_INVALID_UTF8, sl->s.offset + ok, "string table is not UTF-8");
    return KILN_OK;
}

typedef struct {
    kiln__slot strings, bones, parts, materials, textures, quantization;
    kiln__slot positions, normals, tangents, uvs, joints, weights, indices;
    kiln__slot morph_targets, morph_shapes, morph_vertices, morph_positions, morph_normals;
} kiln__mesh_slots;

static kiln_result kiln__mesh_take(void *ctx, uint32_t kind, uint64_t entry, kiln_section s, kiln_error *err) {
    kiln__mesh_slots *m = (kiln__mesh_slots *)ctx;
    kiln__slot *slot;
    switch (kind) {
    case KILN_STRINGS: slot = &m->strings; break;
    case KILN_BONES: slot = &m->bones; break;
    case KILN_PARTS: slot = &m->parts; break;
    case KILN_MATERIALS: slot = &m->materials; break;
    case KILN_TEXTURES: slot = &m->textures; break;
    case KILN_QUANTIZATION: slot = &m->quantization; break;
    case KILN_POSITIONS_F32: case KILN_POSITIONS_UNORM16: slot = &m->positions; break;
    case KILN_NORMALS_F32: case KILN_NORMALS_OCT16: slot = &m->normals; break;
    case KILN_TANGENTS_F32: case KILN_TANGENTS_OCT16: slot = &m->tangents; break;
    case KILN_UVS_F32: case KILN_UVS_UNORM16: slot = &m->uvs; break;
    case KILN_JOINTS_U16: slot = &m->joints; break;
    case KILN_WEIGHTS_F32: case KILN_WEIGHTS_UNORM8: slot = &m->weights; break;
    case KILN_INDICES_U16: case KILN_INDICES_U32: slot = &m->indices; break;
    case KILN_MORPH_TARGETS: slot = &m->morph_targets; break;
    case KILN_MORPH_SHAPES: slot = &m->morph_shapes; break;
    case KILN_MORPH_VERTICES: slot = &m->morph_vertices; break;
    case KILN_MORPH_POSITIONS_F32: case KILN_MORPH_POSITIONS_SNORM16: slot = &m->morph_positions; break;
    case KILN_MORPH_NORMALS_F32: case KILN_MORPH_NORMALS_SNORM16: slot = &m->morph_normals; break;
    default: return KILN_OK; /* a .clip kind: skipped */
    }
    return kiln__put(slot, kind, entry, s, err);
}

static kiln_result kiln__bone_parent(const kiln_bone *bones, uint32_t n, uint32_t i, uint64_t at, kiln_error *err) {
    int32_t p = bones[i].parent;
    int64_t cur;
    uint32_t steps;
    if (p == -1 || (p >= 0 && (uint32_t)p < i)) return KILN_OK;
    if (p < -1 || (uint32_t)p >= n) return kiln__fail(err, KILN_E_BONE_PARENT_RANGE, at, "bone parent out of range");
    cur = p;
    for (steps = 0; steps <= n; steps++) {
        if (cur == (int64_t)i) return kiln__fail(err, KILN_E_BONE_PARENT_CYCLE, at, "bone parents form a cycle");
        if (cur < 0 || cur >= (int64_t)n) break;
        cur = bones[cur].parent;
    }
    return kiln__fail(err, KILN_E_BONE_PARENT_FORWARD, at, "bone parent comes after the bone");
}

/* 1.1 morph sections, after everything else (as docs/format.md orders the checks): all five or
 * none; the offset streams have the MORPH_VERTICES count; targets in part order, their shapes
 * and the shapes' offsets tiling in order; full weights finite, non-zero and ascending per
 * target; each shape's vertices ascending and inside its part; snorm16 scales finite, >= 0.
 * Reads records and MORPH_VERTICES only, each element inside its checked section. */
static kiln_result kiln__morphs(const uint8_t *d, const kiln__mesh_slots *sl, uint64_t table,
                                kiln_mesh *out, kiln_error *err) {
    const kiln__slot *s[5];
    const kiln_morph_target *targets;
    const kiln_morph_shape *shapes;
    const uint32_t *mv;
    uint64_t offsets, next_shape = 0, next_offset = 0;
    uint32_t i, last_part = 0;
    int any = 0, pos_scaled, nor_scaled;
    kiln_result r;
    s[0] = &sl->morph_targets; s[1] = &sl->morph_shapes; s[2] = &sl->morph_vertices;
    s[3] = &sl->morph_positions; s[4] = &sl->morph_normals;
    for (i = 0; i < 5; i++) any |= s[i]->present;
    if (!any) return KILN_OK;
    for (i = 0; i < 5; i++)
        if (!s[i]->present) return kiln__fail(err, KILN_E_MISSING_SECTION, 32, "a morph section is missing (all five or none)");
    offsets = sl->morph_vertices.s.count;
    if (sl->morph_positions.s.count != offsets) return kiln__fail(err, KILN_E_COUNT_MISMATCH, sl->morph_positions.entry + 28, "morph position count differs from MORPH_VERTICES");
    if (sl->morph_normals.s.count != offsets) return kiln__fail(err, KILN_E_COUNT_MISMATCH, sl->morph_normals.entry + 28, "morph normal count differs from MORPH_VERTICES");
    targets = (const kiln_morph_target *)(d + sl->morph_targets.s.offset);
    shapes = (const kiln_morph_shape *)(d + sl->morph_shapes.s.offset);
    mv = (const uint32_t *)(d + sl->morph_vertices.s.offset);
    pos_scaled = sl->morph_positions.kind == KILN_MORPH_POSITIONS_SNORM16;
    nor_scaled = sl->morph_normals.kind == KILN_MORPH_NORMALS_SNORM16;
    for (i = 0; i < sl->morph_targets.s.count; i++) {
        const kiln_morph_target *t = &targets[i];
        uint64_t at = sl->morph_targets.s.offset + 32 * (uint64_t)i;
        uint64_t end = (uint64_t)t->first_shape + t->shape_count, k;
        float previous = -INFINITY;
        const kiln_part *part;
        r = kiln__check_str(out->strings, out->strings_size, table, t->name, at, err);
        if (r != KILN_OK) return r;
        if (t->part >= out->part_count) return kiln__fail(err, KILN_E_BAD_MORPH, at + 8, "target's part out of range");
        if (t->part < last_part) return kiln__fail(err, KILN_E_BAD_MORPH, at + 8, "targets not in part order");
        last_part = t->part;
        part = &out->parts[t->part];
        if (t->first_shape != next_shape || t->shape_count == 0 || end > sl->morph_shapes.s.count)
            return kiln__fail(err, KILN_E_BAD_MORPH, at + 16, "target's shapes do not follow the previous target's");
        next_shape = end;
        for (k = t->first_shape; k < end; k++) {
            const kiln_morph_shape *sh = &shapes[k];
            uint64_t sat = sl->morph_shapes.s.offset + 32 * k;
            uint64_t o_end = (uint64_t)sh->first_offset + sh->offset_count, j;
            float w = sh->full_weight;
            r = kiln__check_str(out->strings, out->strings_size, table, sh->name, sat, err);
            if (r != KILN_OK) return r;
            if (!isfinite(w) || w == 0.0f || w <= previous) return kiln__fail(err, KILN_E_BAD_MORPH, sat + 8, "full weight not finite, non-zero and ascending");
            previous = w;
            if (sh->first_offset != next_offset || o_end > offsets) return kiln__fail(err, KILN_E_BAD_MORPH, sat + 12, "shape's offsets do not follow the previous shape's");
            next_offset = o_end;
            for (j = sh->first_offset; j < o_end; j++)
                if (mv[j] >= part->vertex_count || (j > sh->first_offset && mv[j] <= mv[j - 1]))
                    return kiln__fail(err, KILN_E_BAD_MORPH, sl->morph_vertices.s.offset + 4 * (uint64_t)sh->first_offset, "shape's vertices not ascending or past its part");
            if (pos_scaled && !(isfinite(sh->position_scale) && sh->position_scale >= 0.0f))
                return kiln__fail(err, KILN_E_BAD_MORPH, sat + 24, "position offset scale not finite and >= 0");
            if (nor_scaled && !(isfinite(sh->normal_scale) && sh->normal_scale >= 0.0f))
                return kiln__fail(err, KILN_E_BAD_MORPH, sat + 28, "normal offset scale not finite and >= 0");
        }
    }
    if (next_shape != sl->morph_shapes.s.count) return kiln__fail(err, KILN_E_BAD_MORPH, sl->morph_shapes.entry, "shapes no target uses");
    if (next_offset != offsets) return kiln__fail(err, KILN_E_BAD_MORPH, sl->morph_vertices.entry, "offsets no shape uses");
    out->morph_targets = targets; out->morph_target_count = sl->morph_targets.s.count;
    out->morph_shapes = shapes; out->morph_shape_count = sl->morph_shapes.s.count;
    out->morph_vertices = mv; out->morph_offset_count = sl->morph_vertices.s.count;
    if (pos_scaled) out->morph_positions_snorm16 = (const int16_t *)(d + sl->morph_positions.s.offset);
    else out->morph_positions_f32 = (const float *)(d + sl->morph_positions.s.offset);
    if (nor_scaled) out->morph_normals_snorm16 = (const int16_t *)(d + sl->morph_normals.s.offset);
    else out->morph_normals_f32 = (const float *)(d + sl->morph_normals.s.offset);
    return KILN_OK;
}

kiln_result kiln_mesh_parse(const void *data, size_t size, kiln_mesh *out, kiln_error *err) {
    const uint8_t *d = (const uint8_t *)data;
    kiln__mesh_slots sl;
    kiln_result r;
    uint32_t i, vcount;
    uint64_t next_v = 0, next_i = 0, table;
    kiln__slot *need[12];
    memset(&sl, 0, sizeof sl);
    memset(out, 0, sizeof *out);
    if (err) { err->code = KILN_OK; err->offset = 0; err->message = "ok"; }
    r = kiln__frame(d, size, "KILNMESH", "KILNCLIP", &out->major, &out->minor, &out->section_count,
                    kiln__mesh_take, &sl, err);
    if (r != KILN_OK) return r;
    need[0] = &sl.strings; need[1] = &sl.bones; need[2] = &sl.parts; need[3] = &sl.materials;
    need[4] = &sl.textures; need[5] = &sl.positions; need[6] = &sl.normals; need[7] = &sl.tangents;
    need[8] = &sl.uvs; need[9] = &sl.joints; need[10] = &sl.weights; need[11] = &sl.indices;
    for (i = 0; i < 12; i++)
        if (!need[i]->present) return kiln__fail(err, KILN_E_MISSING_SECTION, 32, "a required section is missing");
    out->data = d; out->size = size;
    r = kiln__strings(d, &sl.strings, &out->strings, &out->strings_size, err);
    if (r != KILN_OK) return r;
    table = sl.strings.s.offset;

    vcount = sl.positions.s.count;
    {
        kiln__slot *streams[5];
        streams[0] = &sl.normals; streams[1] = &sl.tangents; streams[2] = &sl.uvs; streams[3] = &sl.joints; streams[4] = &sl.weights;
        for (i = 0; i < 5; i++)
            if (streams[i]->s.count != vcount) return kiln__fail(err, KILN_E_COUNT_MISMATCH, streams[i]->entry + 28, "stream count differs from the vertex count");
    }
    if (sl.quantization.present) {
        const float *q = (const float *)(d + sl.quantization.s.offset);
        if (sl.quantization.s.count != 1) return kiln__fail(err, KILN_E_COUNT_MISMATCH, sl.quantization.entry + 28, "QUANTIZATION must hold one record");
        for (i = 0; i < 12; i++) {
            int is_extent = (i >= 4 && i <= 7) || i >= 10;
            if (!isfinite(q[i]) || (is_extent && q[i] < 0.0f))
                return kiln__fail(err, KILN_E_BAD_QUANTIZATION, sl.quantization.s.offset + 4 * i, "bad quantisation bound");
        }
        out->quantization = (const kiln_quantization *)q;
    } else if (sl.positions.kind == KILN_POSITIONS_UNORM16 || sl.uvs.kind == KILN_UVS_UNORM16) {
        return kiln__fail(err, KILN_E_MISSING_SECTION, 32, "QUANTIZATION missing");
    }
    out->vertex_count = vcount;
#define KILN__AT(slot, type) ((const type *)(d + (slot).s.offset))
    if (sl.positions.kind == KILN_POSITIONS_F32) out->positions_f32 = KILN__AT(sl.positions, float); else out->positions_unorm16 = KILN__AT(sl.positions, uint16_t);
    if (sl.normals.kind == KILN_NORMALS_F32) out->normals_f32 = KILN__AT(sl.normals, float); else out->normals_oct16 = KILN__AT(sl.normals, int16_t);
    if (sl.tangents.kind == KILN_TANGENTS_F32) out->tangents_f32 = KILN__AT(sl.tangents, float); else out->tangents_oct16 = KILN__AT(sl.tangents, int16_t);
    if (sl.uvs.kind == KILN_UVS_F32) out->uvs_f32 = KILN__AT(sl.uvs, float); else out->uvs_unorm16 = KILN__AT(sl.uvs, uint16_t);
    out->joints = KILN__AT(sl.joints, uint16_t);
    if (sl.weights.kind == KILN_WEIGHTS_F32) out->weights_f32 = KILN__AT(sl.weights, float); else out->weights_unorm8 = KILN__AT(sl.weights, uint8_t);
    out->index_count = sl.indices.s.count;
    if (sl.indices.kind == KILN_INDICES_U16) out->indices_u16 = KILN__AT(sl.indices, uint16_t); else out->indices_u32 = KILN__AT(sl.indices, uint32_t);

    out->bones = KILN__AT(sl.bones, kiln_bone); out->bone_count = sl.bones.s.count;
    for (i = 0; i < out->bone_count; i++) {
        uint64_t at = sl.bones.s.offset + 144 * (uint64_t)i;
        r = kiln__check_str(out->strings, out->strings_size, table, out->bones[i].name, at + 4, err);
        if (r != KILN_OK) return r;
        r = kiln__bone_parent(out->bones, out->bone_count, i, at, err);
        if (r != KILN_OK) return r;
    }
    out->textures = KILN__AT(sl.textures, kiln_texture); out->texture_count = sl.textures.s.count;
    for (i = 0; i < out->texture_count; i++) {
        r = kiln__check_str(out->strings, out->strings_size, table, out->textures[i].path, sl.textures.s.offset + 16 * (uint64_t)i, err);
        if (r != KILN_OK) return r;
    }
    out->materials = KILN__AT(sl.materials, kiln_material); out->material_count = sl.materials.s.count;
    for (i = 0; i < out->material_count; i++) {
        const kiln_material *m = &out->materials[i];
        uint64_t at = sl.materials.s.offset + 96 * (uint64_t)i;
        uint32_t t[3], k;
        r = kiln__check_str(out->strings, out->strings_size, table, m->name, at, err);
        if (r != KILN_OK) return r;
        t[0] = m->diffuse_texture; t[1] = m->specular_texture; t[2] = m->normal_texture;
        for (k = 0; k < 3; k++)
            if (t[k] != KILN_NONE && t[k] >= out->texture_count) return kiln__fail(err, KILN_E_REFERENCE, at + 8 + 4 * k, "texture index out of range");
    }
    out->parts = KILN__AT(sl.parts, kiln_part); out->part_count = sl.parts.s.count;
    for (i = 0; i < out->part_count; i++) {
        const kiln_part *p = &out->parts[i];
        uint64_t at = sl.parts.s.offset + 48 * (uint64_t)i, v_end, i_end, k;
        r = kiln__check_str(out->strings, out->strings_size, table, p->name, at, err);
        if (r != KILN_OK) return r;
        r = kiln__check_str(out->strings, out->strings_size, table, p->material_name, at + 8, err);
        if (r != KILN_OK) return r;
        if (p->bone < -1 || (p->bone >= 0 && (uint32_t)p->bone >= out->bone_count)) return kiln__fail(err, KILN_E_PART_BONE, at + 16, "part bone out of range");
        if (p->material != KILN_NONE && p->material >= out->material_count) return kiln__fail(err, KILN_E_REFERENCE, at + 20, "material index out of range");
        v_end = (uint64_t)p->first_vertex + p->vertex_count;
        if (p->first_vertex != next_v || v_end > vcount) return kiln__fail(err, KILN_E_PART_RANGE, at + 24, "part vertex range");
        i_end = (uint64_t)p->first_index + p->index_count;
        if (p->first_index != next_i || i_end > out->index_count) return kiln__fail(err, KILN_E_PART_RANGE, at + 32, "part index range");
        if (p->index_count % 3 != 0) return kiln__fail(err, KILN_E_NOT_TRIANGLES, at + 36, "index count not a multiple of 3");
        for (k = p->first_index; k < i_end; k++) {
            uint32_t idx = out->indices_u16 ? out->indices_u16[k] : out->indices_u32[k];
            if (idx >= p->vertex_count)
                return kiln__fail(err, KILN_E_INDEX_OUT_OF_RANGE, sl.indices.s.offset + k * (out->indices_u16 ? 2u : 4u), "index past the part's vertices");
        }
        next_v = v_end; next_i = i_end;
    }
    if (next_v != vcount) return kiln__fail(err, KILN_E_PARTS_INCOMPLETE, sl.parts.entry, "parts do not cover the vertices");
    if (next_i != out->index_count) return kiln__fail(err, KILN_E_PARTS_INCOMPLETE, sl.parts.entry, "parts do not cover the indices");
    return kiln__morphs(d, &sl, table, out, err);
}

typedef struct { kiln__slot strings, clip, tracks, times, keys, weight_tracks, weights; } kiln__clip_slots;

static kiln_result kiln__clip_take(void *ctx, uint32_t kind, uint64_t entry, kiln_section s, kiln_error *err) {
    kiln__clip_slots *c = (kiln__clip_slots *)ctx;
    switch (kind) {
    case KILN_STRINGS: return kiln__put(&c->strings, kind, entry, s, err);
    case KILN_CLIP: return kiln__put(&c->clip, kind, entry, s, err);
    case KILN_TRACKS: return kiln__put(&c->tracks, kind, entry, s, err);
    case KILN_FRAME_TIMES: return kiln__put(&c->times, kind, entry, s, err);
    case KILN_KEYS: return kiln__put(&c->keys, kind, entry, s, err);
    case KILN_WEIGHT_TRACKS: return kiln__put(&c->weight_tracks, kind, entry, s, err);
    case KILN_WEIGHTS: return kiln__put(&c->weights, kind, entry, s, err);
    default: return KILN_OK;
    }
}

kiln_result kiln_clip_parse(const void *data, size_t size, kiln_clip *out, kiln_error *err) {
    const uint8_t *d = (const uint8_t *)data;
    kiln__clip_slots sl;
    kiln_result r;
    uint32_t i;
    uint64_t table;
    memset(&sl, 0, sizeof sl);
    memset(out, 0, sizeof *out);
    if (err) { err->code = KILN_OK; err->offset = 0; err->message = "ok"; }
    r = kiln__frame(d, size, "KILNCLIP", "KILNMESH", &out->major, &out->minor, &out->section_count,
                    kiln__clip_take, &sl, err);
    if (r != KILN_OK) return r;
    if (!sl.strings.present || !sl.clip.present || !sl.tracks.present || !sl.times.present || !sl.keys.present)
        return kiln__fail(err, KILN_E_MISSING_SECTION, 32, "a required section is missing");
    out->data = d; out->size = size;
    r = kiln__strings(d, &sl.strings, &out->strings, &out->strings_size, err);
    if (r != KILN_OK) return r;
    table = sl.strings.s.offset;
    if (sl.clip.s.count != 1) return kiln__fail(err, KILN_E_COUNT_MISMATCH, sl.clip.entry + 28, "CLIP must hold one record");
    out->clip = (const kiln_clip_record *)(d + sl.clip.s.offset);
    r = kiln__check_str(out->strings, out->strings_size, table, out->clip->name, sl.clip.s.offset, err);
    if (r != KILN_OK) return r;
    if (sl.tracks.s.count != out->clip->track_count) return kiln__fail(err, KILN_E_COUNT_MISMATCH, sl.tracks.entry + 28, "track count");
    if (sl.times.s.count != out->clip->frame_count) return kiln__fail(err, KILN_E_COUNT_MISMATCH, sl.times.entry + 28, "frame count");
    if ((uint64_t)sl.keys.s.count != (uint64_t)out->clip->frame_count * out->clip->track_count)
        return kiln__fail(err, KILN_E_COUNT_MISMATCH, sl.keys.entry + 28, "key count is not frames x tracks");
    out->tracks = (const kiln_track *)(d + sl.tracks.s.offset); out->track_count = sl.tracks.s.count;
    for (i = 0; i < out->track_count; i++) {
        r = kiln__check_str(out->strings, out->strings_size, table, out->tracks[i].bone_name, sl.tracks.s.offset + 16 * (uint64_t)i, err);
        if (r != KILN_OK) return r;
    }
    /* 1.1 weight tracks: both sections or neither; F weights per track, frame-major. */
    if (sl.weight_tracks.present && sl.weights.present) {
        if ((uint64_t)sl.weights.s.count != (uint64_t)out->clip->frame_count * sl.weight_tracks.s.count)
            return kiln__fail(err, KILN_E_COUNT_MISMATCH, sl.weights.entry + 28, "weight count is not frames x weight tracks");
        out->weight_tracks = (const kiln_weight_track *)(d + sl.weight_tracks.s.offset);
        out->weight_track_count = sl.weight_tracks.s.count;
        out->weights = (const float *)(d + sl.weights.s.offset);
    } else if (sl.weights.present) {
        return kiln__fail(err, KILN_E_MISSING_SECTION, 32, "WEIGHTS without WEIGHT_TRACKS");
    } else if (sl.weight_tracks.present) {
        return kiln__fail(err, KILN_E_MISSING_SECTION, 32, "WEIGHT_TRACKS without WEIGHTS");
    }
    out->frame_times = (const float *)(d + sl.times.s.offset); out->frame_count = sl.times.s.count;
    out->keys = (const kiln_key *)(d + sl.keys.s.offset);
    return KILN_OK;
}

/* ---- XXH3-64, seed 0, scalar (after the XXH3 specification) ---- */

static const uint8_t kiln__secret[192] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

#define KILN__P32_1 0x9E3779B1u
#define KILN__P32_2 0x85EBCA77u
#define KILN__P32_3 0xC2B2AE3Du
#define KILN__P64_1 0x9E3779B185EBCA87ull
#define KILN__P64_2 0xC2B2AE3D27D4EB4Full
#define KILN__P64_3 0x165667B19E3779F9ull
#define KILN__P64_4 0x85EBCA77C2B2AE63ull
#define KILN__P64_5 0x27D4EB2F165667C5ull

static uint64_t kiln__mul128_fold64(uint64_t a, uint64_t b) {
    /* 64x64 -> 128 with 32-bit halves (portable C99). */
    uint64_t lo_lo = (a & 0xFFFFFFFFu) * (b & 0xFFFFFFFFu);
    uint64_t hi_lo = (a >> 32) * (b & 0xFFFFFFFFu);
    uint64_t lo_hi = (a & 0xFFFFFFFFu) * (b >> 32);
    uint64_t hi_hi = (a >> 32) * (b >> 32);
    uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;
    uint64_t upper = (hi_lo >> 32) + (cross >> 32) + hi_hi;
    uint64_t lower = (cross << 32) | (lo_lo & 0xFFFFFFFFu);
    return lower ^ upper;
}

static uint64_t kiln__xxh64_avalanche(uint64_t h) {
    h ^= h >> 33; h *= KILN__P64_2; h ^= h >> 29; h *= KILN__P64_3; h ^= h >> 32;
    return h;
}

static uint64_t kiln__xxh3_avalanche(uint64_t h) {
    h ^= h >> 37; h *= 0x165667919E3779F9ull; h ^= h >> 32;
    return h;
}

static uint64_t kiln__rrmxmx(uint64_t h, uint64_t len) {
    h ^= ((h << 49) | (h >> 15)) ^ ((h << 24) | (h >> 40));
    h *= 0x9FB21C651E98DF25ull;
    h ^= (h >> 35) + len;
    h *= 0x9FB21C651E98DF25ull;
    return h ^ (h >> 28);
}

static uint64_t kiln__mix16(const uint8_t *in, const uint8_t *sec) {
    return kiln__mul128_fold64(kiln__u64(in) ^ kiln__u64(sec), kiln__u64(in + 8) ^ kiln__u64(sec + 8));
}

static uint64_t kiln__swap64(uint64_t x) {
    x = ((x & 0x00000000FFFFFFFFull) << 32) | ((x & 0xFFFFFFFF00000000ull) >> 32);
    x = ((x & 0x0000FFFF0000FFFFull) << 16) | ((x & 0xFFFF0000FFFF0000ull) >> 16);
    x = ((x & 0x00FF00FF00FF00FFull) << 8) | ((x & 0xFF00FF00FF00FF00ull) >> 8);
    return x;
}

static void kiln__accumulate_512(uint64_t acc[8], const uint8_t *in, const uint8_t *sec) {
    int i;
    for (i = 0; i < 8; i++) {
        uint64_t v = kiln__u64(in + 8 * i);
        uint64_t k = v ^ kiln__u64(sec + 8 * i);
        acc[i ^ 1] += v;
        acc[i] += (k & 0xFFFFFFFFu) * (k >> 32);
    }
}

static void kiln__scramble(uint64_t acc[8], const uint8_t *sec) {
    int i;
    for (i = 0; i < 8; i++) {
        uint64_t a = acc[i];
        a ^= a >> 47;
        a ^= kiln__u64(sec + 8 * i);
        acc[i] = a * KILN__P32_1;
    }
}

static uint64_t kiln__xxh3_long(const uint8_t *in, size_t len) {
    uint64_t acc[8] = {KILN__P32_3, KILN__P64_1, KILN__P64_2, KILN__P64_3, KILN__P64_4, KILN__P32_2, KILN__P64_5, KILN__P32_1};
    const size_t stripes_per_block = (192 - 64) / 8; /* 16 */
    const size_t block_len = 64 * stripes_per_block;
    size_t nb_blocks = (len - 1) / block_len, b, s, nb_stripes;
    uint64_t result;
    for (b = 0; b < nb_blocks; b++) {
        for (s = 0; s < stripes_per_block; s++) kiln__accumulate_512(acc, in + b * block_len + s * 64, kiln__secret + s * 8);
        kiln__scramble(acc, kiln__secret + 192 - 64);
    }
    nb_stripes = ((len - 1) - block_len * nb_blocks) / 64;
    for (s = 0; s < nb_stripes; s++) kiln__accumulate_512(acc, in + nb_blocks * block_len + s * 64, kiln__secret + s * 8);
    kiln__accumulate_512(acc, in + len - 64, kiln__secret + 192 - 64 - 7);
    result = (uint64_t)len * KILN__P64_1;
    for (s = 0; s < 4; s++)
        result += kiln__mul128_fold64(acc[2 * s] ^ kiln__u64(kiln__secret + 11 + 16 * s), acc[2 * s + 1] ^ kiln__u64(kiln__secret + 11 + 16 * s + 8));
    return kiln__xxh3_avalanche(result);
}

uint64_t kiln_xxh3_64(const void *data, size_t len) {
    const uint8_t *in = (const uint8_t *)data;
    const uint8_t *sec = kiln__secret;
    if (len == 0) return kiln__xxh64_avalanche(kiln__u64(sec + 56) ^ kiln__u64(sec + 64));
    if (len <= 3) {
        uint32_t combo = ((uint32_t)in[0] << 16) | ((uint32_t)in[len >> 1] << 24) | (uint32_t)in[len - 1] | ((uint32_t)len << 8);
        uint64_t flip = (uint64_t)(kiln__u32(sec) ^ kiln__u32(sec + 4));
        return kiln__xxh64_avalanche((uint64_t)combo ^ flip);
    }
    if (len <= 8) {
        uint32_t in1 = kiln__u32(in), in2 = kiln__u32(in + len - 4);
        uint64_t flip = kiln__u64(sec + 8) ^ kiln__u64(sec + 16);
        uint64_t in64 = (uint64_t)in2 + ((uint64_t)in1 << 32);
        return kiln__rrmxmx(in64 ^ flip, len);
    }
    if (len <= 16) {
        uint64_t flip1 = kiln__u64(sec + 24) ^ kiln__u64(sec + 32);
        uint64_t flip2 = kiln__u64(sec + 40) ^ kiln__u64(sec + 48);
        uint64_t lo = kiln__u64(in) ^ flip1, hi = kiln__u64(in + len - 8) ^ flip2;
        uint64_t acc = (uint64_t)len + kiln__swap64(lo) + hi + kiln__mul128_fold64(lo, hi);
        return kiln__xxh3_avalanche(acc);
    }
    if (len <= 128) {
        uint64_t acc = (uint64_t)len * KILN__P64_1;
        if (len > 32) {
            if (len > 64) {
                if (len > 96) {
                    acc += kiln__mix16(in + 48, sec + 96);
                    acc += kiln__mix16(in + len - 64, sec + 112);
                }
                acc += kiln__mix16(in + 32, sec + 64);
                acc += kiln__mix16(in + len - 48, sec + 80);
            }
            acc += kiln__mix16(in + 16, sec + 32);
            acc += kiln__mix16(in + len - 32, sec + 48);
        }
        acc += kiln__mix16(in, sec);
        acc += kiln__mix16(in + len - 16, sec + 16);
        return kiln__xxh3_avalanche(acc);
    }
    if (len <= 240) {
        uint64_t acc = (uint64_t)len * KILN__P64_1;
        size_t rounds = len / 16, i;
        for (i = 0; i < 8; i++) acc += kiln__mix16(in + 16 * i, sec + 16 * i);
        acc = kiln__xxh3_avalanche(acc);
        for (i = 8; i < rounds; i++) acc += kiln__mix16(in + 16 * i, sec + 16 * (i - 8) + 3);
        acc += kiln__mix16(in + len - 16, sec + 136 - 17);
        return kiln__xxh3_avalanche(acc);
    }
    return kiln__xxh3_long(in, len);
}

kiln_result kiln_verify_checksum(const void *data, size_t size) {
    const uint8_t *d = (const uint8_t *)data;
    if (size < 16) return KILN_E_TRUNCATED;
    return kiln__u64(d + 8) == kiln_xxh3_64(d + 16, size - 16) ? KILN_OK : KILN_E_CHECKSUM;
}

const char *kiln_string(const char *strings, kiln_str s, uint32_t *len) {
    if (len) *len = s.length;
    return strings + s.offset;
}

float kiln_unorm16_decode(uint16_t q, float min, float extent) {
    return min + extent * ((float)q / 65535.0f);
}

void kiln_oct16_decode(const int16_t q[2], float out[3]) {
    float x = (float)q[0] / 32767.0f, y = (float)q[1] / 32767.0f, z, len;
    if (x < -1.0f) x = -1.0f;
    if (y < -1.0f) y = -1.0f;
    z = 1.0f - fabsf(x) - fabsf(y);
    if (z < 0.0f) {
        float ox = x, oy = y;
        x = (1.0f - fabsf(oy)) * (ox < 0.0f ? -1.0f : 1.0f);
        y = (1.0f - fabsf(ox)) * (oy < 0.0f ? -1.0f : 1.0f);
    }
    len = sqrtf(x * x + y * y + z * z);
    out[0] = x / len; out[1] = y / len; out[2] = z / len;
}

void kiln_mesh_position(const kiln_mesh *m, uint32_t i, float out[3]) {
    int k;
    if (m->positions_f32) { for (k = 0; k < 3; k++) out[k] = m->positions_f32[3 * (size_t)i + k]; return; }
    for (k = 0; k < 3; k++)
        out[k] = kiln_unorm16_decode(m->positions_unorm16[4 * (size_t)i + k], m->quantization->position_min[k], m->quantization->position_extent[k]);
}

void kiln_mesh_normal(const kiln_mesh *m, uint32_t i, float out[3]) {
    int k;
    if (m->normals_f32) { for (k = 0; k < 3; k++) out[k] = m->normals_f32[3 * (size_t)i + k]; return; }
    kiln_oct16_decode(m->normals_oct16 + 2 * (size_t)i, out);
}

void kiln_mesh_tangent(const kiln_mesh *m, uint32_t i, float out[3]) {
    int k;
    if (m->tangents_f32) { for (k = 0; k < 3; k++) out[k] = m->tangents_f32[3 * (size_t)i + k]; return; }
    kiln_oct16_decode(m->tangents_oct16 + 2 * (size_t)i, out);
}

void kiln_mesh_uv(const kiln_mesh *m, uint32_t i, float out[2]) {
    int k;
    if (m->uvs_f32) { for (k = 0; k < 2; k++) out[k] = m->uvs_f32[2 * (size_t)i + k]; return; }
    for (k = 0; k < 2; k++)
        out[k] = kiln_unorm16_decode(m->uvs_unorm16[2 * (size_t)i + k], m->quantization->uv_min[k], m->quantization->uv_extent[k]);
}

void kiln_mesh_weights(const kiln_mesh *m, uint32_t i, float out[4]) {
    int k;
    for (k = 0; k < 4; k++)
        out[k] = m->weights_f32 ? m->weights_f32[4 * (size_t)i + k] : (float)m->weights_unorm8[4 * (size_t)i + k] / 255.0f;
}

uint32_t kiln_mesh_index(const kiln_mesh *m, uint32_t i) {
    return m->indices_u16 ? m->indices_u16[i] : m->indices_u32[i];
}

float kiln_snorm16_decode(int16_t q, float scale) {
    float t = (float)q / 32767.0f;
    if (t < -1.0f) t = -1.0f;
    return scale * t;
}

uint32_t kiln_mesh_part_morph_targets(const kiln_mesh *m, uint32_t part, uint32_t *first) {
    /* Targets are in part order: two lower bounds. */
    uint32_t lo = 0, hi = m->morph_target_count, a;
    while (lo < hi) { uint32_t mid = lo + (hi - lo) / 2; if (m->morph_targets[mid].part < part) lo = mid + 1; else hi = mid; }
    a = lo; hi = m->morph_target_count;
    while (lo < hi) { uint32_t mid = lo + (hi - lo) / 2; if (m->morph_targets[mid].part <= part) lo = mid + 1; else hi = mid; }
    if (first) *first = a;
    return lo - a;
}

static void kiln__morph_decode(const float *f32s, const int16_t *codes, float scale, uint64_t at, float out[3]) {
    uint64_t k;
    for (k = 0; k < 3; k++)
        out[k] = f32s ? f32s[3 * at + k] : kiln_snorm16_decode(codes[4 * at + k], scale);
}

int kiln_mesh_morph_offset(const kiln_mesh *m, uint32_t shape, uint32_t j, uint32_t *vertex,
                           float position[3], float normal[3]) {
    const kiln_morph_shape *sh;
    uint64_t at;
    if (shape >= m->morph_shape_count) return 0;
    sh = &m->morph_shapes[shape];
    if (j >= sh->offset_count) return 0;
    at = (uint64_t)sh->first_offset + j;
    if (vertex) *vertex = m->morph_vertices[at];
    if (position) kiln__morph_decode(m->morph_positions_f32, m->morph_positions_snorm16, sh->position_scale, at, position);
    if (normal) kiln__morph_decode(m->morph_normals_f32, m->morph_normals_snorm16, sh->normal_scale, at, normal);
    return 1;
}

uint32_t kiln_mesh_morph_shape_decode(const kiln_mesh *m, uint32_t shape, uint32_t *vertices,
                                      float *positions, float *normals) {
    uint32_t j, n;
    if (shape >= m->morph_shape_count) return 0;
    n = m->morph_shapes[shape].offset_count;
    for (j = 0; j < n; j++)
        kiln_mesh_morph_offset(m, shape, j, vertices ? vertices + j : NULL,
                               positions ? positions + 3 * (size_t)j : NULL,
                               normals ? normals + 3 * (size_t)j : NULL);
    return n;
}

float kiln_clip_weight(const kiln_clip *c, uint32_t frame, uint32_t track) {
    if (track >= c->weight_track_count || frame >= c->frame_count) return 0.0f;
    return c->weights[(size_t)frame * c->weight_track_count + track];
}

#endif /* KILN_IMPLEMENTED */
#endif /* KILN_IMPLEMENTATION */
