//go:build !unix

package inputfile

import "os"

func open(path string) (*os.File, error) {
	// Stat first: there is no non-blocking open here.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: path, Msg: "not a regular file (" + describe(st.Mode()) + "): refused"}
	}
	return os.Open(path)
}
