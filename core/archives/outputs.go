package archives

import (
	"path"

	"github.com/cudapkgs/cudapkgs/core/file"
)

// Outputs are an archive's files as both emitters declare them: headers,
// libraries with their target names, stubs, tools and data. Every list is
// in SortFiles order, so that names are handed out alike in both trees.
type Outputs struct {
	// HeaderFiles are headers declared one by one (IsHeaderFile), included
	// by their name from their folder; HeaderDirs are include folders.
	HeaderFiles, HeaderDirs []string
	// Libs are the shared and static libraries, interleaved as the files
	// are sorted: target names depend on that order.
	Libs []Lib
	// Stubs are link-time stubs, Binaries tools, Data everything else
	// (data files and folders, and kinds newer than this code).
	Stubs, Binaries, Data []string
}

// Lib is one library of an archive.
type Lib struct {
	// Name is the library's target name, unique in the archive's build
	// file: LibBase of its SONAME (else its file name), with a _shared or
	// _static suffix where that is taken.
	Name   string
	Path   string
	Static bool
	SONAME string // shared libraries only, and not always
	// Linked says the archive's top target (or its static set) links the
	// library: target-role libraries are; exec-role ones serve the tools.
	Linked bool
}

// HasHeaders reports whether the archive declares any header.
func (o Outputs) HasHeaders() bool { return len(o.HeaderFiles)+len(o.HeaderDirs) > 0 }

// Outputs classifies the archive's files once for every emitter. reserved
// are the target names the emitter gives its fixed targets (the top
// target, headers, ...), which no library may take.
func (a *Archive) Outputs(reserved ...string) Outputs {
	var o Outputs
	names := NewTargetNames(reserved...)
	for _, f := range a.SortedFiles() {
		switch f.Kind {
		case file.Headers:
			if IsHeaderFile(f.Path) {
				o.HeaderFiles = append(o.HeaderFiles, f.Path)
			} else {
				o.HeaderDirs = append(o.HeaderDirs, f.Path)
			}
		case file.SharedLib:
			base := f.SONAME
			if base == "" {
				base = path.Base(f.Path)
			}
			o.Libs = append(o.Libs, Lib{Name: names.Unique(LibBase(base), "shared"), Path: f.Path, SONAME: f.SONAME, Linked: f.Role != file.Exec})
		case file.StaticLib:
			o.Libs = append(o.Libs, Lib{Name: names.Unique(LibBase(path.Base(f.Path)), "static"), Path: f.Path, Static: true, Linked: f.Role != file.Exec})
		case file.StubLib:
			o.Stubs = append(o.Stubs, f.Path)
		case file.Binary:
			o.Binaries = append(o.Binaries, f.Path)
		default: // data, and kinds this code does not know yet
			o.Data = append(o.Data, f.Path)
		}
	}
	return o
}
