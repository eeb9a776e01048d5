//go:build !unix

package outdir

// mountPoint is not detected on Windows (a junction to another volume):
// there the tree is replaced file by file (see exchange), and a rename that
// would cross volumes fails with an error naming the file.
func mountPoint(dir string) string { return "" }
