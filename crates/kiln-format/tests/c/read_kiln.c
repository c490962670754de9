/* Reads kiln-layout files with include/kiln.h and prints what it finds, one fact per line, for
 * tests/c_reader.rs to compare with what kiln-format reads from the same files.
 * Usage: read_kiln FILE...   (a file starting with KILNCLIP is read as a clip, else as a mesh)
 * Hashes are FNV-1a 64 over the decoded values' bits (little-endian), so the C decoders are
 * compared bit for bit with kiln-format's; 1.1 morph targets and weight tracks are printed
 * value by value (as f32 bits). */
#define KILN_IMPLEMENTATION
#include "kiln.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = (const uint8_t *)p;
    size_t i;
    for (i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001b3ull; }
    return h;
}

static unsigned bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return (unsigned)u;
}

static void print_str(const char *strings, kiln_str s) {
    uint32_t len;
    const char *p = kiln_string(strings, s, &len);
    fwrite(p, 1, len, stdout);
}

static void print_tex(const kiln_mesh *m, uint32_t t) {
    if (t != KILN_NONE) print_str(m->strings, m->textures[t].path);
}

/* 1.1 morph targets: every record, and every offset decoded one by one; the bulk decoder must
 * give the same bits. */
static void print_morphs(const kiln_mesh *m) {
    uint32_t i, j, first, count;
    if (!m->morph_targets) { printf("morphs none\n"); return; }
    printf("morphs %u %u %u %s %s\n", m->morph_target_count, m->morph_shape_count, m->morph_offset_count,
           m->morph_positions_f32 ? "f32" : "snorm16", m->morph_normals_f32 ? "f32" : "snorm16");
    for (i = 0; i < m->part_count; i++) {
        count = kiln_mesh_part_morph_targets(m, i, &first);
        printf("part_targets %u %u %u\n", i, first, count);
    }
    for (i = 0; i < m->morph_target_count; i++) {
        const kiln_morph_target *t = &m->morph_targets[i];
        printf("target %u %u ", i, t->part);
        print_str(m->strings, t->name);
        printf(" %08x %u %u\n", bits(t->default_weight), t->first_shape, t->shape_count);
    }
    for (i = 0; i < m->morph_shape_count; i++) {
        const kiln_morph_shape *s = &m->morph_shapes[i];
        uint32_t got, *vs = (uint32_t *)malloc(4 * (size_t)s->offset_count + 4);
        float *ps = (float *)malloc(12 * (size_t)s->offset_count + 12);
        float *ns = (float *)malloc(12 * (size_t)s->offset_count + 12);
        if (!vs || !ps || !ns) { printf("out of memory\n"); free(vs); free(ps); free(ns); return; }
        printf("shape %u ", i);
        print_str(m->strings, s->name);
        printf(" %08x %u %u %u %08x %08x\n", bits(s->full_weight), s->flags, s->first_offset, s->offset_count,
               bits(s->position_scale), bits(s->normal_scale));
        got = kiln_mesh_morph_shape_decode(m, i, vs, ps, ns);
        if (got != s->offset_count) printf("bulk decode gave %u of %u\n", got, s->offset_count);
        for (j = 0; j < s->offset_count; j++) {
            uint32_t v = 0;
            float p[3], q[3];
            kiln_mesh_morph_offset(m, i, j, &v, p, q);
            printf("offset %u %u %u %08x %08x %08x %08x %08x %08x\n", i, j, v, bits(p[0]), bits(p[1]), bits(p[2]),
                   bits(q[0]), bits(q[1]), bits(q[2]));
            if (vs[j] != v || memcmp(ps + 3 * (size_t)j, p, 12) != 0 || memcmp(ns + 3 * (size_t)j, q, 12) != 0)
                printf("bulk decode differs at %u %u\n", i, j);
        }
        /* Out of range: refused, nothing written. */
        if (kiln_mesh_morph_offset(m, i, s->offset_count, NULL, NULL, NULL) != 0) printf("offset past the shape accepted\n");
        free(vs); free(ps); free(ns);
    }
    if (kiln_mesh_morph_offset(m, m->morph_shape_count, 0, NULL, NULL, NULL) != 0 ||
        kiln_mesh_morph_shape_decode(m, m->morph_shape_count, NULL, NULL, NULL) != 0)
        printf("shape past the end accepted\n");
}

