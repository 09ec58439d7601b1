package yamlfile

import "go.yaml.in/yaml/v3"

// Deref follows aliases to the node they stand for (at most 100 deep).
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// Describe names the kind of n for messages: "a mapping", "a sequence",
// "a string", "an integer", "null", ...
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.ScalarNode:
		switch t := n.ShortTag(); t {
		case "!!null":
			return "null"
		case "!!str":
			return "a string"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!timestamp":
			return "a timestamp"
		default:
			return t
		}
	}
	return "an unknown node"
}

// IsMapping reports whether n, followed through aliases, is a mapping.
func IsMapping(n *yaml.Node) bool { return Deref(n).Kind == yaml.MappingNode }
