"""Bazel rule for kiln: one model through `kiln convert`, hermetic and cacheable.

Load it from your workspace (copy this file, or point a `local_repository` at kiln):

    load("//tools/bazel:kiln.bzl", "kiln_convert")

    kiln_convert(
        name = "hero",
        model = "assets/hero.fbx",
        # Every other file the conversion reads: the "inputs" of the hero.kiln.json that a
        # first `kiln convert` wrote (docs/pipeline.md shows how to generate this list).
        srcs = ["assets/hero_diffuse.png", "assets/hero_normal.png"],
        options = ["--layout", "kiln"],
        kiln = "//tools:kiln",
    )

The outputs (NAME.mesh, NAME.xml, the clips, the textures and NAME.kiln.json) land in one
declared directory, `bazel-bin/<package>/<name>/`, because their names (one `.clip` per
animation, textures renamed by content) are known only after the model is read. Bazel runs the
action in a sandbox that holds only the declared inputs, so an input missing from `srcs` is not
there: the rule denies the warnings that would then appear (a texture or a material library not
found), and the build fails naming the file, instead of caching an output without it.
"""

def _kiln_convert_impl(ctx):
    out = ctx.actions.declare_directory(ctx.attr.name)
    args = ctx.actions.args()
    args.add("convert")
    args.add(ctx.file.model)
    args.add("-o", out.path)
    args.add("--base", ctx.file.model.dirname)
    args.add("--deny", "pipeline.texture-missing,obj.mtllib-missing")
    args.add("--jobs", "1")
    args.add("--quiet")
    args.add_all(ctx.attr.options)
    ctx.actions.run(
        executable = ctx.executable.kiln,
        arguments = [args],
        inputs = [ctx.file.model] + ctx.files.srcs,
        outputs = [out],
        mnemonic = "KilnConvert",
        progress_message = "kiln %s" % ctx.file.model.short_path,
    )
    return [DefaultInfo(files = depset([out]))]

kiln_convert = rule(
    implementation = _kiln_convert_impl,
    doc = "Converts one FBX or OBJ model with `kiln convert` into a directory of engine files.",
    attrs = {
        "model": attr.label(
            allow_single_file = [".fbx", ".obj", ".FBX", ".OBJ"],
            mandatory = True,
            doc = "The model file.",
        ),
        "srcs": attr.label_list(
            allow_files = True,
            doc = "Every other file the conversion reads (its manifest's inputs): .mtl libraries, textures.",
        ),
        "options": attr.string_list(
            doc = "More `kiln convert` options (--layout, --quantize, --static, --clip-rate...).",
        ),
        "kiln": attr.label(
            executable = True,
            cfg = "exec",
            allow_single_file = True,
            mandatory = True,
            doc = "The kiln binary.",
        ),
    },
)
