"""A C toolchain config for Debian's aarch64-linux-gnu cross gcc, any version.

C only: no -lstdc++. The gcc version comes from the gcc_version build setting:
"13" means aarch64-linux-gnu-gcc-13 and /usr/lib/gcc-cross/aarch64-linux-gnu/13/include,
"" the unversioned aarch64-linux-gnu-gcc and every gcc-cross include folder.
"""

# All from rules_cc (Debian's 0.0.4 and 0.0.11 have them): Bazel 9 has no
# cc_common or CcToolchainConfigInfo of its own.
load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load("@rules_cc//cc:cc_toolchain_config_lib.bzl", "feature", "flag_group", "flag_set", "tool_path")
load("@rules_cc//cc:defs.bzl", "CcToolchainConfigInfo", "cc_common")

_COMPILE = [
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
]

_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

_GccVersionInfo = provider(doc = "The cross gcc version (a major such as 13, or empty).", fields = ["version"])

def _gcc_version_impl(ctx):
    return [_GccVersionInfo(version = ctx.build_setting_value)]

gcc_version = rule(
    implementation = _gcc_version_impl,
    build_setting = config.string(flag = True),
)

def _impl(ctx):
    version = ctx.attr.gcc_version[_GccVersionInfo].version
    suffix = "-" + version if version else ""
    prefix = "/usr/bin/aarch64-linux-gnu-"
    tool_paths = [
        tool_path(name = "gcc", path = prefix + "gcc" + suffix),
        tool_path(name = "cpp", path = prefix + "cpp" + suffix),
        tool_path(name = "gcov", path = prefix + "gcov" + suffix),
        tool_path(name = "dwp", path = "/bin/false"),
    ]
    for tool in ["ar", "ld", "nm", "objcopy", "objdump", "strip"]:  # binutils: unversioned
        tool_paths.append(tool_path(name = tool, path = prefix + tool))
    features = [
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(
            name = "default_flags",
            enabled = True,
            flag_sets = [
                flag_set(actions = _COMPILE, flag_groups = [flag_group(flags = [
                    "-no-canonical-prefixes",
                    "-fno-canonical-system-headers",
                ])]),
                flag_set(actions = [ACTION_NAMES.cpp_compile], flag_groups = [flag_group(flags = ["-std=c++17"])]),
                flag_set(actions = _LINK, flag_groups = [flag_group(flags = ["-lm"])]),
            ],
        ),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = "aarch64-linux-gnu" + suffix,
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = "aarch64-unknown-linux-gnu",
        target_cpu = "aarch64",
        target_libc = "glibc",
        compiler = "gcc",
        abi_version = "unknown",
        abi_libc_version = "unknown",
        tool_paths = tool_paths,
        features = features,
        # Bazel checks included system headers against these folders (prefixes).
        cxx_builtin_include_directories = [
            "/usr/aarch64-linux-gnu/include",
            "/usr/lib/gcc-cross/aarch64-linux-gnu" + ("/%s/include" % version if version else ""),
            "/usr/include",
        ],
    )

aarch64_toolchain_config = rule(
    implementation = _impl,
    attrs = {"gcc_version": attr.label(mandatory = True, providers = [_GccVersionInfo])},
    provides = [CcToolchainConfigInfo],
)
