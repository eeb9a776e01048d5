package gpu

// Gencode returns nvcc's -gencode flags for caps: one SASS entry
// ("-gencode=arch=compute_90a,code=sm_90a") per capability in the order
// given, duplicates dropped.
//
// With forwardCompat it adds one PTX entry ("code=compute_XY") for the last
// capability in caps that is neither architecture- nor family-specific, so
// that GPUs newer than every listed target can JIT-compile the code. "a" and
// "f" PTX is not forward compatible (the driver will not JIT compute_90a for
// sm_100), so when caps holds only such targets no PTX entry is added.
func Gencode(caps []Capability, forwardCompat bool) []string {
	var out []string
	seen := make(map[string]bool)
	add := func(flag string) {
		if !seen[flag] {
			seen[flag] = true
			out = append(out, flag)
		}
	}
	var ptx *Capability
	for i, c := range caps {
		add("-gencode=arch=" + c.Compute() + ",code=" + c.SM())
		if !c.ArchitectureSpecific() && !c.FamilySpecific() {
			ptx = &caps[i]
		}
	}
	if forwardCompat && ptx != nil {
		add("-gencode=arch=" + ptx.Compute() + ",code=" + ptx.Compute())
	}
	return out
}
