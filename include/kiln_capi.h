/* kiln_capi.h: kiln's C API (crates/kiln-capi). Link the static library
 * (target/release/libkiln_capi.a, with -lpthread -ldl -lm) or the shared one
 * (libkiln_capi.so). Every function is safe to call from C: no panic crosses this boundary,
 * each is returned as an error. No global state: calls on different objects may run on
 * different threads at once.
 *
 * Written by hand from crates/kiln-capi/src/lib.rs; crates/kiln-capi/tests/c_api.rs compiles
 * a program against it with -Wall -Wextra -Werror -pedantic and runs every function. */
#ifndef KILN_CAPI_H
#define KILN_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes the caller owns. */
typedef struct kiln_bytes {
    const uint8_t *data;
    size_t len;
} kiln_bytes;

/* Asked for the file `name` (relative to the model's folder, '/'-separated), sets *out to its
 * bytes and returns 0, or returns non-zero when there is no such file. The bytes must stay
 * valid until kiln_convert_memory returns; kiln copies what it keeps. */
typedef int (*kiln_loader)(void *user, const char *name, kiln_bytes *out);

/* Options, as the CLI's. Zero-initialised: `kiln convert FILE`. */
typedef struct kiln_options {
    uint32_t layout;      /* 0: kiln layout; 1: classic (--layout classic) */
    uint32_t quantize;    /* 0: none; 1: --quantize; 2: --quantize-positions */
    uint32_t static_mesh; /* non-zero: --static */
    double clip_rate;     /* --clip-rate FPS; 0: the animation's own */
} kiln_options;

/* One output file: its name in the output folder and its bytes. */
typedef struct kiln_file {
    const char *name;
    const uint8_t *data;
    size_t len;
} kiln_file;

/* What kiln_convert_memory gives; every pointer is valid until kiln_result_free. */
typedef struct kiln_result {
    const char *error;           /* NULL on success, else the one-line error */
    const kiln_file *files;      /* the outputs, in the order `kiln convert` writes them */
    size_t file_count;
    const char *const *warnings; /* "code: message", one per warning */
    size_t warning_count;
    const char *summary;         /* "N bones, N mesh parts, ..."; NULL on error */
} kiln_result;

/* Converts the model bytes[0..len] named file_name (FBX or OBJ by its extension; it names the
 * outputs) with options (NULL: defaults), reading what it refers to through loader (NULL:
 * nothing). Never returns NULL. The outputs equal `kiln convert`'s byte for byte. */
kiln_result *kiln_convert_memory(const uint8_t *bytes, size_t len, const char *file_name,
                                 kiln_loader loader, void *user, const kiln_options *options);

/* Frees a result (NULL is ignored). Call it exactly once per result. */
void kiln_result_free(kiln_result *result);

/* kiln's version, e.g. "0.1.0"; static. */
const char *kiln_version(void);

/* A kiln-layout .mesh and its .clips, bound for playback. */
typedef struct KilnRuntime kiln_runtime;

/* Reads mesh[0..mesh_len] and clips[0..clip_count] (kiln layout; the bytes are not kept),
 * builds the skeleton, binds the clips. NULL on bad input, the reason written to
 * error[0..error_len] (NUL-terminated, truncated) when error is not NULL. */
kiln_runtime *kiln_runtime_new(const uint8_t *mesh, size_t mesh_len, const kiln_bytes *clips,
                               size_t clip_count, char *error, size_t error_len);

/* Bones of the skeleton and clips bound; 0 for NULL. */
size_t kiln_runtime_bone_count(const kiln_runtime *runtime);
size_t kiln_runtime_clip_count(const kiln_runtime *runtime);

/* Samples clip `clip` at `time` (in frames; looping when `looping` is non-zero, else held at
 * the ends) and writes each bone's skinning matrix (offset x model, 16 floats, the row-vector
 * matrix row by row, as the bone texture's texels) to out[0..16 * bones]. Returns 0, or -1 (a
 * NULL pointer, an unknown clip, out_len < 16 * bones; nothing written). No allocation. One
 * runtime must not be used by two threads at once. */
int kiln_runtime_palette(kiln_runtime *runtime, size_t clip, float time, int looping, float *out,
                         size_t out_len);

/* Frees a runtime (NULL is ignored). */
void kiln_runtime_free(kiln_runtime *runtime);

#ifdef __cplusplus
}
#endif

#endif /* KILN_CAPI_H */
