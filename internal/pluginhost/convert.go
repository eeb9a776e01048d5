package pluginhost

import (
	"fmt"

	pb "github.com/cudapkgs/cudapkgs/internal/pluginpb"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

func stringLists(m map[string][]string) map[string]*pb.StringList {
	out := make(map[string]*pb.StringList, len(m))
	for k, v := range m {
		out[k] = &pb.StringList{Values: v}
	}
	return out
}

func batchToPB(b *sdk.Batch) *pb.FixupRequest {
	req := &pb.FixupRequest{Cuda: b.CUDA, Product: b.Product, Config: &pb.Config{
		CudaVersions: b.Config.CUDAVersions, ForwardCompat: b.Config.ForwardCompat, Exec: b.Config.Exec,
		Targets: b.Config.Targets, Capabilities: stringLists(b.Config.Capabilities), DefaultCapabilityTargets: b.Config.DefaultCapabilityTargets,
		Architectures: b.Config.Architectures}}
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

func resultFromPB(resp *pb.FixupResponse) (*sdk.Result, error) {
	r := &sdk.Result{}
	for _, p := range resp.GetPackages() {
		pp := sdk.PackageResult{Name: p.GetName(), Platforms: map[string]sdk.PlatformResult{}, StaticLinkopts: p.GetStaticLinkopts()}
		for _, pa := range p.GetPatches() {
			pe := sdk.Patch{Name: pa.GetName(), Why: pa.GetWhy()}
			for _, e := range pa.GetEdits() {
				pe.Edits = append(pe.Edits, sdk.Edit{Path: e.GetPath(), Old: e.GetOld(), New: e.GetNew()})
			}
			pp.Patches = append(pp.Patches, pe)
		}
		for _, d := range p.GetDeps() {
			pp.Deps = append(pp.Deps, sdk.Dep{Package: d.GetPackage(), Release: d.GetRelease(), Runtime: d.GetRuntime(), Since: d.GetSince(), Until: d.GetUntil(), Platforms: d.GetPlatforms(), Static: d.GetStatic(), Headers: d.GetHeaders(), Merge: d.GetMerge()})
		}
		files := map[string][]sdk.File{}
		for name, pr := range p.GetPlatforms() {
			var fs []sdk.File
			for _, f := range pr.GetFiles() {
				fs = append(fs, sdk.File{Path: f.GetPath(), Kind: sdk.Kind(f.GetKind().Name()), Role: sdk.Role(f.GetRole().Name()), SONAME: f.GetSoname()})
			}
			files[name] = fs
		}
		for name, pr := range p.GetPlatforms() {
			out := sdk.PlatformResult{Unusable: pr.GetUnusable(), Files: files[name], Generic: pr.GetGeneric(), Judged: pr.GetJudgedCapabilities()}
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

func descriptionFromPB(d *pb.DescribeResponse) sdk.Description {
	out := sdk.Description{Name: d.GetName(), Products: d.GetProducts(), ProtocolVersion: int(d.GetProtocolVersion())}
	for _, r := range d.GetRenames() {
		out.Renames = append(out.Renames, sdk.Rename{Package: r.GetPackage(), Replaces: r.GetReplaces(), Since: r.GetSince()})
	}
	for _, pf := range d.GetFacts() {
		f := sdk.ProductFacts{Product: pf.GetProduct(), Toolkit: pf.GetToolkit(), Unlisted: pf.GetUnlisted(), Base: pf.GetBase(),
			Path: pf.GetPath(), StripPrefix: pf.GetStripPrefix(), LocalIdentify: pf.GetLocalIdentify(),
			Platforms: pf.GetPlatforms(), NoCUDA: pf.GetNoCuda()}
		for _, fc := range pf.GetFlatCuda() {
			f.FlatCUDA = append(f.FlatCUDA, sdk.FlatCUDA{From: fc.GetFrom(), Below: fc.GetBelow(), CUDA: fc.GetCuda()})
		}
		if pt := pf.GetToolchain(); pt != nil {
			t := &sdk.Toolchain{Compiler: pt.GetCompiler(), Runtime: pt.GetRuntime()}
			for _, h := range pt.GetHeaders() {
				t.Headers = append(t.Headers, sdk.ToolchainHeaders{Since: h.GetSince(), Packages: h.GetPackages()})
			}
			for _, h := range pt.GetClangHeaders() {
				t.ClangHeaders = append(t.ClangHeaders, sdk.ToolchainHeaders{Since: h.GetSince(), Packages: h.GetPackages()})
			}
			f.Toolchain = t
		}
		for _, h := range pf.GetLocalHints() {
			f.LocalHints = append(f.LocalHints, sdk.LocalHint{Component: h.GetComponent(), Rel: h.GetRel(), Kind: h.GetKind(), Key: h.GetKey()})
		}
		for _, w := range pf.GetWheels() {
			f.Wheels = append(f.Wheels, sdk.WheelProject{Project: w.GetProject(), CUDAMajors: w.GetCudaMajors(), Package: w.GetPackage(), Prefix: w.GetPrefix()})
		}
		out.Facts = append(out.Facts, f)
	}
	return out
}
