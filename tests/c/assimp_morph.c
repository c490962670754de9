/* Prints what Assimp (the system's libassimp, 5.2.5 on Debian) makes of a file's blend shapes,
 * for tests/conformance_morph.rs: per mesh its anim meshes (name, weight,
 * and each vertex's position offset from the base mesh, where it is not zero), and per
 * animation its morph mesh channels (keys: time, anim mesh indices, weights).
 *
 * Usage: assimp_morph FILE FLAGS   (FLAGS: aiPostProcessSteps as a decimal number)
 * Output lines, numbers as %.9g:
 *   mesh I NAME VERTICES ANIMMESHES
 *   anim J NAME WEIGHT
 *   d VERTEX DX DY DZ
 *   channel ANIMATION NAME KEYS TICKS_PER_SECOND
 *   key TIME N VALUE... WEIGHT...
 */
#include <assimp/cimport.h>
#include <assimp/scene.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: assimp_morph FILE FLAGS\n");
        return 2;
    }
    const struct aiScene *s = aiImportFile(argv[1], (unsigned)strtoul(argv[2], NULL, 10));
    if (!s) {
        printf("error %s\n", aiGetErrorString());
        return 1;
    }
    for (unsigned i = 0; i < s->mNumMeshes; i++) {
        const struct aiMesh *m = s->mMeshes[i];
        printf("mesh %u %s %u %u\n", i, m->mName.data, m->mNumVertices, m->mNumAnimMeshes);
        for (unsigned j = 0; j < m->mNumAnimMeshes; j++) {
            const struct aiAnimMesh *a = m->mAnimMeshes[j];
            printf("anim %u %s %.9g\n", j, a->mName.data, a->mWeight);
            if (!a->mVertices || a->mNumVertices != m->mNumVertices) continue;
            for (unsigned v = 0; v < m->mNumVertices; v++) {
                float dx = a->mVertices[v].x - m->mVertices[v].x;
                float dy = a->mVertices[v].y - m->mVertices[v].y;
                float dz = a->mVertices[v].z - m->mVertices[v].z;
                if (dx != 0.0f || dy != 0.0f || dz != 0.0f)
                    printf("d %u %.9g %.9g %.9g\n", v, dx, dy, dz);
            }
        }
    }
    for (unsigned i = 0; i < s->mNumAnimations; i++) {
        const struct aiAnimation *an = s->mAnimations[i];
        for (unsigned c = 0; c < an->mNumMorphMeshChannels; c++) {
            const struct aiMeshMorphAnim *ch = an->mMorphMeshChannels[c];
            printf("channel %u %s %u %.9g\n", i, ch->mName.data, ch->mNumKeys, an->mTicksPerSecond);
            for (unsigned k = 0; k < ch->mNumKeys; k++) {
                const struct aiMeshMorphKey *key = &ch->mKeys[k];
                printf("key %.17g %u", key->mTime, key->mNumValuesAndWeights);
                for (unsigned n = 0; n < key->mNumValuesAndWeights; n++) printf(" %u", key->mValues[n]);
                for (unsigned n = 0; n < key->mNumValuesAndWeights; n++) printf(" %.9g", key->mWeights[n]);
                printf("\n");
            }
        }
    }
    aiReleaseImport(s);
    return 0;
}
