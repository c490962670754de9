/* Drives kiln_capi.h from C: converts the model given, reading what it refers to from its
 * folder through the loader, and writes every output into the output folder; then, for a
 * kiln-layout conversion with clips, opens the runtime on the outputs and prints the palette of
 * each clip at a few times. Prints the summary, the warnings and the files, or the error.
 *
 * usage: convert MODEL OUT_DIR LAYOUT(0|1) [bad]   ("bad": also feeds NULLs and garbage) */
#include "kiln_capi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct loaded {
    char dir[4096];
    uint8_t *buffers[256];
    size_t count;
} loaded;

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
    if (data && n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *len = n > 0 ? (size_t)n : 0;
    return data;
}

static int loader(void *user, const char *name, kiln_bytes *out) {
    loaded *l = user;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", l->dir, name);
    size_t len = 0;
    uint8_t *data = read_file(path, &len);
    if (!data || l->count == 256) {
        free(data);
        return 1;
    }
    l->buffers[l->count++] = data;
    out->data = data;
    out->len = len;
    return 0;
}

static int bad_inputs(void) {
    /* NULL name, garbage bytes, an unknown extension: errors, never a crash. */
    kiln_result *r = kiln_convert_memory(NULL, 0, NULL, NULL, NULL, NULL);
    if (!r->error) return 1;
    printf("error: %s\n", r->error);
    kiln_result_free(r);
    const uint8_t junk[] = "Kaydara FBX Binary  \0\x1a\0garbage";
    r = kiln_convert_memory(junk, sizeof junk, "junk.fbx", NULL, NULL, NULL);
    if (!r->error) return 1;
    printf("error: %s\n", r->error);
    kiln_result_free(r);
    r = kiln_convert_memory(junk, sizeof junk, "junk.txt", NULL, NULL, NULL);
    if (!r->error) return 1;
    printf("error: %s\n", r->error);
    kiln_result_free(r);
    kiln_options o = {7, 0, 0, 0.0};
    r = kiln_convert_memory(junk, sizeof junk, "junk.obj", NULL, NULL, &o);
    if (!r->error) return 1;
    printf("error: %s\n", r->error);
    kiln_result_free(r);
    kiln_result_free(NULL);
    char why[256];
    kiln_runtime *rt = kiln_runtime_new(junk, sizeof junk, NULL, 0, why, sizeof why);
    if (rt) return 1;
    printf("runtime error: %s\n", why);
    if (kiln_runtime_palette(NULL, 0, 0.0f, 0, NULL, 0) != -1) return 1;
    kiln_runtime_free(NULL);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    printf("version %s\n", kiln_version());
    if (argc > 4 && strcmp(argv[4], "bad") == 0 && bad_inputs() != 0) {
        printf("a bad input was accepted\n");
        return 1;
    }
    loaded l = {{0}, {0}, 0};
    const char *model = argv[1];
    const char *slash = strrchr(model, '/');
    const char *name = slash ? slash + 1 : model;
    if (slash) {
        snprintf(l.dir, sizeof l.dir, "%.*s", (int)(slash - model), model);
    } else {
        strcpy(l.dir, ".");
    }
    size_t len = 0;
    uint8_t *bytes = read_file(model, &len);
    if (!bytes) return 2;
    kiln_options options = {(uint32_t)atoi(argv[3]), 0, 0, 0.0};
    kiln_result *r = kiln_convert_memory(bytes, len, name, loader, &l, &options);
    free(bytes);
    for (size_t i = 0; i < l.count; i++) free(l.buffers[i]);
    if (r->error) {
        printf("error: %s\n", r->error);
        kiln_result_free(r);
        return 1;
    }
    printf("summary: %s\n", r->summary);
    for (size_t i = 0; i < r->warning_count; i++) printf("warning: %s\n", r->warnings[i]);
    kiln_bytes clips[64];
    size_t clip_count = 0;
    const kiln_file *mesh = NULL;
    for (size_t i = 0; i < r->file_count; i++) {
        const kiln_file *f = &r->files[i];
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", argv[2], f->name);
        FILE *out = fopen(path, "wb");
        if (!out || fwrite(f->data, 1, f->len, out) != f->len) return 3;
        fclose(out);
        printf("file: %s %zu\n", f->name, f->len);
        size_t n = strlen(f->name);
        if (n > 5 && strcmp(f->name + n - 5, ".mesh") == 0) mesh = f;
        if (n > 5 && strcmp(f->name + n - 5, ".clip") == 0 && clip_count < 64) {
            clips[clip_count].data = f->data;
            clips[clip_count].len = f->len;
            clip_count++;
        }
    }
    if (options.layout == 0 && mesh) {
        char why[512];
        kiln_runtime *rt = kiln_runtime_new(mesh->data, mesh->len, clips, clip_count, why, sizeof why);
        if (!rt) {
            printf("runtime error: %s\n", why);
            kiln_result_free(r);
            return 1;
        }
        size_t bones = kiln_runtime_bone_count(rt);
        float *palette = malloc(16 * (bones ? bones : 1) * sizeof(float));
        printf("runtime: %zu bones, %zu clips\n", bones, kiln_runtime_clip_count(rt));
        for (size_t c = 0; c < kiln_runtime_clip_count(rt); c++) {
            const float times[3] = {0.0f, 1.5f, 4.25f};
            for (int t = 0; t < 3; t++) {
                if (kiln_runtime_palette(rt, c, times[t], 1, palette, 16 * bones) != 0) return 4;
                /* The bone matrices' bits, printed so the test can compare them with kiln-anim. */
                printf("palette %zu %g", c, (double)times[t]);
                for (size_t k = 0; k < 16 * bones; k++) {
                    uint32_t bits;
                    memcpy(&bits, &palette[k], 4);
                    printf(" %08x", bits);
                }
                printf("\n");
            }
        }
        if (kiln_runtime_palette(rt, kiln_runtime_clip_count(rt), 0.0f, 0, palette, 16 * bones) != -1)
            return 5;
        free(palette);
        kiln_runtime_free(rt);
    }
    kiln_result_free(r);
    return 0;
}
