// Package localcuda reads a CUDA toolkit that is already installed on the
// machine, so that generation can take a component from it instead of
// downloading NVIDIA's archive.
//
// Three layouts are understood (see Layouts for the table and
// docs/local-cuda.md for the prose):
//
//   - "cuda-home": NVIDIA's runfile or .deb install, /usr/local/cuda, with
//     targets/<triple>/{include,lib} and a version.json;
//   - "debian": Debian's split packages under /usr, where the toolkit's own
//     programs live in lib/nvidia-cuda-toolkit, the rest in bin, include and
//     lib/<multiarch triple>;
//   - "redist": a folder of NVIDIA archives unpacked side by side,
//     <component>-<platform>-<version>-archive/ each.
//
// Everything the package knows about a layout is data (Layout values), not
// code, because a Bazel repository rule has to do the same search in
// Starlark: Starlark renders the table as a dict literal for it. Find is a
// generic walk over that table.
//
// The core names no package (core/generic_test.go). What only a package's
// owner knows, such as "this library's file name carries that component's
// version" or "these components identify a toolkit release", comes in from
// the caller as Hint values and the identify list of Install.Release; the
// tests hold a worked example for Debian.
//
// Versions are only ever read from what the install states (a JSON key, a
// "#define NAME value" line, a version in a file or directory name, or a
// version following a fixed text in a file); no program is run and nothing
// is guessed, so a component whose version the install does not state is
// simply absent from Install.Components.
package localcuda
