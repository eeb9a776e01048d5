package sdk

import (
	"fmt"
	"maps"
	"slices"

	pb "github.com/cudapkgs/cudapkgs/internal/pluginpb"
)

func stringLists(m map[string][]string) map[string]*pb.StringList {
	out := make(map[string]*pb.StringList, len(m))
	for k, v := range m {
		out[k] = &pb.StringList{Values: v}
	}
	return out
}

func fromStringLists(m map[string]*pb.StringList) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = v.GetValues()
	}
	return out
}

func batchToPB(b *Batch) *pb.FixupRequest {
	req := &pb.FixupRequest{Cuda: b.CUDA, Product: b.Product, Config: &pb.Config{
		CudaVersions: b.Config.CUDAVersions, ForwardCompat: b.Config.ForwardCompat, Exec: b.Config.Exec,
		Targets: b.Config.Targets, Capabilities: stringLists(b.Config.Capabilities), DefaultCapabilityTargets: b.Config.DefaultCapabilityTargets}}
	for _, p := range b.Packages {
		pp := &pb.Package{Name: p.Name, Manifest: p.Manifest, Product: p.Product, Release: p.Release, Version: p.Version,
			Unavailable: stringLists(p.Unavailable)}
		for _, a := range p.Archives {
			pp.Archives = append(pp.Archives, &pb.Archive{Platform: a.Platform, Key: a.Key, Variant: a.Variant, RelativePath: a.RelativePath, Sha256: a.SHA256})
		}
		req.Packages = append(req.Packages, pp)
	}
	// The batch's own packages are sent once, in packages; the other side
	// adds them back to the set.
	for _, s := range b.SetPackages {
		if s.Product != b.Product {
			req.SetPackages = append(req.SetPackages, &pb.SetPackage{Name: s.Name, Manifest: s.Manifest, Product: s.Product, Release: s.Release, Version: s.Version})
		}
	}
	return req
}

func batchFromPB(req *pb.FixupRequest) *Batch {
	c := req.GetConfig()
	b := &Batch{CUDA: req.GetCuda(), Product: req.GetProduct(), Config: Config{
		CUDAVersions: c.GetCudaVersions(), ForwardCompat: c.GetForwardCompat(), Exec: c.GetExec(),
		Targets: c.GetTargets(), Capabilities: fromStringLists(c.GetCapabilities()), DefaultCapabilityTargets: c.GetDefaultCapabilityTargets()}}
	for _, p := range req.GetPackages() {
		pp := Package{Name: p.GetName(), Manifest: p.GetManifest(), Product: p.GetProduct(), Release: p.GetRelease(),
			Version: p.GetVersion(), Unavailable: fromStringLists(p.GetUnavailable())}
		for _, a := range p.GetArchives() {
			pp.Archives = append(pp.Archives, Archive{Platform: a.GetPlatform(), Key: a.GetKey(), Variant: a.GetVariant(), RelativePath: a.GetRelativePath(), SHA256: a.GetSha256()})
		}
		b.Packages = append(b.Packages, pp)
	}
	for _, p := range b.Packages {
		b.SetPackages = append(b.SetPackages, SetPackage{Name: p.Name, Manifest: p.Manifest, Product: p.Product, Release: p.Release, Version: p.Version})
	}
	for _, s := range req.GetSetPackages() {
		b.SetPackages = append(b.SetPackages, SetPackage{Name: s.GetName(), Manifest: s.GetManifest(), Product: s.GetProduct(), Release: s.GetRelease(), Version: s.GetVersion()})
	}
	return b
}

