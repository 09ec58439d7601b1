// Package yamlfile holds what every parser of a file users write in YAML
// shares — topology files, experiment specs, scenarios: the SyntaxError that
// names FILE:LINE: FIELD, the line count YAML itself uses, turning the YAML
// parser's own errors into SyntaxErrors, and naming a node's kind in
// messages.
//
//	if err := yaml.Unmarshal(data, &root); err != nil {
//		return yamlfile.ParseError(name, yamlfile.Lines(data), err)
//	}
//
// Everything here is a pure function of its arguments and safe to call
// concurrently.
package yamlfile