static int read_mesh(const uint8_t *d, size_t n) {
    kiln_mesh m; kiln_error e; uint32_t i;
    uint64_t h = 0xcbf29ce484222325ull;
    if (kiln_mesh_parse(d, n, &m, &e) != KILN_OK) {
        printf("error %d %llu %s\n", (int)e.code, (unsigned long long)e.offset, e.message);
        return 0;
    }
    printf("mesh %u.%u sections %u\n", m.major, m.minor, m.section_count);
    printf("bones %u\n", m.bone_count);
    for (i = 0; i < m.bone_count; i++) {
        printf("bone %u %d ", i, m.bones[i].parent);
        print_str(m.strings, m.bones[i].name);
        printf(" %08x %08x\n", bits(m.bones[i].bind[13]), bits(m.bones[i].offset[13]));
    }
    printf("parts %u\n", m.part_count);
    for (i = 0; i < m.part_count; i++) {
        const kiln_part *p = &m.parts[i];
        printf("part %u ", i);
        print_str(m.strings, p->name);
        printf(" ");
        print_str(m.strings, p->material_name);
        printf(" %d %u %u %u %u\n", p->bone, p->first_vertex, p->vertex_count, p->first_index, p->index_count);
    }
    printf("materials %u\n", m.material_count);
    for (i = 0; i < m.material_count; i++) {
        printf("material %u ", i);
        print_str(m.strings, m.materials[i].name);
        printf(" diffuse=");
        print_tex(&m, m.materials[i].diffuse_texture);
        printf(" specular=");
        print_tex(&m, m.materials[i].specular_texture);
        printf(" normal=");
        print_tex(&m, m.materials[i].normal_texture);
        printf("\n");
    }
    printf("vertices %u\nindices %u\n", m.vertex_count, m.index_count);
    for (i = 0; i < m.vertex_count; i++) {
        float v[4];
        kiln_mesh_position(&m, i, v); h = fnv(h, v, 12);
        kiln_mesh_normal(&m, i, v); h = fnv(h, v, 12);
        kiln_mesh_tangent(&m, i, v); h = fnv(h, v, 12);
        kiln_mesh_uv(&m, i, v); h = fnv(h, v, 8);
        h = fnv(h, m.joints + 4 * (size_t)i, 8);
        kiln_mesh_weights(&m, i, v); h = fnv(h, v, 16);
    }
    for (i = 0; i < m.index_count; i++) {
        uint32_t x = kiln_mesh_index(&m, i);
        h = fnv(h, &x, 4);
    }
    printf("vertex_hash %016llx\n", (unsigned long long)h);
    print_morphs(&m);
    printf("checksum %s\n", kiln_verify_checksum(d, n) == KILN_OK ? "ok" : "bad");
    return 1;
}

static int read_clip(const uint8_t *d, size_t n) {
    kiln_clip c; kiln_error e; uint32_t i;
    uint64_t h = 0xcbf29ce484222325ull;
    if (kiln_clip_parse(d, n, &c, &e) != KILN_OK) {
        printf("error %d %llu %s\n", (int)e.code, (unsigned long long)e.offset, e.message);
        return 0;
    }
    printf("clip ");
    print_str(c.strings, c.clip->name);
    printf(" frames %u tracks %u rate %08x\n", c.frame_count, c.track_count, bits(c.clip->frame_rate));
    for (i = 0; i < c.track_count; i++) {
        printf("track %u ", i);
        print_str(c.strings, c.tracks[i].bone_name);
        printf("\n");
    }
    h = fnv(h, c.frame_times, 4 * (size_t)c.frame_count);
    h = fnv(h, c.keys, sizeof(kiln_key) * (size_t)c.frame_count * c.track_count);
    printf("key_hash %016llx\n", (unsigned long long)h);
    printf("weight_tracks %u\n", c.weight_track_count);
    for (i = 0; i < c.weight_track_count; i++) {
        uint32_t f;
        printf("weight_track %u %u %u", i, c.weight_tracks[i].part, c.weight_tracks[i].target);
        for (f = 0; f < c.frame_count; f++) printf(" %08x", bits(kiln_clip_weight(&c, f, i)));
        printf("\n");
    }
    if (kiln_clip_weight(&c, c.frame_count, 0) != 0.0f || kiln_clip_weight(&c, 0, c.weight_track_count) != 0.0f)
        printf("weight out of range is not 0\n");
    printf("checksum %s\n", kiln_verify_checksum(d, n) == KILN_OK ? "ok" : "bad");
    return 1;
}

int main(int argc, char **argv) {
    int a;
    if (sizeof(kiln_bone) != 144 || sizeof(kiln_part) != 48 || sizeof(kiln_material) != 96 ||
        sizeof(kiln_key) != 40 || sizeof(kiln_quantization) != 48 || sizeof(kiln_clip_record) != 32 ||
        sizeof(kiln_morph_target) != 32 || sizeof(kiln_morph_shape) != 32 || sizeof(kiln_weight_track) != 16) {
        printf("record sizes differ from docs/format.md\n");
        return 2;
    }
    for (a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        long n;
        uint8_t *d;
        if (!f) { printf("cannot open %s\n", argv[a]); return 2; }
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        d = (uint8_t *)malloc(n > 0 ? (size_t)n : 1);
        if (n > 0 && fread(d, 1, (size_t)n, f) != (size_t)n) { printf("cannot read %s\n", argv[a]); return 2; }
        fclose(f);
        printf("file %s\n", argv[a]);
        if (n >= 8 && memcmp(d, "KILNCLIP", 8) == 0) read_clip(d, (size_t)n);
        else read_mesh(d, (size_t)n);
        free(d);
    }
    /* XXH3 self-check lines: lengths that take every path of the algorithm. */
    {
        static uint8_t buf[3000];
        size_t lens[] = {0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 1025, 2048, 3000};
        size_t i;
        for (i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 31 + 7);
        for (i = 0; i < sizeof lens / sizeof lens[0]; i++)
            printf("xxh3 %zu %016llx\n", lens[i], (unsigned long long)kiln_xxh3_64(buf, lens[i]));
    }
    return 0;
}
