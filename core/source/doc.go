// Package source fetches NVIDIA's redistributable manifests into a cache
// folder and pins them with a lock file.
//
// A manifests folder is read by manifest.LoadDir; this package fills one. The
// cache is laid out exactly like a manifests folder
// (<cache>/<product>/redistrib_<version>.json), so manifest.LoadDir(cache)
// reads what Fetch stored.
//
// Downloads follow NVIDIA's layout,
//
//	<base>/compute/<product>/redist/redistrib_<version>.json
//
// trying the mirrors first, in the order given, and NVIDIA's server last
// (Sources.Folders returns that order). A product with an explicit folder URL
// (one for which NVIDIA publishes no manifest) is fetched from that
// folder only.
//
// Every downloaded body must parse with manifest.Parse and, when the lock file
// already lists it, match the lock's sha256; anything else is refused and never
// written to the cache. The lock file is written only when the whole fetch
// succeeded. Verify checks a folder against a lock.
//
// The package holds no global state: every setting is an Options field and
// output goes to the Progress given by the caller.
package source
