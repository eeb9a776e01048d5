package sdk

// The plugin's side of the wire: a batch read, an answer and a description
// written. The host's side is internal/pluginhost.

import (
	"maps"
	"slices"

	pb "github.com/cudapkgs/cudapkgs/internal/pluginpb"
)

func fromStringLists(m map[string]*pb.StringList) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = v.GetValues()
	}
	return out
}

func batchFromPB(req *pb.FixupRequest) *Batch {
	c := req.GetConfig()
	b := &Batch{CUDA: req.GetCuda(), Product: req.GetProduct(), Config: Config{
		CUDAVersions: c.GetCudaVersions(), ForwardCompat: c.GetForwardCompat(), Exec: c.GetExec(),
		Targets: c.GetTargets(), Capabilities: fromStringLists(c.GetCapabilities()), DefaultCapabilityTargets: c.GetDefaultCapabilityTargets(),
		Architectures: c.GetArchitectures()}}
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
					out.Files = append(out.Files, &pb.File{Path: f.Path, Kind: pb.KindFromName(string(f.Kind)), Role: pb.RoleFromName(string(f.Role)), Soname: f.SONAME})
				}
				sent = append(sent, name)
			}
			pp.Platforms[name] = out
		}
		resp.Packages = append(resp.Packages, pp)
	}
	return resp
}

func descriptionToPB(d Description) *pb.DescribeResponse {
	out := &pb.DescribeResponse{Name: d.Name, Products: d.Products, ProtocolVersion: ProtocolVersion}
	for _, r := range d.Renames {
		out.Renames = append(out.Renames, &pb.Rename{Package: r.Package, Replaces: r.Replaces, Since: r.Since})
	}
	for _, f := range d.Facts {
		pf := &pb.ProductFacts{Product: f.Product, Toolkit: f.Toolkit, Unlisted: f.Unlisted, Base: f.Base, Path: f.Path,
			StripPrefix: f.StripPrefix, LocalIdentify: f.LocalIdentify, Platforms: f.Platforms, NoCuda: f.NoCUDA}
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