func resultToPB(r *Result) *pb.FixupResponse {
	resp := &pb.FixupResponse{}
	for _, p := range r.Packages {
		pp := &pb.PackageResult{Name: p.Name, Platforms: map[string]*pb.PlatformResult{}, StaticLinkopts: p.StaticLinkopts}
		for _, pa := range p.Patches {
			pe := &pb.Patch{Name: pa.Name, Why: pa.Why}
			for _, e := range pa.Edits {
				pe.Edits = append(pe.Edits, &pb.Edit{Path: e.Path, Old: e.Old, New: e.New})
			}
			pp.Patches = append(pp.Patches, pe)
		}
		for _, d := range p.Deps {
			pp.Deps = append(pp.Deps, &pb.Dep{Package: d.Package, Release: d.Release, Runtime: d.Runtime, Since: d.Since, Until: d.Until, Platforms: d.Platforms, Static: d.Static, Headers: d.Headers, Merge: d.Merge})
		}
		var sent []string // platforms whose files went on the wire, in order
		for _, name := range slices.Sorted(maps.Keys(p.Platforms)) {
			pr := p.Platforms[name]
			out := &pb.PlatformResult{Unusable: pr.Unusable, Generic: pr.Generic, JudgedCapabilities: pr.Judged}
			for _, prev := range sent {
				if len(pr.Files) > 0 && slices.Equal(p.Platforms[prev].Files, pr.Files) {
					out.SameFilesAs = prev
					break
				}
			}
			if out.SameFilesAs == "" {
				for _, f := range pr.Files {
					out.Files = append(out.Files, &pb.File{Path: f.Path, Kind: kindToPB[f.Kind], Role: roleToPB[f.Role], Soname: f.SONAME})
				}
				sent = append(sent, name)
			}
			pp.Platforms[name] = out
		}
		resp.Packages = append(resp.Packages, pp)
	}
	return resp
}

func resultFromPB(resp *pb.FixupResponse) (*Result, error) {
	r := &Result{}
	for _, p := range resp.GetPackages() {
		pp := PackageResult{Name: p.GetName(), Platforms: map[string]PlatformResult{}, StaticLinkopts: p.GetStaticLinkopts()}
		for _, pa := range p.GetPatches() {
			pe := Patch{Name: pa.GetName(), Why: pa.GetWhy()}
			for _, e := range pa.GetEdits() {
				pe.Edits = append(pe.Edits, Edit{Path: e.GetPath(), Old: e.GetOld(), New: e.GetNew()})
			}
			pp.Patches = append(pp.Patches, pe)
		}
		for _, d := range p.GetDeps() {
			pp.Deps = append(pp.Deps, Dep{Package: d.GetPackage(), Release: d.GetRelease(), Runtime: d.GetRuntime(), Since: d.GetSince(), Until: d.GetUntil(), Platforms: d.GetPlatforms(), Static: d.GetStatic(), Headers: d.GetHeaders(), Merge: d.GetMerge()})
		}
		files := map[string][]File{}
		for name, pr := range p.GetPlatforms() {
			var fs []File
			for _, f := range pr.GetFiles() {
				fs = append(fs, File{Path: f.GetPath(), Kind: kindFromPB[f.GetKind()], Role: roleFromPB[f.GetRole()], SONAME: f.GetSoname()})
			}
			files[name] = fs
		}
		for name, pr := range p.GetPlatforms() {
			out := PlatformResult{Unusable: pr.GetUnusable(), Files: files[name], Generic: pr.GetGeneric(), Judged: pr.GetJudgedCapabilities()}
			if same := pr.GetSameFilesAs(); same != "" {
				src, ok := p.GetPlatforms()[same]
				if !ok || src.GetSameFilesAs() != "" || len(pr.GetFiles()) > 0 {
					return nil, fmt.Errorf("package %s: platform %s has files the same as %q, which is not a platform with files of its own", p.GetName(), name, same)
				}
				// Shared, not copied: the host only reads them.
				out.Files = files[same]
			}
			pp.Platforms[name] = out
		}
		r.Packages = append(r.Packages, pp)
	}
	return r, nil
}

// Kinds and roles are enums on the wire (a varint, not a string per file).
// An unknown or unspecified value reads as "", which the host refuses.
var (
	kindToPB = map[Kind]pb.Kind{Headers: pb.Kind_KIND_HEADERS, SharedLib: pb.Kind_KIND_SHARED_LIB, StaticLib: pb.Kind_KIND_STATIC_LIB,
		StubLib: pb.Kind_KIND_STUB_LIB, Binary: pb.Kind_KIND_BINARY, Data: pb.Kind_KIND_DATA}
	kindFromPB = invert(kindToPB)
	roleToPB   = map[Role]pb.Role{Exec: pb.Role_ROLE_EXEC, Target: pb.Role_ROLE_TARGET}
	roleFromPB = invert(roleToPB)
)

