package pluginpb

// Kinds and roles are enums on the wire (a varint, not a string per file);
// the SDK names them with strings (sdk.Kind, sdk.Role). These say which is
// which, for both sides of the protocol. An unknown or unspecified value
// reads as "", which the host refuses.

// KindFromName is the wire value of a kind's name ("headers").
func KindFromName(name string) Kind {
	for k := Kind_KIND_HEADERS; k <= Kind_KIND_DATA; k++ {
		if k.Name() == name {
			return k
		}
	}
	return Kind_KIND_UNSPECIFIED
}

// Name is the kind's name as the SDK writes it; "" for none.
func (k Kind) Name() string {
	switch k {
	case Kind_KIND_HEADERS:
		return "headers"
	case Kind_KIND_SHARED_LIB:
		return "shared_lib"
	case Kind_KIND_STATIC_LIB:
		return "static_lib"
	case Kind_KIND_STUB_LIB:
		return "stub_lib"
	case Kind_KIND_BINARY:
		return "binary"
	case Kind_KIND_DATA:
		return "data"
	}
	return ""
}

// RoleFromName is the wire value of a role's name ("exec").
func RoleFromName(name string) Role {
	switch name {
	case "exec":
		return Role_ROLE_EXEC
	case "target":
		return Role_ROLE_TARGET
	}
	return Role_ROLE_UNSPECIFIED
}

// Name is the role's name as the SDK writes it; "" for none.
func (r Role) Name() string {
	switch r {
	case Role_ROLE_EXEC:
		return "exec"
	case Role_ROLE_TARGET:
		return "target"
	}
	return ""
}
