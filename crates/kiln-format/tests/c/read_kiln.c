/* Reads kiln-layout files with include/kiln.h and prints what it finds, one fact per line, for
 * tests/c_reader.rs to compare with what kiln-format reads from the same files.
 * Usage: read_kiln FILE...   (a file starting with KILNCLIP is read as a clip, else as a mesh)
 * Hashes are FNV-1a 64 over the decoded values' bits (little-endian), so the C decoders are
 * compared bit for bit with kiln-format's. */
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
    printf("checksum %s\n", kiln_verify_checksum(d, n) == KILN_OK ? "ok" : "bad");
    return 1;
}

int main(int argc, char **argv) {
    int a;
    if (sizeof(kiln_bone) != 144 || sizeof(kiln_part) != 48 || sizeof(kiln_material) != 96 ||
        sizeof(kiln_key) != 40 || sizeof(kiln_quantization) != 48 || sizeof(kiln_clip_record) != 32) {
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