func invert[K, V comparable](m map[K]V) map[V]K {
	out := make(map[V]K, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

func descriptionToPB(d Description) *pb.DescribeResponse {
	out := &pb.DescribeResponse{Name: d.Name, Products: d.Products, ProtocolVersion: ProtocolVersion}
	for _, r := range d.Renames {
		out.Renames = append(out.Renames, &pb.Rename{Package: r.Package, Replaces: r.Replaces, Since: r.Since})
	}
	for _, f := range d.Facts {
		pf := &pb.ProductFacts{Product: f.Product, Toolkit: f.Toolkit, Unlisted: f.Unlisted, Base: f.Base, Path: f.Path,
			StripPrefix: f.StripPrefix, LocalIdentify: f.LocalIdentify}
		for _, fc := range f.FlatCUDA {
			pf.FlatCuda = append(pf.FlatCuda, &pb.FlatCUDA{From: fc.From, Below: fc.Below, Cuda: fc.CUDA})
		}
		if t := f.Toolchain; t != nil {
			pt := &pb.Toolchain{Compiler: t.Compiler, Runtime: t.Runtime}
			for _, h := range t.Headers {
				pt.Headers = append(pt.Headers, &pb.ToolchainHeaders{Since: h.Since, Packages: h.Packages})
			}
			for _, h := range t.ClangHeaders {
				pt.ClangHeaders = append(pt.ClangHeaders, &pb.ToolchainHeaders{Since: h.Since, Packages: h.Packages})
			}
			pf.Toolchain = pt
		}
		for _, h := range f.LocalHints {
			pf.LocalHints = append(pf.LocalHints, &pb.LocalHint{Component: h.Component, Rel: h.Rel, Kind: h.Kind, Key: h.Key})
		}
		for _, w := range f.Wheels {
			pf.Wheels = append(pf.Wheels, &pb.WheelProject{Project: w.Project, CudaMajors: w.CUDAMajors, Package: w.Package, Prefix: w.Prefix})
		}
		out.Facts = append(out.Facts, pf)
	}
	return out
}

func descriptionFromPB(d *pb.DescribeResponse) Description {
	out := Description{Name: d.GetName(), Products: d.GetProducts(), ProtocolVersion: int(d.GetProtocolVersion())}
	for _, r := range d.GetRenames() {
		out.Renames = append(out.Renames, Rename{Package: r.GetPackage(), Replaces: r.GetReplaces(), Since: r.GetSince()})
	}
	for _, pf := range d.GetFacts() {
		f := ProductFacts{Product: pf.GetProduct(), Toolkit: pf.GetToolkit(), Unlisted: pf.GetUnlisted(), Base: pf.GetBase(),
			Path: pf.GetPath(), StripPrefix: pf.GetStripPrefix(), LocalIdentify: pf.GetLocalIdentify()}
		for _, fc := range pf.GetFlatCuda() {
			f.FlatCUDA = append(f.FlatCUDA, FlatCUDA{From: fc.GetFrom(), Below: fc.GetBelow(), CUDA: fc.GetCuda()})
		}
		if pt := pf.GetToolchain(); pt != nil {
			t := &Toolchain{Compiler: pt.GetCompiler(), Runtime: pt.GetRuntime()}
			for _, h := range pt.GetHeaders() {
				t.Headers = append(t.Headers, ToolchainHeaders{Since: h.GetSince(), Packages: h.GetPackages()})
			}
			for _, h := range pt.GetClangHeaders() {
				t.ClangHeaders = append(t.ClangHeaders, ToolchainHeaders{Since: h.GetSince(), Packages: h.GetPackages()})
			}
			f.Toolchain = t
		}
		for _, h := range pf.GetLocalHints() {
			f.LocalHints = append(f.LocalHints, LocalHint{Component: h.GetComponent(), Rel: h.GetRel(), Kind: h.GetKind(), Key: h.GetKey()})
		}
		for _, w := range pf.GetWheels() {
			f.Wheels = append(f.Wheels, WheelProject{Project: w.GetProject(), CUDAMajors: w.GetCudaMajors(), Package: w.GetPackage(), Prefix: w.GetPrefix()})
		}
		out.Facts = append(out.Facts, f)
	}
	return out
}
