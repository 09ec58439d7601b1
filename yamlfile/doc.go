// Package yamlfile holds what every parser of a file users write in YAML
// shares — topology files, experiment specs, scenarios: the SyntaxError that
// names FILE:LINE: FIELD, the line count YAML itself uses, turning the YAML
// parser's own errors into SyntaxErrors, naming a node's kind in messages,
// and the message for an unknown field, which suggests the known field
// nearest by edit distance ("rnus: unknown field; did you mean runs?").
//
// ExampleParseError turns a YAML parser's error into FILE:LINE: message.
//
// Everything here is a pure function of its arguments and safe to call
// concurrently.
package yamlfile
